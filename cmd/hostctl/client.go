package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/sourcegraph/jsonrpc2"
)

// Sentinel errors; run maps them to exit codes in one place.
var (
	// errNoDaemon: nothing listens on the socket (no file, or a stale one).
	errNoDaemon = errors.New("no hostd is listening")
	// errFrameTooLarge: the daemon announced a response larger than hostctl
	// will hold in memory.
	errFrameTooLarge = errors.New("response frame too large")
	// errBadFrame: the response framing is not LSP base protocol.
	errBadFrame = errors.New("malformed response frame")
	// errClosed: the daemon hung up before answering.
	errClosed = errors.New("the daemon closed the connection")
)

// client is one connection to a daemon.
type client struct {
	socket string
	conn   *jsonrpc2.Conn
	codec  *cappedCodec
	nextID atomic.Uint64
	// notify receives the daemon's notifications (method, params); nil
	// drops them. Set it (onNotify) before the first call.
	notify atomic.Pointer[func(string, json.RawMessage)]
}

// onNotify hands every notification the daemon sends to f, on the
// connection's reading goroutine; f must not block for long.
func (c *client) onNotify(f func(method string, params json.RawMessage)) {
	c.notify.Store(&f)
}

// dial connects to the daemon on socket once trust accepts the socket, its
// directory and the process listening on it; nothing is sent before. A
// missing socket file and a stale one (no listener behind it) are both
// errNoDaemon, so the caller can tell the user how to start a daemon
// rather than print a bare syscall error.
func dial(ctx context.Context, socket string, maxFrame int64, trust socketTrust) (*client, error) {
	if err := trust.checkSocket(socket); err != nil {
		return nil, err
	}
	var d net.Dialer
	nc, err := d.DialContext(ctx, "unix", socket)
	if err != nil {
		if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED) {
			return nil, fmt.Errorf("%w on %s", errNoDaemon, socket)
		}
		if errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EPERM) {
			return nil, fmt.Errorf("cannot connect to %s: permission denied (the daemon's socket is 0600: run hostctl as the user that started hostd)", socket)
		}
		return nil, fmt.Errorf("cannot connect to %s: %w", socket, err)
	}
	if err := trust.checkPeer(nc.(*net.UnixConn), socket); err != nil {
		nc.Close()
		return nil, err
	}
	codec := &cappedCodec{max: maxFrame}
	c := &client{socket: socket, codec: codec}
	c.conn = jsonrpc2.NewConn(context.Background(),
		jsonrpc2.NewBufferedStream(nc, codec),
		jsonrpc2.HandlerWithError(c.handle),
		// The library logs protocol errors to stderr by default; hostctl
		// reports them itself, once, through the codec's recorded error.
		jsonrpc2.SetLogger(log.New(io.Discard, "", 0)))
	return c, nil
}

// handle passes notifications to the onNotify function and answers any
// request the daemon might send: hostctl serves no methods.
func (c *client) handle(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
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
	return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "hostctl serves no methods"}
}

func (c *client) Close() error { return c.conn.Close() }

// call sends one request and decodes its result into result (which may be
// a *json.RawMessage). When ctx ends first, the daemon is told with
// $/cancelRequest so it stops the work instead of finishing it for nobody.
func (c *client) call(ctx context.Context, method string, params, result any) error {
	id := jsonrpc2.ID{Num: c.nextID.Add(1)}
	w, err := c.conn.DispatchCall(ctx, method, params, jsonrpc2.PickID(id))
	if err != nil {
		return c.explain(err)
	}
	err = w.Wait(ctx, result)
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		// Best effort: the connection may already be gone.
		_ = c.conn.Notify(context.Background(), "$/cancelRequest", map[string]any{"id": id})
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("%s: no answer before the timeout; the request was cancelled (raise --timeout for long calls)", method)
		}
		return fmt.Errorf("%s: interrupted; the request was cancelled", method)
	}
	return c.explain(err)
}

// explain turns library errors into ones a person can act on.
func (c *client) explain(err error) error {
	var rpcErr *jsonrpc2.Error
	if errors.As(err, &rpcErr) {
		return newRPCError(rpcErr)
	}
	if errors.Is(err, jsonrpc2.ErrClosed) || hungUp(err) {
		if cause := c.codec.failure(); cause != nil {
			return cause
		}
		return fmt.Errorf("%w on %s before answering (a daemon refuses peers running as another user, and closes on shutdown)", errClosed, c.socket)
	}
	return err
}

// cappedCodec is the LSP base-protocol codec (Content-Length framing) with
// a bound on the frame size. jsonrpc2.VSCodeObjectCodec trusts the header,
// so a broken or hostile peer could make hostctl buffer gigabytes; this
// codec refuses such a frame before reading its body. Writing is
// VSCodeObjectCodec's own.
type cappedCodec struct {
	max int64

	mu  sync.Mutex
	err error // guarded by mu; the first read failure, reported by explain
}

// maxHeaderLine bounds one header line; LSP headers are a few dozen bytes.
const maxHeaderLine = 1024

