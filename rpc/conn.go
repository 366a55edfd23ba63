package rpc

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/sourcegraph/jsonrpc2"
	"go.uber.org/zap"
)

// cancelMethod is the notification that cancels a request in flight on
// the same connection (the LSP convention vscode-jsonrpc follows).
const cancelMethod = "$/cancelRequest"

// maxInFlightPerConn bounds the calls one connection may have running at
// once. Past it, the connection's reader waits for a call to finish before
// reading the next frame: memory stays bounded, other connections are not
// affected.
const maxInFlightPerConn = 64

// conn is one client connection.
//
// Concurrency: Handle runs on jsonrpc2's read goroutine, one call at a
// time per connection; each admitted request then runs on its own
// goroutine. mu guards inflight only.
type conn struct {
	srv    *Server
	log    *zap.Logger
	jc     *jsonrpc2.Conn
	stream *frameStream  // what jc writes to; results are written here directly
	slots  chan struct{} // a token per running call

	mu       sync.Mutex
	inflight map[jsonrpc2.ID]context.CancelFunc // guarded by mu; running requests by id
}

func newConn(s *Server, n uint64, rwc io.ReadWriteCloser) *conn {
	c := &conn{
		srv:      s,
		log:      s.log.With(zap.Uint64(LogConn, n)),
		slots:    make(chan struct{}, maxInFlightPerConn),
		inflight: make(map[jsonrpc2.ID]context.CancelFunc),
	}
	stream := newFrameStream(rwc, s.opts.Limits.MaxFrameBytes, c.log)
	c.stream = stream
	c.jc = jsonrpc2.NewConn(context.Background(), stream, c, jsonrpc2.SetLogger(jsonrpc2Logger{c.log}))
	return c
}

// Handle implements jsonrpc2.Handler. It is called on the connection's
// read goroutine. A quick method (one that never waits: no I/O, no lock a
// tool holds) is answered right here, as a bare jsonrpc2 server would;
// any other request is registered and started on its own goroutine, so a
// $/cancelRequest is seen while it runs.
func (c *conn) Handle(ctx context.Context, jc *jsonrpc2.Conn, req *jsonrpc2.Request) {
	if req.Method == cancelMethod {
		c.cancelRequest(req)
		if !req.Notif {
			c.reply(jc, req, Empty{}, nil)
		}
		return
	}
	if req.Notif && strings.HasPrefix(req.Method, "$/") {
		return // protocol-level notifications hostd has no use for
	}
	m := c.srv.methods[req.Method]
	quick := m == nil || m.quick
	if !quick {
		c.slots <- struct{}{}
	}
	release := func() {
		if !quick {
			<-c.slots
		}
	}
	if !c.srv.admit() {
		release()
		c.reply(jc, req, nil, errShuttingDown)
		return
	}
	if quick {
		if c.isInFlight(req) {
			c.reply(jc, req, nil, errDuplicateID(req))
		} else {
			result, err := c.run(ctx, m, req)
			c.reply(jc, req, result, err)
			defer c.after(m, err)
		}
		c.srv.done()
		return
	}

	rctx, cancel := context.WithCancel(ctx)
	stopLink := context.AfterFunc(c.srv.callsCtx, cancel)
	if !req.Notif {
		c.mu.Lock()
		_, dup := c.inflight[req.ID]
		if !dup {
			c.inflight[req.ID] = cancel
		}
		c.mu.Unlock()
		if dup {
			stopLink()
			cancel()
			release()
			c.reply(jc, req, nil, errDuplicateID(req))
			c.srv.done()
			return
		}
	}
	go func() {
		result, err := c.run(rctx, m, req)
		stopLink()
		cancel()
		if !req.Notif {
			c.mu.Lock()
			delete(c.inflight, req.ID)
			c.mu.Unlock()
			c.reply(jc, req, result, err)
		}
		release()
		c.srv.done()
		c.after(m, err)
	}()
}

// after runs a method's post-answer step (host.shutdown's), once the
// call has been answered and counted out.
func (c *conn) after(m *Method, err error) {
	if err == nil && m != nil && m.after != nil {
		m.after()
	}
}

