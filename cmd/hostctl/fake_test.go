package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/hostd-dev/hostd/internal/testenv"
)

// fakeDaemon is an in-process JSON-RPC server on a temporary Unix socket,
// speaking the same framing as hostd. It answers from a table of canned
// handlers and records every request it receives, so tests can check what
// hostctl sent as well as what it printed.
type fakeDaemon struct {
	socket string

	mu       sync.Mutex
	methods  map[string]fakeMethod // guarded by mu
	received []fakeRequest         // guarded by mu
	cancels  chan jsonrpc2.ID      // ids named by $/cancelRequest
}

type fakeMethod func(ctx context.Context, params json.RawMessage) (any, error)

type fakeRequest struct {
	Method string
	ID     jsonrpc2.ID
	Params json.RawMessage // nil when the request had no params member
}

// shortSocketDir returns a fresh directory with a short path: a Unix
// socket path must fit in 108 bytes, which t.TempDir() under a long test
// name can exceed.
func shortSocketDir(t *testing.T) string {
	t.Helper()
	return testenv.ShortDir(t)
}

func startFake(t *testing.T, methods map[string]fakeMethod) *fakeDaemon {
	t.Helper()
	d := &fakeDaemon{
		socket:  filepath.Join(shortSocketDir(t), "hostd.sock"),
		methods: methods,
		cancels: make(chan jsonrpc2.ID, 16),
	}
	ln, err := net.Listen("unix", d.socket)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			conn := jsonrpc2.NewConn(ctx, jsonrpc2.NewBufferedStream(nc, jsonrpc2.VSCodeObjectCodec{}),
				jsonrpc2.AsyncHandler(jsonrpc2.HandlerWithError(d.handle)),
				jsonrpc2.SetLogger(log.New(io.Discard, "", 0)))
			wg.Go(func() {
				select {
				case <-conn.DisconnectNotify():
				case <-ctx.Done():
					conn.Close()
				}
			})
		}
	})
	t.Cleanup(func() {
		cancel()
		ln.Close()
		wg.Wait()
	})
	return d
}

func (d *fakeDaemon) handle(ctx context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
	r := fakeRequest{Method: req.Method, ID: req.ID}
	if req.Params != nil {
		r.Params = append(json.RawMessage(nil), *req.Params...)
	}
	d.mu.Lock()
	d.received = append(d.received, r)
	m := d.methods[req.Method]
	d.mu.Unlock()

	if req.Method == "$/cancelRequest" {
		var p struct {
			ID jsonrpc2.ID `json:"id"`
		}
		if err := json.Unmarshal(r.Params, &p); err == nil {
			d.cancels <- p.ID
		}
		return nil, nil
	}
	if m == nil {
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "method not found: " + req.Method}
	}
	return m(ctx, r.Params)
}

// requests returns what the daemon received, excluding notifications.
func (d *fakeDaemon) requests() []fakeRequest {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []fakeRequest
	for _, r := range d.received {
		if !strings.HasPrefix(r.Method, "$/") {
			out = append(out, r)
		}
	}
	return out
}

// canned answers every call with the same JSON.
func canned(result string) fakeMethod {
	return func(context.Context, json.RawMessage) (any, error) {
		return json.RawMessage(result), nil
	}
}

// appError is an application error as wire-contract §2 shapes it: error.data.code
// carries the name.
func appError(code int64, name, message string, extra map[string]any) fakeMethod {
	return func(context.Context, json.RawMessage) (any, error) {
		data := map[string]any{"code": name}
		for k, v := range extra {
			data[k] = v
		}
		e := &jsonrpc2.Error{Code: code, Message: message}
		e.SetError(data)
		return nil, e
	}
}

// runCLI runs hostctl in-process with env as its whole environment.
func runCLI(t *testing.T, env map[string]string, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	getenv := func(k string) string { return env[k] }
	code = run(context.Background(), args, stdio{in: strings.NewReader(stdin), out: &out, err: &errb}, getenv)
	return code, out.String(), errb.String()
}

// rawServer accepts one connection on a fresh socket and hands it to serve,
// for tests of what hostctl does with a daemon that misbehaves below the
// JSON-RPC layer.
func rawServer(t *testing.T, serve func(net.Conn)) string {
	t.Helper()
	socket := filepath.Join(shortSocketDir(t), "hostd.sock")
	ln, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		nc, err := ln.Accept()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				t.Error(err)
			}
			return
		}
		defer nc.Close()
		serve(nc)
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
	})
	return socket
}
