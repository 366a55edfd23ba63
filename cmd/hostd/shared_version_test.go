package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/hostd-dev/hostd/internal/testenv"
)

// fakeShared listens on the shared socket of runtime as a daemon of the
// given version and protocol would, and records the methods it is sent.
// Before it answers host.info it sends a review.recorded notification, as
// a daemon does to every connection when another client's edit lands.
type fakeShared struct {
	mu      sync.Mutex
	methods []string
}

// sharedSocket is the shared daemon's socket a test gives every client:
// in runtime, a private directory of the test's.
func sharedSocket(runtime string) string { return filepath.Join(runtime, "hostd", "hostd.sock") }

func startFakeShared(t *testing.T, runtime, version string, protocol int) *fakeShared {
	return startFakeSharedDropping(t, runtime, version, protocol, 0)
}

// startFakeSharedDropping is startFakeShared whose first drop connections
// are closed as soon as they are accepted, as a daemon that has just died
// resets the connections its socket still took.
func startFakeSharedDropping(t *testing.T, runtime, version string, protocol, drop int) *fakeShared {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(sharedSocket(runtime)), 0o700); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", sharedSocket(runtime))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	f := &fakeShared{}
	handle := func(ctx context.Context, c *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
		f.mu.Lock()
		f.methods = append(f.methods, req.Method)
		f.mu.Unlock()
		if req.Method != "host.info" {
			return map[string]string{"answeredBy": "the fake daemon"}, nil
		}
		if err := c.Notify(ctx, "review.recorded", map[string]string{"sessionId": "another-window"}); err != nil {
			return nil, err
		}
		return map[string]any{"name": "hostd", "version": version, "protocolVersion": protocol, "pid": 4242}, nil
	}
	go func() {
		for {
			nc, err := l.Accept()
			if err != nil {
				return
			}
			if drop > 0 {
				drop--
				nc.Close()
				continue
			}
			jsonrpc2.NewConn(context.Background(), jsonrpc2.NewBufferedStream(nc, jsonrpc2.VSCodeObjectCodec{}), jsonrpc2.HandlerWithError(handle))
		}
	}()
	return f
}

func (f *fakeShared) calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.methods...)
}

// notes records the notifications a client is sent.
type notes struct {
	mu      sync.Mutex
	methods []string
}

func (n *notes) Handle(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.methods = append(n.methods, req.Method)
}

func (n *notes) got() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.methods...)
}

// After an upgrade the old shared daemon lingers while its windows are
// open. A forwarder checks the daemon's protocol on the connection it
// will relay before relaying anything: one of another protocol is
// refused with a message that names it and the way out, and not one of
// the client's frames reaches it. One of another build of the same
// protocol serves the client, with a note on stderr; the notification
// the daemon sent before answering the check reaches the client. A
// connection that breaks before the check is answered (a daemon that has
// just died still takes connections, then resets them) is dialed again.
func TestE2EForwarderChecksTheSharedDaemonsProtocol(t *testing.T) {
	t.Run("another protocol", func(t *testing.T) {
		runtime := shortDir(t)
		fake := startFakeShared(t, runtime, "9.0.0", 2)
		d := testenv.Start(t, testenv.Options{Bin: hostdBinary(t), Args: []string{"--stdio", "--socket", sharedSocket(runtime)}, Env: []string{"XDG_STATE_HOME=" + t.TempDir()}, Stdio: true})
		go io.Copy(io.Discard, d.Stdout)
		// The client's first request is written at once; it must never
		// reach the daemon.
		frame, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "session.list"})
		io.WriteString(d.Stdin, "Content-Length: "+strconv.Itoa(len(frame))+"\r\n\r\n"+string(frame))
		// against a daemon of another protocol
		if code := d.ExitCode(30 * time.Second); code == 0 {
			t.Fatal("the forwarder exited 0 against a daemon of protocol 2")
		}
		for _, want := range []string{"hostd 9.0.0 (pid 4242) and speaks protocol 2", "speaks protocol 1, so nothing was relayed", "hostctl --socket", "its own --state-dir"} {
			if !strings.Contains(d.Log(), want) {
				t.Errorf("stderr does not say %q:\n%s", want, d.Log())
			}
		}
		if got := fake.calls(); len(got) != 1 || got[0] != "host.info" {
			t.Errorf("the daemon of another protocol was sent %q, want only the forwarder's host.info", got)
		}
	})

	t.Run("a connection that breaks during the check is dialed again", func(t *testing.T) {
		runtime := shortDir(t)
		fake := startFakeSharedDropping(t, runtime, "0.0.1-old", 1, 2)
		s := startStdio(t, []string{"XDG_STATE_HOME=" + t.TempDir()}, "--socket", sharedSocket(runtime))
		var res map[string]string
		if err := s.call("session.list", nil, &res); err != nil || res["answeredBy"] != "the fake daemon" {
			t.Fatalf("session.list after two broken connections: %v %v\n%s", res, err, s.errText())
		}
		if got := fake.calls(); len(got) != 2 || got[0] != "host.info" || got[1] != "session.list" {
			t.Errorf("the daemon was sent %q, want the check once answered, then the client's call", got)
		}
	})

	t.Run("another build of the same protocol", func(t *testing.T) {
		runtime := shortDir(t)
		fake := startFakeShared(t, runtime, "0.0.1-old", 1)
		env := []string{"XDG_STATE_HOME=" + t.TempDir()}
		n := &notes{}
		d := testenv.Start(t, testenv.Options{Bin: hostdBinary(t), Args: []string{"--stdio", "--socket", sharedSocket(runtime)}, Env: env, Stdio: true})
		c := jsonrpc2.NewConn(context.Background(), jsonrpc2.NewBufferedStream(struct {
			io.Reader
			io.Writer
			io.Closer
		}{d.Stdout, d.Stdin, d.Stdin}, jsonrpc2.VSCodeObjectCodec{}), n)
		defer c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		var res map[string]string
		if err := c.Call(ctx, "session.list", nil, &res); err != nil {
			t.Fatalf("session.list through the forwarder: %v", err)
		}
		if res["answeredBy"] != "the fake daemon" {
			t.Errorf("answer %v", res)
		}
		// The note goes to the log, which is written beside the
		// forwarding, not before it: wait for it as for the notification.
		const other = "is another build, hostd 0.0.1-old (pid 4242), of the same protocol 1"
		if !d.Await(testenv.Logged(other), 10*time.Second) {
			t.Errorf("stderr does not name the other build:\n%s", d.Log())
		}
		testenv.Poll(10*time.Second, func() bool { return len(n.got()) > 0 })
		if got := n.got(); len(got) != 1 || got[0] != "review.recorded" {
			t.Errorf("the client got notifications %q, want the review.recorded sent before the check's answer", got)
		}
		if got := fake.calls(); len(got) < 2 || got[len(got)-1] != "session.list" {
			t.Errorf("the daemon was sent %q", got)
		}
	})
}