func (c *cappedCodec) WriteObject(w io.Writer, obj any) error {
	return jsonrpc2.VSCodeObjectCodec{}.WriteObject(w, obj)
}

func (c *cappedCodec) ReadObject(r *bufio.Reader, v any) error {
	n, err := readHeader(r, c.max)
	if err != nil {
		c.fail(err)
		return err
	}
	if err := json.NewDecoder(io.LimitReader(r, n)).Decode(v); err != nil {
		err = fmt.Errorf("%w: body is not JSON: %v", errBadFrame, err)
		c.fail(err)
		return err
	}
	return nil
}

func (c *cappedCodec) fail(err error) {
	if hungUp(err) {
		return // an ordinary hang-up, not a framing problem
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.err = err
	}
}

func (c *cappedCodec) failure() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// readHeader reads an LSP header block and returns its Content-Length,
// which must be in 1..max.
func readHeader(r *bufio.Reader, max int64) (int64, error) {
	length := int64(-1)
	for {
		line, err := readLine(r)
		if err != nil {
			return 0, err
		}
		if line == "" {
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return 0, fmt.Errorf("%w: header line %q has no colon", errBadFrame, line)
		}
		if !strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			continue // Content-Type and future headers carry nothing we need
		}
		n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
		if err != nil || n <= 0 {
			return 0, fmt.Errorf("%w: Content-Length %q", errBadFrame, strings.TrimSpace(value))
		}
		if n > max {
			return 0, fmt.Errorf("%w: the daemon announced %d bytes, more than the %d hostctl accepts", errFrameTooLarge, n, max)
		}
		length = n
	}
	if length < 0 {
		return 0, fmt.Errorf("%w: no Content-Length header", errBadFrame)
	}
	return length, nil
}

// readLine reads one CRLF-terminated header line of at most maxHeaderLine
// bytes, without the CRLF.
func readLine(r *bufio.Reader) (string, error) {
	var b strings.Builder
	for {
		c, err := r.ReadByte()
		if err != nil {
			if b.Len() > 0 && errors.Is(err, io.EOF) {
				err = fmt.Errorf("%w: connection ended inside a header", errBadFrame)
			}
			return "", err
		}
		if c == '\n' {
			s := b.String()
			if !strings.HasSuffix(s, "\r") {
				return "", fmt.Errorf(`%w: header lines must end with \r\n`, errBadFrame)
			}
			return strings.TrimSuffix(s, "\r"), nil
		}
		if b.Len() >= maxHeaderLine {
			return "", fmt.Errorf("%w: header line longer than %d bytes", errBadFrame, maxHeaderLine)
		}
		b.WriteByte(c)
	}
}

// hungUp reports whether err is the peer going away, however the kernel
// happened to phrase it: a clean EOF, or a reset when it closed with our
// request still unread.
func hungUp(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// rpcError is a JSON-RPC error the daemon answered with, named as wire-contract §2
// names it.
type rpcError struct {
	Code    int64
	Name    string
	Message string
	Data    json.RawMessage // error.data as sent, for --json and details
}

func (e *rpcError) Error() string {
	return fmt.Sprintf("%s (%d): %s", e.Name, e.Code, e.Message)
}

// codeNames are the wire names of every code in wire-contract §2. error.data.code
// carries the name for application codes; this table names the protocol
// codes, which jsonrpc2 libraries send without data, and stands in for an
// application error whose data is missing.
var codeNames = map[int64]string{
	-32700: "PARSE_ERROR",
	-32600: "INVALID_REQUEST",
	-32601: "METHOD_NOT_FOUND",
	-32602: "INVALID_PARAMS",
	-32603: "INTERNAL_ERROR",
	-32000: "SHUTTING_DOWN",
	-32800: "REQUEST_CANCELLED",
	-32001: "SESSION_NOT_FOUND",
	-32002: "WORKSPACE_INVALID",
	-32003: "ROLLBACK_CONFLICT",
	-32004: "REVIEW_NOT_FOUND",
	-32005: "UNKNOWN_TOOL",
	-32006: "SESSION_LIMIT",
}

func newRPCError(e *jsonrpc2.Error) *rpcError {
	out := &rpcError{Code: e.Code, Message: e.Message}
	if e.Data != nil {
		out.Data = *e.Data
		var d struct {
			Code string `json:"code"`
		}
		if json.Unmarshal(*e.Data, &d) == nil && d.Code != "" {
			out.Name = d.Code
		}
	}
	if out.Name == "" {
		out.Name = codeNames[e.Code]
	}
	if out.Name == "" {
		out.Name = "ERROR"
	}
	return out
}

// isMethodNotFound reports whether err is the daemon saying it does not
// serve the method at all (an older daemon, or one built without it).
func isMethodNotFound(err error) bool {
	var e *rpcError
	return errors.As(err, &e) && e.Code == jsonrpc2.CodeMethodNotFound
}

// defaultTimeout bounds one hostctl command; every call honours it.
const defaultTimeout = 30 * time.Second
