package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestFromReadsVersionCommitAndModified(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.3.0"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "21a51ef"}, {Key: "vcs.modified", Value: "true"}}}
	b := From(bi)
	if b.Version != "v0.3.0" || b.Commit != "21a51ef" || !b.Modified || b.Go != "go1.26.8" {
		t.Fatalf("From = %+v", b)
	}
	if got := b.CommitLabel(); got != "21a51ef+modified" {
		t.Errorf("CommitLabel = %q", got)
	}
	if got, want := b.Describe("hostd", 1), "hostd v0.3.0, protocol 1, commit 21a51ef with uncommitted changes, go1.26.8"; got != want {
		t.Errorf("Describe = %q, want %q", got, want)
	}
	dev := From(&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}})
	if dev.Version != "dev" || dev.CommitLabel() != "" {
		t.Errorf("a checkout build: %+v", dev)
	}
	if got, want := dev.Describe("hostctl", 1), "hostctl dev, protocol 1, commit unknown (built without version control information), go1.26.8"; got != want {
		t.Errorf("Describe = %q, want %q", got, want)
	}
}

// A release build's version is the one it was stamped with, whatever Go
// recorded of the module; the commit stays as Go recorded it.
func TestAReleaseBuildReportsItsReleaseVersion(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20261205014810-6b8a67f98dfd"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "6b8a67f98dfd"}}}
	b := stamp(From(bi), "0.1.0")
	if got, want := b.Describe("hostd", 1), "hostd 0.1.0, protocol 1, commit 6b8a67f98dfd, go1.26.8"; got != want {
		t.Errorf("Describe = %q, want %q", got, want)
	}
	if got := stamp(From(bi), "").Version; got != "v0.0.0-20261205014810-6b8a67f98dfd" {
		t.Errorf("without a release version: %q, want Go's pseudo-version", got)
	}
}
