package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/hostd-dev/hostd/internal/client"
	"github.com/hostd-dev/hostd/rpc/wire"
)

// cmdShutdown asks the daemon to stop as on SIGTERM: it answers first,
// then lets in-flight calls finish within its grace period.
func cmdShutdown(ctx context.Context, a *app, c *daemonConn, _ []string) error {
	in, err := c.typed().HostInfo(ctx)
	if err != nil {
		return err
	}
	rpc, sent := typed(a, c)
	if err := rpc.HostShutdown(ctx); err != nil || sent.printed {
		return err
	}
	fmt.Fprintf(a.io.out, "hostd %s (pid %d) is shutting down; in-flight calls may finish first\n", cell(in.Version), in.PID)
	return nil
}

// cmdSessionDelete drops a live session (its snapshots, registers and
// repeat guard); its review records stay.
func cmdSessionDelete(ctx context.Context, a *app, c *daemonConn, args []string) error {
	rpc, sent := typed(a, c)
	if err := rpc.SessionDelete(ctx, wire.SessionIDParams{SessionID: args[0]}); err != nil || sent.printed {
		return err
	}
	fmt.Fprintf(a.io.out, "session %s deleted; its recorded changes stay (hostctl review list %s)\n", cell(args[0]), cell(args[0]))
	return nil
}

// cmdWatch prints every change the daemon records as it happens (the
// review.recorded notification), of one session or of all, until it is
// interrupted (exit 0) or the daemon goes away (exit 1). With --json each
// notification's params are one line of JSON, diffs included.
func cmdWatch(ctx context.Context, a *app, c *daemonConn, args []string) error {
	var only string
	if len(args) > 0 {
		only = args[0]
	}
	var mu sync.Mutex // the notifications arrive on the connection's goroutine
	c.OnNotify(func(method string, params json.RawMessage) {
		if method != wire.RecordedNotification {
			return
		}
		var rec wire.ReviewRecorded
		if json.Unmarshal(params, &rec) != nil || (only != "" && rec.SessionID != only) {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if a.json {
			a.io.out.Write(append(compactJSON(params), '\n'))
			return
		}
		for _, e := range rec.Entries {
			add, del := diffCounts(e.Diff)
			fmt.Fprintf(a.io.out, "%s  %s  %s  %s %s %s  +%d -%d\n", a.fmt.when(e.At), cell(rec.SessionID), cell(e.ToolCallID), cell(e.Tool), cell(e.Change), cell(e.Path), add, del)
		}
	})
	// A first call proves a hostd answers, and says what is watched.
	in, err := c.typed().HostInfo(ctx)
	if err != nil {
		return err
	}
	what := "every session"
	if only != "" {
		what = "session " + cell(only)
	}
	fmt.Fprintf(a.io.err, "watching the changes hostd %s (pid %d) records for %s; Ctrl-C stops\n", cell(in.Version), in.PID, what)
	select {
	case <-ctx.Done():
		return nil
	case <-c.Done():
		return fmt.Errorf("%w on %s (it stopped or restarted)", client.ErrClosed, c.socket)
	}
}

// diffCounts counts a unified diff's added and removed lines.
func diffCounts(diff string) (add, del int) {
	for line := range strings.SplitSeq(diff, "\n") {
		switch {
		case strings.HasPrefix(line, "+++"), strings.HasPrefix(line, "---"):
		case strings.HasPrefix(line, "+"):
			add++
		case strings.HasPrefix(line, "-"):
			del++
		}
	}
	return add, del
}

func compactJSON(raw json.RawMessage) []byte {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return raw
	}
	return b.Bytes()
}
