// Package buildinfo owns what a hostd binary knows about how it was built:
// its version, the commit and whether the checkout was modified, and the
// Go version, read from the binary's embedded build information. It is a
// leaf that imports nothing of hostd's, so hostctl can share it without
// importing the server.
//
// The version is, in order: the release version the release build stamps
// (cmd/release passes -X with the VERSION file's MAJOR.MINOR.PATCH);
// else the module version Go stamps (v0.1.0 for `go install …@v0.1.0`, a
// pseudo-version such as v0.0.0-20261205014810-6b8a67f98dfd, possibly
// with +dirty, for a `go build` in a git checkout); else "dev", for a
// build without version control information (-buildvcs=false, a test
// binary, a source tree that is not a checkout).
package buildinfo

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// release is the release version, MAJOR.MINOR.PATCH, set only by the
// release build: -ldflags "-X github.com/hostd-dev/hostd/internal/buildinfo.release=0.1.0".
var release string

// Info describes one build.
type Info struct {
	Version  string `json:"version"`          // the release version, else the module version Go stamped, else "dev"
	Commit   string `json:"commit,omitempty"` // vcs.revision, empty when the build did not record it
	Modified bool   `json:"modified"`         // vcs.modified: the checkout had uncommitted changes
	Go       string `json:"goVersion"`
}

// Read returns this binary's build information.
func Read() Info {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return stamp(Info{Version: "dev", Go: runtime.Version()}, release)
	}
	return stamp(From(bi), release)
}

// stamp gives b the release version, when the release build set one.
func stamp(b Info, release string) Info {
	if release != "" {
		b.Version = release
	}
	return b
}

// From reads bi, as debug.ReadBuildInfo returns it.
func From(bi *debug.BuildInfo) Info {
	b := Info{Version: "dev", Go: bi.GoVersion}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		b.Version = v
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Commit = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	return b
}

// CommitLabel is the commit as host.info reports it: empty when unknown,
// with +modified for a build with uncommitted changes.
func (b Info) CommitLabel() string {
	if b.Commit != "" && b.Modified {
		return b.Commit + "+modified"
	}
	return b.Commit
}

// Describe is the one line --version prints for the program name, which
// speaks wire protocol protocol.
func (b Info) Describe(name string, protocol int) string {
	commit := "commit unknown (built without version control information)"
	if b.Commit != "" {
		commit = "commit " + b.Commit
		if b.Modified {
			commit += " with uncommitted changes"
		}
	}
	return fmt.Sprintf("%s %s, protocol %d, %s, %s", name, b.Version, protocol, commit, b.Go)
}
