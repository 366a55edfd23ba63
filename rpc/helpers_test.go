package rpc

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/internal/testenv"
	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/session"
	"github.com/hostd-dev/hostd/tools"
)

// blockTool runs until its context is cancelled or release is closed,
// reporting both on channels, so tests can hold a call in flight.
type blockTool struct {
	started   chan string // the call's toolCallId, once running
	cancelled chan string // the call's toolCallId, when its ctx ended it
	release   chan struct{}
}

func newBlockTool() *blockTool {
	return &blockTool{started: make(chan string, 16), cancelled: make(chan string, 16), release: make(chan struct{})}
}

func (b *blockTool) Name() string { return "block" }

func (b *blockTool) Run(ctx context.Context, c *tools.Call) tools.Outcome {
	b.started <- c.ToolCallID
	select {
	case <-ctx.Done():
		b.cancelled <- c.ToolCallID
		return tools.Failed(tools.Errorf(wire.ToolFailed, "cancelled; call again"))
	case <-b.release:
		return &wire.ToolResult{Content: "released"}
	}
}

// harness is a server on a Unix socket in a short temporary directory.
type harness struct {
	t     *testing.T
	srv   *Server
	sock  string
	lim   config.Limits
	sess  *session.Manager
	block *blockTool
	done  chan error
}

type harnessOpt func(*Options)

func newHarness(t *testing.T, opts ...harnessOpt) *harness {
	t.Helper()
	h := &harness{t: t, lim: config.DefaultLimits(), block: newBlockTool()}
	o := Options{Limits: h.lim, Log: zaptest.NewLogger(t, zaptest.Level(zap.WarnLevel)), Version: "test"}
	for _, f := range opts {
		f(&o)
	}
	h.lim = o.Limits
	h.sess = session.NewManager(h.lim)
	o.Sessions = h.sess
	o.Executor = tools.NewExecutor(tools.Options{Sessions: h.sess, Limits: h.lim, Tools: append(tools.Builtin(), h.block)})
	h.srv = NewServer(o)
	h.sock = filepath.Join(shortTempDir(t), "s.sock")
	l, err := net.Listen("unix", h.sock)
	if err != nil {
		t.Fatal(err)
	}
	h.done = make(chan error, 1)
	go func() { h.done <- h.srv.Serve(l) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		h.srv.Shutdown(ctx)
		if err := <-h.done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return h
}

// shortTempDir is a temporary directory with a path short enough for a
// Unix socket name (108 bytes), which t.TempDir may not be.
func shortTempDir(t *testing.T) string { return testenv.ShortDir(t) }

// client opens a jsonrpc2 client connection, the way a Go client would.
func (h *harness) client() *jsonrpc2.Conn {
	h.t.Helper()
	nc, err := net.Dial("unix", h.sock)
	if err != nil {
		h.t.Fatal(err)
	}
	c := jsonrpc2.NewConn(context.Background(), jsonrpc2.NewBufferedStream(nc, jsonrpc2.VSCodeObjectCodec{}), noHandler{})
	h.t.Cleanup(func() { c.Close() })
	return c
}

type noHandler struct{}

func (noHandler) Handle(context.Context, *jsonrpc2.Conn, *jsonrpc2.Request) {}

// call makes one call with a deadline and returns its error as a
// *jsonrpc2.Error, or nil.
func call(t *testing.T, c *jsonrpc2.Conn, method string, params, result any) *jsonrpc2.Error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := c.Call(ctx, method, params, result)
	if err == nil {
		return nil
	}
	var e *jsonrpc2.Error
	if !errors.As(err, &e) {
		t.Fatalf("%s: not a JSON-RPC error: %v", method, err)
	}
	return e
}

func mustCall(t *testing.T, c *jsonrpc2.Conn, method string, params, result any) {
	t.Helper()
	if e := call(t, c, method, params, result); e != nil {
		t.Fatalf("%s: %d %s", method, e.Code, e.Message)
	}
}

// dataCode is error.data.code.
func dataCode(t *testing.T, e *jsonrpc2.Error) wire.ErrorData {
	t.Helper()
	var d wire.ErrorData
	if e.Data == nil || json.Unmarshal(*e.Data, &d) != nil {
		t.Fatalf("error %d %q has no data.code", e.Code, e.Message)
	}
	return d
}

// wantError checks an error's code, data.code and that its message
// contains each of parts.
func wantError(t *testing.T, e *jsonrpc2.Error, code wire.Code, parts ...string) {
	t.Helper()
	if e == nil {
		t.Fatalf("want error %d %s, got success", code.Num, code.Name)
	}
	if e.Code != code.Num || dataCode(t, e).Code != code.Name {
		t.Fatalf("want %d %s, got %d %s: %s", code.Num, code.Name, e.Code, dataCode(t, e).Code, e.Message)
	}
	for _, p := range parts {
		if !strings.Contains(e.Message, p) {
			t.Errorf("message %q does not contain %q", e.Message, p)
		}
	}
}

// rawConn speaks the framing by hand, to send what a library would not.
type rawConn struct {
	t  *testing.T
	nc net.Conn
	r  *bufio.Reader
	// wait bounds each recv; 10 s when zero.
	wait time.Duration
}

func (h *harness) raw() *rawConn {
	h.t.Helper()
	nc, err := net.Dial("unix", h.sock)
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { nc.Close() })
	return &rawConn{t: h.t, nc: nc, r: bufio.NewReader(nc)}
}

// send writes one frame in one plain write: the race detector orders a
// socket's write before the reads that see it (it does not for writev),
// which is what tells it that a method a test added before sending was in
// place when the server read the request.
func (c *rawConn) send(body string) {
	c.t.Helper()
	c.write(string(wire.AppendHeader(nil, len(body))) + body)
}

func (c *rawConn) write(s string) {
	c.t.Helper()
	if _, err := io.WriteString(c.nc, s); err != nil {
		c.t.Fatal(err)
	}
}

// rawResponse is a response as it came off the wire.
type rawResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int64          `json:"code"`
		Message string         `json:"message"`
		Data    wire.ErrorData `json:"data"`
	} `json:"error"`
}

// recv reads one framed response, failing after a deadline.
func (c *rawConn) recv() rawResponse {
	c.t.Helper()
	wait := c.wait
	if wait == 0 {
		wait = 10 * time.Second
	}
	c.nc.SetReadDeadline(time.Now().Add(wait))
	body, err := wire.NewReader(c.r, wire.MaxHeaderBytes<<20).ReadFrame()
	if err != nil {
		c.t.Fatalf("reading a frame: %v", err)
	}
	var r rawResponse
	if err := json.Unmarshal(body, &r); err != nil {
		c.t.Fatalf("response %q: %v", body, err)
	}
	if r.JSONRPC != "2.0" {
		c.t.Errorf("response %s lacks jsonrpc 2.0", body)
	}
	return r
}

// closed reports whether the server closed the connection (EOF) within a
// deadline, without sending anything first.
func (c *rawConn) closed() bool {
	c.t.Helper()
	// The bound is a hang guard, not a verdict on speed.
	c.nc.SetReadDeadline(time.Now().Add(30 * time.Second))
	b, err := c.r.ReadByte()
	if err == nil {
		c.t.Fatalf("server sent %q instead of closing", b)
	}
	return errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) || strings.Contains(err.Error(), "reset")
}
