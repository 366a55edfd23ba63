//go:build linux

package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/internal/endpoint"
	"github.com/hostd-dev/hostd/internal/spawn"
	"github.com/hostd-dev/hostd/rpc/wire"
)

// TestE2ERestartAfterKillDuringWorkerStarts is issue 38's restart race:
// a desktop app's supervisor SIGKILLs the daemon and starts it again at
// once, and the kill may land while a parse worker is being started. A
// child forked and not yet exec'd holds a copy of every descriptor of
// the process that forked it; the daemon's socket lock and listener must
// never be among them, or the next start is refused (the lock is held,
// or the socket answers a probe) and a client connects to a listener
// nobody will answer.
//
// The test hook spawn.HoldEnv widens that window to seconds: every
// worker start also starts a holder with a copy of every descriptor of
// the process that starts the worker, which outlives the daemon, as an
// unscheduled pre-exec child does on a busy machine. Each round kills
// the daemon at a worker start (right as it listens, when its first
// worker starts; after a block op, when the spare starts; or a few
// milliseconds later), then, before anything else: a client dialing the
// socket must be refused (no listener), not connected; the new daemon
// must start (never exit 4) and answer host.info with its own pid.
//
// CI size 60 rounds; HOSTD_STRESS=long runs 600.
func TestE2ERestartAfterKillDuringWorkerStarts(t *testing.T) {
	rounds := 60
	if os.Getenv("HOSTD_STRESS") == "long" {
		rounds = 600
	}
	bin := hostdWithTestHooks(t)
	env := []string{spawn.HoldEnv + "=2s"}
	socket := filepath.Join(shortDir(t), "hostd.sock")
	state := t.TempDir()
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	start := func(round int) *daemon {
		t.Helper()
		d := launchBinary(t, bin, env, "--socket", socket, "--state-dir", state)
		d.socket = socket
		if !d.waitStderr("listening on "+socket, time.Minute) {
			t.Fatalf("round %d: the start after a kill did not listen within a minute (it failed or hangs; its stderr follows)", round)
		}
		return d
	}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 38))
	d := start(-1)
	kills := map[string]int{}
	for round := range rounds {
		how := []string{"as it listens", "after a block op", "a few ms in"}[round%3]
		switch how {
		case "after a block op":
			// The op takes the idle worker; the pool starts a spare.
			c := d.client()
			s := newSession(t, c, ws)
			w := tool(t, c, s, "write", map[string]any{"path": "f.py", "content": "def f():\n    return 1\n\n\ndef g():\n    return 2\n"})
			e := tool(t, c, s, "edit", map[string]any{"path": "f.py", "tag": w["tag"], "ops": "CUT 1*"})
			if e["ok"] != true {
				t.Fatalf("round %d: the block op: %v", round, e)
			}
		case "a few ms in":
			time.Sleep(time.Duration(rng.IntN(30)) * time.Millisecond)
		}
		kills[how]++
		d.Kill()
		// The daemon is gone: its address must be free of it. A dial is
		// refused; it never connects to a listener nobody answers.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		conn, err := endpoint.Dial(ctx, socket)
		cancel()
		if err == nil {
			conn.Close()
			t.Fatalf("round %d (killed %s): a client connected to the socket of a daemon that was killed: something still holds its listener", round, how)
		}
		if !errors.Is(err, endpoint.ErrNoListener) {
			t.Fatalf("round %d (killed %s): dialing the dead daemon's socket: %v, want no listener", round, how, err)
		}
		d = start(round)
		var info wire.HostInfo
		mustCall(t, d.client(), "host.info", nil, &info)
		if info.PID != d.Cmd.Process.Pid {
			t.Fatalf("round %d: host.info answered pid %d, the daemon started is %d", round, info.PID, d.Cmd.Process.Pid)
		}
		if strings.Contains(d.output(), "already running") {
			t.Fatalf("round %d: %s", round, d.output())
		}
	}
	t.Logf("%d rounds, each a kill and a start at once: %v", rounds, fmt.Sprint(kills))
}
