// Package client is the one Go client of hostd's JSON-RPC protocol: hostctl,
// the MCP face (hostd mcp), the benchmarks and the tests all call the daemon
// through a Conn. It owns the client side of a connection: the frame cap on
// what the daemon sends (package wire's one frame reader, so a broken or
// hostile peer cannot make a client buffer gigabytes), request ids,
// $/cancelRequest when a call's context ends, notifications, and errors a
// person can act on (a JSON-RPC error by its wire name, a hang-up, a bad
// frame), and a typed call for every method of the daemon's method table
// (Client; calls.go is generated from the table). Where to connect and whom
// to trust is package endpoint's; what the params and results are is
// package wire's. It must not import the server or any domain package.
package client

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/hostd-dev/hostd/rpc/wire"
)

// Errors a call can end with besides *Error and the context's.
var (
	// ErrClosed: the daemon hung up before answering.
	ErrClosed = errors.New("the daemon closed the connection")
	// ErrFrameTooLarge: the daemon announced a frame over the cap.
	ErrFrameTooLarge = errors.New("response frame too large")
	// ErrBadFrame: what the daemon sent is not LSP base-protocol framing,
	// or a body is not JSON.
	ErrBadFrame = errors.New("malformed response frame")
)

// Options configure a Conn.
type Options struct {
	// MaxFrameBytes caps one frame the daemon sends; zero is the
	// daemon's default limits.maxFrameBytes (wire.DefaultMaxFrameBytes).
	MaxFrameBytes int64
	// Peer names the far end in errors: a socket path, "stdio".
	Peer string
}

// Caller sends one request and decodes its result: a Conn, or what wraps
// one (hostctl's words for a timeout, a test's fake daemon).
type Caller interface {
	Call(ctx context.Context, method string, params, result any) error
}

// Client is the typed calls over a Caller: one method per method of the
// daemon's table, with its params and result as package wire declares
// them (calls.go, generated from the table by
// go test ./rpc -run TestGoClientIsCurrent -update).
type Client struct {
	Caller
}

// Typed is the typed calls over c.
func Typed(c Caller) *Client { return &Client{Caller: c} }

// CallerFunc is a function that sends one request, as a Caller.
type CallerFunc func(ctx context.Context, method string, params, result any) error

// Call calls f.
func (f CallerFunc) Call(ctx context.Context, method string, params, result any) error {
	return f(ctx, method, params, result)
}

// Conn is one connection to a daemon. It is safe for concurrent calls.
type Conn struct {
	conn  *jsonrpc2.Conn
	codec *codec
	peer  string
	ids   atomic.Uint64
	// notify receives the daemon's notifications (method, params); nil
	// drops them.
	notify atomic.Pointer[func(string, json.RawMessage)]
}

// New speaks the protocol on rwc until Close or until the daemon hangs up.
// Requests the daemon sends are refused: a client serves no methods.
func New(rwc io.ReadWriteCloser, opts Options) *Conn {
	if opts.MaxFrameBytes <= 0 {
		opts.MaxFrameBytes = wire.DefaultMaxFrameBytes
	}
	c := &Conn{codec: &codec{max: opts.MaxFrameBytes}, peer: opts.Peer}
	c.conn = jsonrpc2.NewConn(context.Background(),
		jsonrpc2.NewBufferedStream(rwc, c.codec),
		jsonrpc2.HandlerWithError(c.handle),
		// The library logs protocol errors to stderr by default; a call
		// reports them itself, once, through the codec's recorded error.
		jsonrpc2.SetLogger(log.New(io.Discard, "", 0)))
	return c
}

// OnNotify hands every notification the daemon sends to f, on the
// connection's reading goroutine, in order; f must not block for long.
func (c *Conn) OnNotify(f func(method string, params json.RawMessage)) {
	c.notify.Store(&f)
}

