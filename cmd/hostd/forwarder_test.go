package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/internal/endpoint"
	"github.com/hostd-dev/hostd/rpc/wire"
)

// standIn replaces the starting of a shared daemon for one test.
func standIn(t *testing.T, start func(config.Config) (<-chan daemonExit, error)) {
	t.Helper()
	saved := startSharedDaemon
	startSharedDaemon = start
	t.Cleanup(func() { startSharedDaemon = saved })
}

// The race of issue 28 (8 forwarders started at once, one exited 1 with
// "the shared daemon it started exited"): the daemon a forwarder starts
// may lose the address to another forwarder's, which holds the lock but
// listens only a moment later (after opening its store). The loser exits
// at once; its forwarder must dial the winner, not give up.
func TestAForwarderWhoseDaemonLostDialsTheWinner(t *testing.T) {
	cfg := config.Default()
	cfg.Socket = filepath.Join(shortDir(t), "hostd", "hostd.sock")
	cfg.StateDir = t.TempDir()
	winner, err := endpoint.ClaimAddress(cfg.Socket)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(winner.Release)
	standIn(t, func(config.Config) (<-chan daemonExit, error) {
		exited := make(chan daemonExit, 1)
		exited <- daemonExit{live: true, err: errors.New("exit status 4")}
		// The winner listens once its (slow) store is open.
		go func() {
			time.Sleep(300 * time.Millisecond)
			l, err := winner.Listen()
			if err != nil {
				t.Error(err)
				return
			}
			t.Cleanup(func() { l.Close() })
		}()
		return exited, nil
	})
	c, started, err := dialOrStartShared(context.Background(), cfg)
	if err != nil {
		t.Fatalf("the forwarder gave up: %v", err)
	}
	c.Close()
	if started {
		t.Error("reported starting the daemon another forwarder started")
	}
}

// A daemon that could not start says why in its log; the forwarder that
// started it says the same on stderr, not a guess.
func TestAForwarderNamesWhyItsDaemonStopped(t *testing.T) {
	cfg := config.Default()
	cfg.Socket = filepath.Join(shortDir(t), "hostd", "hostd.sock")
	cfg.StateDir = t.TempDir()
	// An earlier daemon's failure is history, not this start's cause.
	old := `{"level":"error","msg":"` + logStartFailed + `","error":"an old failure"}` + "\n"
	if err := os.WriteFile(sharedLogPath(cfg), []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	const cause = "review store is in use by another process (pid 7, the daemon on /elsewhere.sock, started 2026-01-02T10:00:00Z)"
	standIn(t, func(config.Config) (<-chan daemonExit, error) {
		f, err := os.OpenFile(sharedLogPath(cfg), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return nil, err
		}
		f.WriteString(`{"level":"info","msg":"starting"}` + "\n" + `{"level":"error","msg":"` + logStartFailed + `","error":"` + cause + `"}` + "\n")
		f.Close()
		exited := make(chan daemonExit, 1)
		exited <- daemonExit{err: errors.New("exit status 1")}
		return exited, nil
	})
	_, _, err := dialOrStartShared(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), "the shared daemon it started exited: "+cause) || strings.Contains(err.Error(), "old failure") {
		t.Fatalf("got %v, want the daemon's own cause", err)
	}
}

// TestE2EForwardersStartedAtOnce is the stress test of issue 28's race
// with real processes: rounds of N `hostd --stdio` started at once with
// no daemon on their socket. Every one must reach the one shared daemon
// (host.info answered, one pid per round); the round ends with
// host.shutdown. CI size 2 rounds of 8; HOSTD_STRESS=long runs 40.
func TestE2EForwardersStartedAtOnce(t *testing.T) {
	const forwarders = 8
	rounds := 2
	if os.Getenv("HOSTD_STRESS") == "long" {
		rounds = 40
	}
	for round := range rounds {
		runtime := shortDir(t)
		env := []string{"XDG_STATE_HOME=" + t.TempDir()}
		socket := sharedSocket(runtime)
		cs := make([]*stdioClient, forwarders)
		var wg sync.WaitGroup
		for i := range cs {
			wg.Go(func() { cs[i] = startStdio(t, env, "--socket", socket) })
		}
		wg.Wait()
		pids := map[int]bool{}
		var mu sync.Mutex
		for i, s := range cs {
			wg.Go(func() {
				var info wire.HostInfo
				if err := s.call("host.info", nil, &info); err != nil {
					t.Errorf("round %d, forwarder %d: %v\n%s", round, i, err, s.errText())
					return
				}
				mu.Lock()
				pids[info.PID] = true
				mu.Unlock()
			})
		}
		wg.Wait()
		if len(pids) != 1 {
			t.Errorf("round %d: the forwarders reached %d daemons: %v", round, len(pids), pids)
		}
		if err := cs[0].call("host.shutdown", nil, nil); err != nil {
			t.Fatal(err)
		}
		for _, s := range cs {
			select {
			case <-s.Exited():
			case <-time.After(30 * time.Second):
				t.Fatalf("round %d: a forwarder outlived its daemon", round)
			}
		}
		if t.Failed() {
			return
		}
	}
}

// Issue 24: a daemon refused for a state directory another daemon holds
// names that daemon and the way out, and never listens, so no client
// reaches a daemon that cannot serve.
func TestE2EASecondDaemonOnAStateDirectoryNamesTheFirst(t *testing.T) {
	state := t.TempDir()
	first := startDaemon(t, "", "--state-dir", state)
	socket := filepath.Join(shortDir(t), "hostd.sock")
	second := launch(t, "--socket", socket, "--state-dir", state)
	if code := second.wait(30 * time.Second); code != 1 {
		t.Fatalf("exit %d, want 1:\n%s", code, second.output())
	}
	want := fmt.Sprintf("review store is in use by another process (pid %d, the daemon on %s, started ", first.Cmd.Process.Pid, first.socket)
	if out := second.output(); !strings.Contains(out, want) || !strings.Contains(out, "stop it (hostctl --socket "+first.socket+" shutdown)") {
		t.Errorf("stderr lacks %q and the way out:\n%s", want, out)
	}
	if _, err := os.Lstat(socket); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the refused daemon made its socket: %v", err)
	}
	mustCall(t, first.client(), "host.info", nil, nil)
}
