package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/sourcegraph/jsonrpc2"
	"go.uber.org/zap"

	"github.com/hostd-dev/hostd/internal/budget"
	"github.com/hostd-dev/hostd/internal/quote"
	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/tools"
)

// cancelMethod is the notification that cancels a request in flight on
// the same connection (the LSP convention vscode-jsonrpc follows).
const cancelMethod = wire.CancelMethod

// maxInFlightPerConn bounds the calls one connection may have running at
// once. Past it, the connection's reader waits for a call to finish before
// reading the next frame: memory stays bounded, other connections are not
// affected.
const maxInFlightPerConn = 64

// smallFrameBytes is the largest frame read without taking from the
// memory budget: a connection reads one frame at a time and runs at most
// maxInFlightPerConn calls, so small frames are bounded per connection,
// and host.info or $/cancelRequest never queue behind large payloads.
const smallFrameBytes = 64 << 10

// refusedHeadBytes is how much of a frame refused for the budget is kept,
// to find the request id to answer with.
const refusedHeadBytes = 4 << 10

// conn is one client connection: its read loop (serve), its outbox and
// writer goroutine, and the calls it has running.
//
// Concurrency: serve reads and dispatches one frame at a time; each
// admitted request that may wait runs on its own goroutine. Every frame
// out goes through out. mu guards inflight only.
type conn struct {
	srv   *Server
	id    uint64
	log   *zap.Logger
	rwc   io.ReadWriteCloser
	in    *wire.Reader
	out   *outbox
	slots chan struct{} // a token per running call
	// ctx is the parent of the connection's request contexts; it ends
	// when the connection closes (the client hanging up cancels its calls).
	ctx       context.Context
	cancel    context.CancelFunc
	closeOnce sync.Once

	mu       sync.Mutex
	inflight map[jsonrpc2.ID]context.CancelFunc // guarded by mu; running requests by id
}

func newConn(s *Server, n uint64, rwc io.ReadWriteCloser) *conn {
	c := &conn{
		srv:      s,
		id:       n,
		log:      s.log.With(zap.Uint64(LogConn, n)),
		rwc:      rwc,
		in:       wire.NewReader(rwc, s.opts.Limits.MaxFrameBytes),
		slots:    make(chan struct{}, maxInFlightPerConn),
		inflight: make(map[jsonrpc2.ID]context.CancelFunc),
	}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	c.out = newOutbox(rwc, s.writeTimeout, c.writeFailed)
	return c
}

// serve reads and dispatches requests until the client hangs up, breaks
// the framing, or the server closes the connection. Calls still running
// are cancelled; what is already queued gets up to the write timeout to
// reach the client.
func (c *conn) serve() {
	go c.out.run()
	for {
		req, held, err := c.readRequest()
		if err != nil {
			var unframed *wire.UnframedError
			switch {
			case errors.As(err, &unframed):
				c.answerUnframed(unframed)
			case errors.Is(err, wire.ErrFrame):
				c.log.Warn("closing connection", zap.Error(err))
			case !errors.Is(err, io.EOF) && c.ctx.Err() == nil:
				c.log.Debug("read failed", zap.Error(err))
			}
			break
		}
		c.handle(req, held)
	}
	c.cancel()
	c.out.flush(time.Now().Add(c.srv.writeTimeout))
	c.close()
}

// close closes the connection: calls are cancelled, the outbox drops what
// it holds, the transport is closed. Safe to call more than once.
func (c *conn) close() {
	c.closeOnce.Do(func() {
		c.cancel()
		c.out.close()
		c.rwc.Close()
	})
}

// writeFailed closes the connection after a write failed or timed out.
func (c *conn) writeFailed(err error) {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		c.srv.slowClosed.Add(1)
		c.log.Warn("closing a connection that did not read its answers", zap.Duration("writeTimeout", c.srv.writeTimeout))
	} else {
		c.log.Debug("write failed", zap.Error(err))
	}
	c.close()
}