func (c *Conn) handle(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
	if req.Notif {
		if f := c.notify.Load(); f != nil {
			var params json.RawMessage
			if req.Params != nil {
				params = *req.Params
			}
			(*f)(req.Method, params)
		}
		return nil, nil
	}
	return nil, &jsonrpc2.Error{Code: wire.CodeMethodNotFound.Num, Message: "a hostd client serves no methods"}
}

// Call sends one request and decodes its result into result (which may be
// a *json.RawMessage, or nil to drop it). When ctx ends first, the daemon
// is told with $/cancelRequest so it stops the work instead of finishing
// it for nobody, and the error is ctx's. A JSON-RPC error is an *Error.
func (c *Conn) Call(ctx context.Context, method string, params, result any) error {
	id := jsonrpc2.ID{Num: c.ids.Add(1)}
	w, err := c.conn.DispatchCall(ctx, method, params, jsonrpc2.PickID(id))
	if err != nil {
		return c.explain(ctx, err)
	}
	err = w.Wait(ctx, result)
	if err != nil && ctx.Err() != nil {
		// Best effort: the connection may already be gone.
		_ = c.conn.Notify(context.Background(), wire.CancelMethod, map[string]any{"id": id})
	}
	return c.explain(ctx, err)
}

// Notify sends a notification.
func (c *Conn) Notify(ctx context.Context, method string, params any) error {
	return c.explain(ctx, c.conn.Notify(ctx, method, params))
}

// Done is closed once the connection has ended.
func (c *Conn) Done() <-chan struct{} { return c.conn.DisconnectNotify() }

// Close ends the connection.
func (c *Conn) Close() error { return c.conn.Close() }

// explain turns library errors into ones a person can act on.
func (c *Conn) explain(ctx context.Context, err error) error {
	var rpcErr *jsonrpc2.Error
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.As(err, &rpcErr):
		return newError(rpcErr)
	case errors.Is(err, jsonrpc2.ErrClosed) || HungUp(err):
		if cause := c.codec.failure(); cause != nil {
			return cause
		}
		return fmt.Errorf("%w on %s before answering (a daemon refuses peers running as another user, and closes on shutdown)", ErrClosed, c.peer)
	}
	return err
}

// HungUp reports whether err is the peer going away, however the system
// happened to phrase it: a clean EOF, or a reset or broken pipe when it
// closed with a request still unread.
func HungUp(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || errors.Is(err, io.ErrClosedPipe)
}

// codec is the LSP base-protocol codec over package wire's frame reader,
// with the frame cap; jsonrpc2's own trusts the header it reads.
type codec struct {
	max int64

	mu  sync.Mutex
	err error // guarded by mu; the first read failure, reported by explain
}

func (c *codec) WriteObject(w io.Writer, obj any) error {
	body, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	return wire.WriteFrame(w, body)
}

func (c *codec) ReadObject(r *bufio.Reader, v any) error {
	body, err := wire.NewReader(r, c.max).ReadFrame()
	var tooLarge *wire.TooLargeError
	switch {
	case errors.As(err, &tooLarge):
		err = fmt.Errorf("%w: the daemon announced %d bytes, more than the %d this client accepts", ErrFrameTooLarge, tooLarge.Length, tooLarge.Max)
	case errors.Is(err, wire.ErrFrame):
		problem, _ := strings.CutPrefix(err.Error(), wire.ErrFrame.Error()+": ")
		err = fmt.Errorf("%w: %s", ErrBadFrame, problem)
	case errors.Is(err, io.ErrUnexpectedEOF):
		err = fmt.Errorf("%w: the connection ended inside a frame", ErrBadFrame)
	case err == nil:
		if jerr := json.Unmarshal(body, v); jerr != nil {
			err = fmt.Errorf("%w: body is not JSON: %v", ErrBadFrame, jerr)
		}
	}
	if err != nil && !HungUp(err) {
		c.mu.Lock()
		if c.err == nil {
			c.err = err
		}
		c.mu.Unlock()
	}
	return err
}

func (c *codec) failure() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}