func (c *conn) isInFlight(req *jsonrpc2.Request) bool {
	if req.Notif {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.inflight[req.ID]
	return ok
}

func errDuplicateID(req *jsonrpc2.Request) error {
	return newError(CodeInvalidRequest, "request id %s is already in flight on this connection; use a new id", req.ID)
}

// run calls m (nil: the method does not exist) and records the call's
// figures.
func (c *conn) run(ctx context.Context, m *Method, req *jsonrpc2.Request) (result any, err error) {
	start := time.Now()
	defer func() {
		if p := recover(); p != nil {
			c.log.Error("handler panicked", zap.String(LogMethod, req.Method), zap.Any(LogReason, p), zap.ByteString("stack", debug.Stack()))
			result, err = nil, newError(CodeInternal, "hostd failed handling %s; this is a bug, please report it", req.Method)
		}
		d := time.Since(start)
		c.srv.stats.observe(req.Method, d, err != nil)
		if ce := c.log.Check(zap.DebugLevel, "call"); ce != nil {
			ce.Write(zap.String(LogMethod, req.Method), zap.Stringer(LogRequestID, req.ID), zap.Int64(LogDurationUs, d.Microseconds()), zap.Bool("ok", err == nil))
		}
	}()
	if m == nil {
		return nil, newError(CodeMethodNotFound, "method %q does not exist; rpc.discover lists every method", req.Method)
	}
	var raw json.RawMessage
	if req.Params != nil {
		raw = *req.Params
	}
	result, err = m.call(ctx, raw)
	if err != nil && ctx.Err() != nil {
		if _, isWire := err.(*wireError); !isWire {
			err = newError(CodeRequestCancelled, "the request was cancelled (by $/cancelRequest, the client going away, or the daemon shutting down): %v", err)
		}
	}
	return result, err
}

// reply answers a request; a notification gets no answer. It takes the
// jsonrpc2 connection Handle was given: c.jc is set only once NewConn has
// returned, which may be after the first request arrived.
func (c *conn) reply(jc *jsonrpc2.Conn, req *jsonrpc2.Request, result any, err error) {
	if req.Notif {
		return
	}
	ctx := context.Background()
	if err == nil {
		data, merr := encodeResponse(req.ID, result)
		if merr == nil {
			if werr := c.stream.writeFrame(data); werr != nil {
				c.log.Debug("reply failed", zap.String(LogMethod, req.Method), zap.Error(werr))
			}
			return
		}
		// The result did not encode: a bug, answered as one.
		err = fmt.Errorf("encoding the result of %s: %w", req.Method, merr)
	}
	e, known := toWire(err)
	if !known {
		c.log.Error("unexpected error", zap.String(LogMethod, req.Method), zap.Error(err))
	}
	if err := jc.ReplyWithError(ctx, req.ID, e); err != nil && err != jsonrpc2.ErrClosed {
		c.log.Debug("reply failed", zap.String(LogMethod, req.Method), zap.Error(err))
	}
}

// encodeResponse encodes a JSON-RPC response with a result in one pass.
// jsonrpc2's own Reply encodes the result, then re-scans it at each of
// three nested json.Marshal layers; a tool result of a few kilobytes made
// that a visible share of every call.
func encodeResponse(id jsonrpc2.ID, result any) ([]byte, error) {
	idb, err := id.MarshalJSON()
	if err != nil {
		return nil, err
	}
	res, err := json.Marshal(result)
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, len(idb)+len(res)+32)
	b = append(b, `{"id":`...)
	b = append(b, idb...)
	b = append(b, `,"result":`...)
	b = append(b, res...)
	return append(b, `,"jsonrpc":"2.0"}`...), nil
}

// cancelRequest cancels the request named by params.id, if it is still
// running on this connection. Unknown ids are ignored: the request may
// have finished while the notification was on its way.
func (c *conn) cancelRequest(req *jsonrpc2.Request) {
	var p struct {
		ID jsonrpc2.ID `json:"id"`
	}
	if req.Params == nil || json.Unmarshal(*req.Params, &p) != nil {
		c.log.Debug("ignoring malformed $/cancelRequest")
		return
	}
	c.mu.Lock()
	cancel, ok := c.inflight[p.ID]
	c.mu.Unlock()
	if ok {
		cancel()
	}
}
