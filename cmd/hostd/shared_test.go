package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/hostd-dev/hostd/internal/testenv"
)

// stdioClient is one `hostd --stdio` process, as one app window runs it,
// with a JSON-RPC client on its stdin and stdout.
type stdioClient struct {
	*testenv.Daemon // the process, its stderr and exit
	c               *jsonrpc2.Conn
}

func (s *stdioClient) errText() string { return s.Log() }

// startStdio runs `hostd --stdio` with env added to the test's own
// environment (the state directory, say).
func startStdio(t *testing.T, env []string, args ...string) *stdioClient {
	t.Helper()
	return startStdioIn(t, append(os.Environ(), env...), args...)
}

// startStdioIn runs `hostd --stdio` with exactly the environment env.
func startStdioIn(t *testing.T, env []string, args ...string) *stdioClient {
	t.Helper()
	s := &stdioClient{Daemon: startStdioProcess(t, env, "--stdio", args...)}
	s.c = newClient(t, struct {
		io.Reader
		io.Writer
		io.Closer
	}{s.Stdout, s.Stdin, s.Stdin})
	return s
}

// startStdioProcess runs hostd's mode (--stdio, mcp) with exactly the
// environment env and pipes on its stdin and stdout; closing stdin stops it.
func startStdioProcess(t *testing.T, env []string, mode string, args ...string) *testenv.Daemon {
	t.Helper()
	return testenv.Start(t, testenv.Options{Bin: hostdBinary(t), Args: append([]string{mode}, args...), Env: env, ExactEnv: true, Stdio: true})
}

func (s *stdioClient) call(method string, params, result any) error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	return s.c.Call(ctx, method, params, result)
}

