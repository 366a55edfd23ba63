package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
)

// protocolVersion is the wire contract this hostctl speaks (host.info's
// protocolVersion); a daemon reporting another one may not answer as
// hostctl expects.
const protocolVersion = 1

// build is what a binary knows about how it was built.
type build struct {
	Version  string `json:"version"`          // the module version, or "dev" for a build from a checkout
	Commit   string `json:"commit,omitempty"` // vcs.revision
	Modified bool   `json:"modified"`         // vcs.modified: built with uncommitted changes
	Go       string `json:"goVersion"`
}

func readBuild() build {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return build{Version: "dev", Go: runtime.Version()}
	}
	return buildFrom(bi)
}

func buildFrom(bi *debug.BuildInfo) build {
	b := build{Version: "dev", Go: bi.GoVersion}
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

func (b build) describe(name string) string {
	commit := "commit unknown (built without version control information)"
	if b.Commit != "" {
		commit = "commit " + b.Commit
		if b.Modified {
			commit += " with uncommitted changes"
		}
	}
	return fmt.Sprintf("%s %s, protocol %d, %s, %s", name, b.Version, protocolVersion, commit, b.Go)
}

// cmdVersion prints this hostctl's version, then the daemon's if one
// answers. host.info carries the daemon's version and protocol; a daemon
// built from a tagged or stamped module version names its commit there.
func cmdVersion(ctx context.Context, a *app) error {
	client := readBuild()
	if !a.json {
		fmt.Fprintf(a.io.out, "client  %s\n", client.describe("hostctl"))
	}
	var in hostInfo
	c, err := dial(ctx, a.socket, a.maxFrame, a.trust)
	if err == nil {
		defer c.Close()
		err = c.call(ctx, "host.info", nil, &in)
	}
	if a.json {
		out := map[string]any{"client": map[string]any{"name": "hostctl", "version": client.Version, "protocolVersion": protocolVersion,
			"commit": client.Commit, "modified": client.Modified, "goVersion": client.Go}}
		if err == nil {
			out["daemon"] = map[string]any{"name": in.Name, "version": in.Version, "commit": in.Commit, "protocolVersion": in.ProtocolVersion, "pid": in.PID, "socket": a.socket}
		}
		raw, mErr := json.Marshal(out)
		if mErr != nil {
			return mErr
		}
		if pErr := printJSON(a.io.out, raw); pErr != nil {
			return pErr
		}
	}
	if err != nil {
		if errors.Is(err, errNoDaemon) && !a.json {
			fmt.Fprintf(a.io.out, "daemon  none listening on %s\n", cell(a.socket))
		}
		return err
	}
	if !a.json {
		commit := "commit unknown"
		if in.Commit != "" {
			commit = "commit " + cell(in.Commit)
		}
		fmt.Fprintf(a.io.out, "daemon  %s %s, protocol %d, %s, pid %d, on %s\n", cell(in.Name), cell(in.Version), in.ProtocolVersion, commit, in.PID, cell(a.socket))
	}
	if in.ProtocolVersion != protocolVersion {
		fmt.Fprintf(a.io.err, "hostctl: the daemon speaks protocol %d and this hostctl protocol %d; use the hostctl built with that hostd\n", in.ProtocolVersion, protocolVersion)
	}
	return nil
}