// readRequest reads frames until one holds a request, answering those
// that do not and ignoring responses. A frame over smallFrameBytes first
// takes its length from the daemon's budget; the returned release gives
// it back and must be called once the request has been answered.
func (c *conn) readRequest() (*jsonrpc2.Request, budget.Release, error) {
	b := c.srv.opts.Budget
	for {
		n, err := c.in.ReadHeader()
		if err != nil {
			return nil, nil, err
		}
		release := budget.Release(func() {})
		if n > smallFrameBytes && b != nil {
			if n > b.Limit() {
				return nil, nil, fmt.Errorf("%w: Content-Length %d exceeds the daemon's whole memory budget, limits.maxMemoryBytes (%d)", wire.ErrFrame, n, b.Limit())
			}
			release, err = b.Acquire(c.ctx, n, fmt.Sprintf("a request of %d bytes", n))
			if errors.Is(err, budget.ErrOverBudget) {
				if err := c.refuse(n, err); err != nil {
					return nil, nil, err
				}
				continue
			}
			if err != nil {
				return nil, nil, err
			}
		}
		body, err := c.in.ReadBody(n)
		if err != nil {
			release()
			return nil, nil, err
		}
		c.trace("in", body)
		req, reject := parseRequest(body)
		switch {
		case reject != nil:
			release()
			c.log.Debug("rejected message", zap.String(LogCode, reject.Error.Name), zap.String(LogReason, reject.Error.Message))
			if err := c.send(reject); err != nil {
				return nil, nil, err
			}
		case req == nil:
			release() // a response; hostd sends no requests
		default:
			return req, release, nil
		}
	}
}

// refuse skips a frame the budget had no room for and answers it with
// OVERLOADED. The request's id must be within the body's first
// refusedHeadBytes (clients put it before params); otherwise the
// connection is closed, since an answer without the id would leave the
// call hanging.
func (c *conn) refuse(n int64, why error) error {
	head, err := c.in.SkipBody(n, refusedHeadBytes)
	if err != nil {
		return err
	}
	id, ok := idPrefix(head)
	if !ok {
		return fmt.Errorf("%w: %v, and the request's id is not within its first %d bytes to answer it with", wire.ErrFrame, why, refusedHeadBytes)
	}
	c.log.Info("refused a request", zap.String(LogReason, why.Error()))
	return c.send(rejection(id, wire.CodeOverloaded, why.Error()))
}

// send queues a message hostd answers itself.
func (c *conn) send(msg any) error {
	body, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	c.trace("out", body)
	return c.out.reply(body)
}

// traceClip is how much of a frame the wire trace logs.
const traceClip = 2 << 10

// trace logs one frame of the wire trace (Options.Trace): its direction,
// its size and its first traceClip bytes.
func (c *conn) trace(dir string, body []byte) {
	if !c.srv.opts.Trace {
		return
	}
	shown := body
	if len(shown) > traceClip {
		shown = shown[:traceClip]
	}
	c.log.Info("rpc "+dir, zap.Int("bytes", len(body)), zap.ByteString("frame", shown), zap.Bool("clipped", len(shown) < len(body)))
}

// handle dispatches one request; held is the budget its frame holds,
// given back once it is answered. An inline method (one that never waits:
// no I/O, no lock a tool holds) is answered right here, on the read loop;
// any other runs on its own goroutine, so a $/cancelRequest is seen while
// it runs, and past maxInFlightPerConn of those the read loop waits. Every
// request that gets this far ends in one place, request.finish.
func (c *conn) handle(req *jsonrpc2.Request, held budget.Release) {
	if req.Method == cancelMethod {
		c.cancelRequest(req)
		c.reply(req, wire.Empty{}, nil)
		held()
		return
	}
	if req.Notif && strings.HasPrefix(req.Method, "$/") {
		held()
		return // protocol-level notifications hostd has no use for
	}
	m := c.srv.methods[req.Method]
	r := &request{conn: c, req: req, m: m, held: held, inline: m == nil || m.runsInline}
	if !r.inline {
		c.slots <- struct{}{}
	}
	switch err := r.start(); {
	case err != nil:
		r.finish(nil, err)
	case r.inline:
		r.finish(c.run(r.ctx, m, req))
	default:
		go func() { r.finish(c.run(r.ctx, m, req)) }()
	}
}

