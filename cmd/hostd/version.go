package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/hostd-dev/hostd/rpc"
)

// build is what a binary knows about how it was built.
type build struct {
	version  string // the module version, or "dev" for a build from a checkout
	commit   string // vcs.revision, empty when the build did not record it
	modified bool   // vcs.modified: the checkout had uncommitted changes
	goVer    string
}

// readBuild reads this binary's build information.
func readBuild() build {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return build{version: "dev", goVer: runtime.Version()}
	}
	return buildFrom(bi)
}

func buildFrom(bi *debug.BuildInfo) build {
	b := build{version: "dev", goVer: bi.GoVersion}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		b.version = v
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.commit = s.Value
		case "vcs.modified":
			b.modified = s.Value == "true"
		}
	}
	return b
}

// commitLabel is the commit as host.info reports it: empty when unknown,
// with +modified for a build with uncommitted changes.
func (b build) commitLabel() string {
	if b.commit != "" && b.modified {
		return b.commit + "+modified"
	}
	return b.commit
}

// describeBuild is the one line --version prints.
func describeBuild(name string, b build) string {
	commit := "commit unknown (built without version control information)"
	if b.commit != "" {
		commit = "commit " + b.commit
		if b.modified {
			commit += " with uncommitted changes"
		}
	}
	return fmt.Sprintf("%s %s, protocol %d, %s, %s", name, b.version, rpc.ProtocolVersion, commit, b.goVer)
}
