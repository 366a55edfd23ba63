package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hostd-dev/hostd/internal/buildinfo"
	"github.com/hostd-dev/hostd/rpc/wire"
)

// protocolVersion is the wire contract this hostctl speaks (host.info's
// protocolVersion); a daemon reporting another one may not answer as
// hostctl expects.
const protocolVersion = wire.ProtocolVersion

// cmdVersion prints this hostctl's version, then the daemon's if one
// answers. host.info carries the daemon's version and protocol; a daemon
// built from a tagged or stamped module version names its commit there.
func cmdVersion(ctx context.Context, a *app) error {
	self := buildinfo.Read()
	if !a.json {
		fmt.Fprintf(a.io.out, "client  %s\n", self.Describe("hostctl", protocolVersion))
	}
	var in wire.HostInfo
	c, err := dial(ctx, a.socket, a.maxFrame)
	if err == nil {
		defer c.Close()
		in, err = c.typed().HostInfo(ctx)
	}
	if a.json {
		out := map[string]any{"client": map[string]any{"name": "hostctl", "version": self.Version, "protocolVersion": protocolVersion,
			"commit": self.Commit, "modified": self.Modified, "goVersion": self.Go}}
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
