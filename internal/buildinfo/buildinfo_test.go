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
