package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/internal/spawn"
	"github.com/hostd-dev/hostd/internal/testenv"
	"github.com/hostd-dev/hostd/rpc/wire"
)

// The end-to-end tests build the real hostd binary and drive it as its
// clients do: over its socket and over --stdio, with the jsonrpc2 client
// the Go side uses and with hand-written frames for what a library would
// never send.

// TestMain removes the hostd binary the tests built (17 MB) once they are
// done, whatever their outcome.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == parseWorkerCommand {
		// A daemon a test runs in this process (the goldens) starts this
		// binary as its parse workers, as hostd starts itself.
		if err := runParseWorker(context.Background(), stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if len(os.Args) > 1 && os.Args[1] == spawn.Command {
		// Such a daemon starts this binary as its process spawner too;
		// were the mode not served here, the spawner would run every
		// test again, and each of their daemons another spawner.
		if err := spawn.Serve(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	code := m.Run()
	testenv.RemoveBinaries()
	os.Exit(code)
}

// hostdBinary is the hostd binary, built once per test run (or by the
// parent test that runs this one, rendezvous_test.go).
func hostdBinary(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv(envBinary); bin != "" {
		return bin
	}
	return testenv.Binary(t, "cmd/hostd")
}

// daemon is one running hostd, a process of the test harness.
type daemon struct {
	*testenv.Daemon
	t      *testing.T
	socket string
}

// startDaemon runs hostd on socket (a fresh private one when empty) and
// waits until it says where it listens.
func startDaemon(t *testing.T, socket string, args ...string) *daemon {
	t.Helper()
	if socket == "" {
		socket = filepath.Join(shortDir(t), "hostd.sock")
	}
	d := launch(t, append([]string{"--socket", socket, "--state-dir", t.TempDir()}, args...)...)
	d.socket = socket
	d.Require(testenv.Listening(socket), 30*time.Second)
	return d
}

func launch(t *testing.T, args ...string) *daemon {
	t.Helper()
	return launchBinary(t, hostdBinary(t), nil, args...)
}

// launchBinary runs bin with args and, added to this process's
// environment, env.
func launchBinary(t *testing.T, bin string, env []string, args ...string) *daemon {
	t.Helper()
	return &daemon{Daemon: testenv.Start(t, testenv.Options{Bin: bin, Args: args, Env: env}), t: t}
}

func (d *daemon) output() string { return d.Log() }

func (d *daemon) waitStderr(s string, timeout time.Duration) bool {
	return d.Await(testenv.Logged(s), timeout)
}

// wait returns the exit code once hostd has exited.
func (d *daemon) wait(timeout time.Duration) int {
	d.t.Helper()
	return d.ExitCode(timeout)
}

// client connects with jsonrpc2 and LSP framing, as Go clients do.
func (d *daemon) client() *jsonrpc2.Conn {
	d.t.Helper()
	nc, err := net.Dial("unix", d.socket)
	if err != nil {
		d.t.Fatal(err)
	}
	return newClient(d.t, nc)
}

func newClient(t *testing.T, rwc io.ReadWriteCloser) *jsonrpc2.Conn {
	c := jsonrpc2.NewConn(context.Background(), jsonrpc2.NewBufferedStream(rwc, jsonrpc2.VSCodeObjectCodec{}), jsonrpc2.AsyncHandler(nopHandler{}))
	t.Cleanup(func() { c.Close() })
	return c
}

type nopHandler struct{}

func (nopHandler) Handle(context.Context, *jsonrpc2.Conn, *jsonrpc2.Request) {}

// rpcError is error.data as hostd sends it.
type rpcError struct {
	Code  int64
	Name  string
	Field string
	Msg   string
}

// call makes one call; a JSON-RPC error comes back as *rpcError.
func call(t *testing.T, c *jsonrpc2.Conn, method string, params, result any) *rpcError {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err := c.Call(ctx, method, params, result)
	if err == nil {
		return nil
	}
	var je *jsonrpc2.Error
	if !errors.As(err, &je) {
		t.Fatalf("%s: %v", method, err)
	}
	out := &rpcError{Code: je.Code, Msg: je.Message}
	if je.Data != nil {
		var data struct{ Code, Field string }
		json.Unmarshal(*je.Data, &data)
		out.Name, out.Field = data.Code, data.Field
	}
	return out
}

func mustCall(t *testing.T, c *jsonrpc2.Conn, method string, params, result any) {
	t.Helper()
	if e := call(t, c, method, params, result); e != nil {
		t.Fatalf("%s: %+v", method, e)
	}
}

func wantCode(t *testing.T, e *rpcError, code int64, name string) {
	t.Helper()
	if e == nil || e.Code != code || e.Name != name {
		t.Fatalf("want %d %s, got %+v", code, name, e)
	}
}

// raw is a connection that writes frames by hand.
type raw struct {
	t  *testing.T
	nc net.Conn
	r  *bufio.Reader
}

func (d *daemon) raw() *raw {
	d.t.Helper()
	nc, err := net.Dial("unix", d.socket)
	if err != nil {
		d.t.Fatal(err)
	}
	d.t.Cleanup(func() { nc.Close() })
	return &raw{t: d.t, nc: nc, r: bufio.NewReader(nc)}
}

func (r *raw) send(body string) {
	io.WriteString(r.nc, string(wire.AppendHeader(nil, len(body)))+body)
}

// recv reads one response frame as a generic object.
func (r *raw) recv() map[string]any {
	r.t.Helper()
	r.nc.SetReadDeadline(time.Now().Add(20 * time.Second))
	body, err := readFrame(r.r)
	if err != nil {
		r.t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		r.t.Fatalf("%q: %v", body, err)
	}
	return m
}

// shortDir is a private temporary directory whose path is short enough
// for a Unix socket name.
func shortDir(t *testing.T) string {
	t.Helper()
	return testenv.ShortDir(t)
}

// readFrame reads one frame with the protocol's one frame reader.
func readFrame(r *bufio.Reader) ([]byte, error) {
	return wire.NewReader(r, config.DefaultLimits().MaxFrameBytes).ReadFrame()
}

// errorOf returns a raw response's error code and data.code.
func errorOf(m map[string]any) (float64, string) {
	e, _ := m["error"].(map[string]any)
	if e == nil {
		return 0, ""
	}
	data, _ := e["data"].(map[string]any)
	name, _ := data["code"].(string)
	code, _ := e["code"].(float64)
	return code, name
}

// closedByPeer reports whether the daemon closed the connection.
func (r *raw) closedByPeer() bool {
	r.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, err := r.r.ReadByte()
	return errors.Is(err, io.EOF) || (err != nil && strings.Contains(err.Error(), "reset"))
}

func bufioReader(s string) *bufio.Reader { return bufio.NewReader(strings.NewReader(s)) }