// request is one request from its admission to its answer: what handle
// took for it, which finish gives back.
type request struct {
	conn   *conn
	req    *jsonrpc2.Request
	m      *Method // nil: no such method
	inline bool
	held   budget.Release // the frame's budget
	// ctx is the call's context: the connection's for an inline call,
	// else its own, which $/cancelRequest, the client hanging up and the
	// end of the shutdown grace cancel.
	ctx      context.Context
	cancel   context.CancelFunc
	stopLink func() bool // unlinks cancel from the shutdown grace
	admitted bool        // counted in flight by the server (srv.admit)
	tracked  bool        // its id is in conn.inflight
}

// start admits the request: the daemon must not be draining, and its id must
// not be in flight on this connection (JSON-RPC ids name one call).
func (r *request) start() error {
	c := r.conn
	if !c.srv.admit() {
		return errShuttingDown
	}
	r.admitted = true
	r.ctx, r.cancel = c.ctx, noCancel
	if !r.inline {
		r.ctx, r.cancel = context.WithCancel(c.ctx)
		r.stopLink = context.AfterFunc(c.srv.callsCtx, r.cancel)
	}
	if r.req.Notif {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, dup := c.inflight[r.req.ID]; dup {
		return errDuplicateID(r.req)
	}
	c.inflight[r.req.ID] = r.cancel
	r.tracked = true
	return nil
}

// finish answers the call and gives back everything start and handle
// took: its context, its id, its frame's budget, its slot, its place
// among the server's calls in flight; then runs the method's post-answer
// step (host.shutdown's), once the call is counted out.
func (r *request) finish(result any, err error) {
	c := r.conn
	if r.stopLink != nil {
		r.stopLink()
		r.cancel()
	}
	if r.tracked {
		c.mu.Lock()
		delete(c.inflight, r.req.ID)
		c.mu.Unlock()
	}
	c.reply(r.req, result, err)
	r.held()
	if !r.inline {
		<-c.slots
	}
	if r.admitted {
		c.srv.done()
	}
	if err == nil && r.m != nil && r.m.after != nil {
		r.m.after()
	}
}

// noCancel is an inline call's cancel: it runs on the read loop, so no
// $/cancelRequest can arrive while it runs.
func noCancel() {}

func errDuplicateID(req *jsonrpc2.Request) error {
	return newError(wire.CodeInvalidRequest, "request id %s is already in flight on this connection; use a new id", quote.Short(req.ID.String()))
}

// toolFailed reports whether result is a tool's failure: tools.execute
// answers it as a result (ok: false), not an error, but debug.stats counts
// it among the method's errors, where a person looks for failing calls.
func toolFailed(result any) bool {
	o, ok := result.(tools.Outcome)
	return ok && o != nil && o.Base().Error != nil
}

// run calls m (nil: the method does not exist) and records the call's
// figures.
func (c *conn) run(ctx context.Context, m *Method, req *jsonrpc2.Request) (result any, err error) {
	start := time.Now()
	defer func() {
		if p := recover(); p != nil {
			c.log.Error("handler panicked", zap.String(LogMethod, req.Method), zap.Any(LogReason, p), zap.ByteString("stack", debug.Stack()))
			result, err = nil, newError(wire.CodeInternal, "hostd failed handling %s; this is a bug, please report it", quote.Short(req.Method))
		}
		d := time.Since(start)
		c.srv.stats.observe(req.Method, d, err != nil || toolFailed(result))
		if ce := c.log.Check(zap.DebugLevel, "call"); ce != nil {
			ce.Write(zap.String(LogMethod, quote.Short(req.Method)), zap.Stringer(LogRequestID, req.ID), zap.Int64(LogDurationUs, d.Microseconds()), zap.Bool("ok", err == nil))
		}
	}()
	if m == nil {
		return nil, newError(wire.CodeMethodNotFound, "method %s does not exist; rpc.discover lists every method", quote.Short(req.Method))
	}
	var raw json.RawMessage
	if req.Params != nil {
		raw = *req.Params
	}
	result, err = m.call(ctx, raw)
	if err != nil && ctx.Err() != nil {
		if _, isWire := err.(*wireError); !isWire {
			err = newError(wire.CodeRequestCancelled, "the request was cancelled (by $/cancelRequest, the client going away, or the daemon shutting down): %v", err)
		}
	}
	return result, err
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
