package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/config"
)

func TestNoDaemonListening(t *testing.T) {
	dir := shortSocketDir(t)
	missing := filepath.Join(dir, "missing.sock")

	// A stale socket: the file of a daemon that died without removing it.
	stale := filepath.Join(dir, "stale.sock")
	ln, err := net.Listen("unix", stale)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()

	for _, socket := range []string{missing, stale} {
		code, out, errOut := runCLI(t, nil, "", "--socket", socket, "info")
		if code != exitNoDaemon || out != "" {
			t.Errorf("%s: exit %d, stdout %q", socket, code, out)
		}
		for _, w := range []string{"no hostd is listening on " + socket, "go run ./cmd/hostd --socket " + socket} {
			if !strings.Contains(errOut, w) {
				t.Errorf("stderr lacks %q:\n%s", w, errOut)
			}
		}
	}
}

// With no flag and no HOSTD_SOCKET, hostctl looks where hostd listens by
// default (the user's rendezvous, whatever the environment says), and the
// hint to start one needs no --socket.
func TestNoDaemonOnTheDefaultSocket(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", shortSocketDir(t))
	t.Setenv("TMPDIR", shortSocketDir(t))
	if got := socketPath("", func(string) string { return "" }); got != config.DefaultSocketPath() {
		t.Errorf("hostctl looks at %s, hostd listens on %s", got, config.DefaultSocketPath())
	}
	hint := startHint(config.DefaultSocketPath(), launcher{checkout: "/src/hostd"})
	if !strings.Contains(hint, "  go run ./cmd/hostd\n") {
		t.Errorf("hint for the default socket should be a bare go run ./cmd/hostd:\n%s", hint)
	}
}

func TestSocketChoice(t *testing.T) {
	def := config.DefaultSocketPath()
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "HOSTD_SOCKET" {
				return v
			}
			return ""
		}
	}
	tests := []struct{ flag, env, want string }{
		{"", "", def},
		{"", "/from/env.sock", "/from/env.sock"},
		{"/from/flag.sock", "/from/env.sock", "/from/flag.sock"},
	}
	for _, tt := range tests {
		if got := socketPath(tt.flag, env(tt.env)); got != tt.want {
			t.Errorf("flag %q env %q: got %q, want %q", tt.flag, tt.env, got, tt.want)
		}
	}
	// And end to end: HOSTD_SOCKET alone finds the daemon.
	d := daemonWithCannedResults(t)
	if code, _, errOut := runCLI(t, map[string]string{"HOSTD_SOCKET": d.socket}, "", "info"); code != exitOK {
		t.Errorf("HOSTD_SOCKET: exit %d: %s", code, errOut)
	}
}

// A call the daemon does not answer in time is cancelled at the daemon
// too ($/cancelRequest naming the same id), not just abandoned.
func TestTimeoutCancelsTheRequest(t *testing.T) {
	d := startFake(t, map[string]fakeMethod{
		"slow": func(ctx context.Context, _ json.RawMessage) (any, error) {
			<-ctx.Done() // the connection's context: ends when hostctl hangs up
			return nil, ctx.Err()
		},
	})
	start := time.Now()
	code, _, errOut := runCLI(t, nil, "", "--socket", d.socket, "--timeout", "200ms", "call", "slow")
	if code != exitFailed || !strings.Contains(errOut, "no answer before the timeout; the request was cancelled") {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("took %v with a 200ms timeout", el)
	}
	select {
	case id := <-d.cancels:
		if want := d.requests()[0].ID; id != want {
			t.Errorf("$/cancelRequest named id %v, the request had %v", id, want)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the daemon never received $/cancelRequest")
	}
}

// A daemon (or anything else on the socket) announcing a frame larger
// than hostctl holds is refused before the body is read; the test would
// run out of memory or hang on the missing body otherwise.
func TestOversizedResponseIsRefused(t *testing.T) {
	tests := []struct {
		name, frame, want string
	}{
		{"huge Content-Length", "Content-Length: 99999999999\r\n\r\n", "response frame too large: the daemon announced 99999999999 bytes"},
		{"no Content-Length", "Content-Type: text/plain\r\n\r\n", "malformed response frame: no Content-Length header"},
		{"body not JSON", "Content-Length: 5\r\n\r\nhello", "malformed response frame: body is not JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			socket := rawServer(t, func(nc net.Conn) {
				// Read the request header so hostctl is waiting for the answer.
				buf := make([]byte, 64)
				nc.Read(buf)
				io.WriteString(nc, tt.frame)
				io.Copy(io.Discard, nc) // until hostctl hangs up
			})
			code, _, errOut := runCLI(t, nil, "", "--socket", socket, "--timeout", "10s", "info")
			if code != exitFailed || !strings.Contains(errOut, tt.want) {
				t.Fatalf("exit %d, stderr lacks %q:\n%s", code, tt.want, errOut)
			}
		})
	}
}

// hostd closes connections from other users right after accepting them
// (SO_PEERCRED); hostctl explains the hang-up rather than failing
// cryptically.
func TestDaemonHangsUp(t *testing.T) {
	socket := rawServer(t, func(net.Conn) {})
	code, _, errOut := runCLI(t, nil, "", "--socket", socket, "info")
	if code != exitFailed || !strings.Contains(errOut, "the daemon closed the connection on "+socket+" before answering") {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
}