// The desktop issue's two windows: three `hostd --stdio` processes of one
// user at once share one daemon (one pid, one review store, one set of
// file locks): editing one file from all three loses nothing. When the
// shared daemon dies, every client is told so and none hangs; the next
// client starts a new daemon, and the review history is intact.
func TestE2EStdioClientsShareOneDaemon(t *testing.T) {
	runtime, state := shortDir(t), t.TempDir()
	env := []string{"XDG_STATE_HOME=" + state}
	socket := filepath.Join(runtime, "hostd", "hostd.sock")
	ws := t.TempDir()
	const clients, rounds = 3, 8
	var init strings.Builder
	for i := range clients {
		fmt.Fprintf(&init, "line %d\n", i+1)
	}
	if err := os.WriteFile(filepath.Join(ws, "shared.txt"), []byte(init.String()), 0o644); err != nil {
		t.Fatal(err)
	}

	cs := make([]*stdioClient, clients)
	for i := range cs {
		cs[i] = startStdio(t, env, "--socket", socket)
	}
	pids := map[float64]bool{}
	sessions := make([]string, clients)
	lastOK := make([]string, clients)
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i, s := range cs {
		wg.Go(func() {
			var info map[string]any
			if err := s.call("host.info", nil, &info); err != nil {
				t.Errorf("client %d: host.info: %v\n%s", i, err, s.errText())
				return
			}
			mu.Lock()
			pids[info["pid"].(float64)] = true
			mu.Unlock()
			var ref struct{ SessionID string }
			if err := s.call("session.create", map[string]any{"workspace": ws, "sessionId": fmt.Sprintf("window-%d", i)}, &ref); err != nil {
				t.Errorf("client %d: %v", i, err)
				return
			}
			sessions[i] = ref.SessionID
			for r := range rounds {
				var rd struct{ Tag string }
				if err := s.call("tools.execute", map[string]any{"sessionId": ref.SessionID, "tool": "read", "args": map[string]any{"path": "shared.txt"}}, &rd); err != nil {
					t.Errorf("client %d: %v", i, err)
					return
				}
				text := fmt.Sprintf("line %d from window %d round %d", i+1, i, r)
				var ed struct {
					OK    bool `json:"ok"`
					Error *struct{ Code string }
				}
				args := map[string]any{"path": "shared.txt", "tag": rd.Tag, "ops": fmt.Sprintf("PUT %d.=%d:\n+%s", i+1, i+1, text)}
				if err := s.call("tools.execute", map[string]any{"sessionId": ref.SessionID, "tool": "edit", "toolCallId": fmt.Sprintf("w%d-r%d", i, r), "args": args}, &ed); err != nil {
					t.Errorf("client %d: %v", i, err)
					return
				}
				if ed.OK {
					lastOK[i] = text
				} else if ed.Error.Code != "EDIT_TAG_MISMATCH" {
					t.Errorf("client %d round %d: %s", i, r, ed.Error.Code)
				}
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	if len(pids) != 1 {
		t.Fatalf("the clients reached %d daemons, want one shared daemon: %v", len(pids), pids)
	}
	final, _ := os.ReadFile(filepath.Join(ws, "shared.txt"))
	lines := strings.Split(strings.TrimSuffix(string(final), "\n"), "\n")
	for i, want := range lastOK {
		if want == "" || lines[i] != want {
			t.Errorf("line %d is %q, the last edit that answered ok wrote %q", i+1, lines[i], want)
		}
	}
	var entries struct{ Entries []map[string]any }
	if err := cs[0].call("review.list", map[string]any{"sessionId": sessions[0]}, &entries); err != nil {
		t.Fatal(err)
	}
	recorded := len(entries.Entries)
	if recorded == 0 {
		t.Fatal("no review entries for window 0")
	}

	// Kill the shared daemon: every client is told, none hangs.
	var pid float64
	for p := range pids {
		pid = p
	}
	killProcess(int(pid))
	for i, s := range cs {
		select {
		case <-s.Exited():
			if err := s.Err(); err == nil || !strings.Contains(s.errText(), "shared hostd closed the connection") {
				t.Errorf("client %d: exit %v, stderr:\n%s", i, err, s.errText())
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("client %d still runs after its daemon died", i)
		}
		if err := s.call("host.info", nil, nil); err == nil {
			t.Errorf("client %d: a call succeeded with no daemon", i)
		}
	}

	// A new client starts a new daemon; the review history survived. It
	// starts once the killed daemon is gone: while the kernel tears a
	// killed process down, its listening socket can still take a
	// connection into its backlog and then drop it. The forwarder dials
	// again when that happens during its check
	// (TestE2EForwarderChecksTheSharedDaemonsProtocol); waiting here keeps
	// this test about the restart.
	waitGone(t, int(pid))
	s := startStdio(t, env, "--socket", socket)
	var info map[string]any
	if err := s.call("host.info", nil, &info); err != nil {
		daemonLog, _ := os.ReadFile(filepath.Join(state, "hostd", "hostd.log"))
		t.Fatalf("after the restart: %v\n%s\nthe shared daemon's log:\n%s", err, s.errText(), daemonLog)
	}
	if info["pid"].(float64) == pid {
		t.Fatal("the dead daemon answered")
	}
	if err := s.call("session.create", map[string]any{"workspace": ws, "sessionId": sessions[0]}, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.call("review.list", map[string]any{"sessionId": sessions[0]}, &entries); err != nil {
		t.Fatal(err)
	}
	if len(entries.Entries) != recorded {
		t.Fatalf("%d review entries after the restart, %d before", len(entries.Entries), recorded)
	}
	if err := s.call("host.shutdown", nil, nil); err != nil {
		t.Fatal(err)
	}
}

// A --stdio daemon given its own --state-dir stays independent: it
// serves in its own process.
func TestE2EStdioWithItsOwnStateDirIsIndependent(t *testing.T) {
	env := []string{"XDG_STATE_HOME=" + t.TempDir()}
	s := startStdio(t, env, "--state-dir", t.TempDir())
	var info map[string]any
	if err := s.call("host.info", nil, &info); err != nil {
		t.Fatal(err)
	}
	if int(info["pid"].(float64)) != s.Cmd.Process.Pid {
		t.Fatalf("pid %v: an own --state-dir must serve in its own process (%d)", info["pid"], s.Cmd.Process.Pid)
	}
}
