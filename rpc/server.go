// Package rpc owns hostd's JSON-RPC 2.0 server: each connection's read
// loop over package wire's frame reader (which holds the frame cap) and
// its bounded outgoing queue (one writer goroutine with a write deadline,
// so a client that stops reading slows only itself), frames in flight held to the daemon's memory budget,
// the method table that both dispatches calls and generates the
// rpc.discover document, per-request cancellation ($/cancelRequest), the
// one mapping from domain errors to wire codes, call statistics, and
// graceful shutdown. Handlers are thin: decode params, find the session,
// call the domain, encode. No file logic lives here, and the package does
// not create sockets: the daemon's entry point hands it listeners and
// connections.
package rpc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/internal/budget"
	"github.com/hostd-dev/hostd/review"
	"github.com/hostd-dev/hostd/session"
	"github.com/hostd-dev/hostd/tools"
	"github.com/hostd-dev/hostd/tools/langserver"
	"github.com/hostd-dev/hostd/workspace"
)

// Options wire a Server to the daemon's domain objects.
type Options struct {
	Limits   config.Limits
	Sessions *session.Manager
	// Encodings give the files of every session's workspace their
	// encoding when no byte-order mark names one (the config file's
	// encodings); nil: UTF-8.
	Encodings *workspace.Encodings
	Executor  *tools.Executor
	// Review is the durable review store; nil serves no review.* methods.
	Review *review.Store
	Log    *zap.Logger
	// Version is the daemon's version as host.info reports it.
	Version string
	// Commit is the commit the daemon was built from (host.info).
	Commit string
	// Trace logs every frame in and out, clipped, at info level (the
	// wire trace of hostd --rpc-trace, for client developers).
	Trace bool
	// Grammars are the languages block ops can resolve (host.info).
	Grammars []string
	// OnShutdown is called once host.shutdown has been answered; the
	// daemon then shuts down as on SIGTERM. When nil, the server shuts
	// itself down (Shutdown with limits.ShutdownGrace).
	OnShutdown func()
	// Budget is the daemon-wide memory budget; frames over 64 KiB take
	// their length from it until their call is answered. Nil: unlimited.
	Budget *budget.Budget
	// LanguageServers are the language servers (host.languageServers);
	// nil: off.
	LanguageServers *langserver.Manager
	// WriteTimeout is how long a client may take to accept one frame
	// before its connection is closed (socket connections; stdio has no
	// deadline). Zero: 30 s.
	WriteTimeout time.Duration
}

// cancelWait bounds how long Shutdown waits for handlers to return after
// their contexts were cancelled at the end of the grace period.
const cancelWait = time.Second

// Server serves the method table over any number of connections.
// Sessions belong to the daemon (Options.Sessions), not to a connection.
//
// Concurrency: mu guards the fields below it. Connection state has its own
// lock (conn.mu); mu is never held while taking it.
type Server struct {
	opts    Options
	log     *zap.Logger
	started time.Time
	table   []*Method
	methods map[string]*Method
	stats   *callStats
	// writeTimeout is Options.WriteTimeout, defaulted.
	writeTimeout time.Duration

	// slowClosed counts connections closed because a frame was not
	// accepted within writeTimeout; droppedGone counts the notifications
	// dropped on connections since closed.
	slowClosed  atomic.Int64
	droppedGone atomic.Int64

	// callsCtx is the parent of every request context; cancelling it
	// cancels every call in flight (the end of the shutdown grace).
	callsCtx    context.Context
	cancelCalls context.CancelFunc

	mu        sync.Mutex
	draining  bool                      // guarded by mu; no new call or connection once set
	active    int                       // guarded by mu; calls admitted and not yet answered
	idle      chan struct{}             // guarded by mu; closed when draining and active == 0
	conns     map[*conn]struct{}        // guarded by mu
	listeners map[net.Listener]struct{} // guarded by mu
	nextConn  uint64                    // guarded by mu
}

// NewServer returns a server for opts.
func NewServer(opts Options) *Server {
	if opts.Log == nil {
		opts.Log = zap.NewNop()
	}
	if opts.Grammars == nil {
		opts.Grammars = []string{}
	}
	s := &Server{
		opts:      opts,
		log:       opts.Log,
		started:   time.Now(),
		idle:      make(chan struct{}),
		conns:     make(map[*conn]struct{}),
		listeners: make(map[net.Listener]struct{}),
	}
	s.writeTimeout = opts.WriteTimeout
	if s.writeTimeout <= 0 {
		s.writeTimeout = defaultWriteTimeout
	}
	s.callsCtx, s.cancelCalls = context.WithCancel(context.Background())
	s.table = s.methodTable()
	s.methods = make(map[string]*Method, len(s.table))
	names := make([]string, 0, len(s.table))
	for _, m := range s.table {
		s.methods[m.Name] = m
		names = append(names, m.Name)
	}
	s.stats = newCallStats(names)
	if opts.Review != nil {
		opts.Review.OnRecord(s.broadcastRecorded)
	}
	return s
}

// Methods returns the method table in the order rpc.discover lists it.
func (s *Server) Methods() []*Method { return append([]*Method(nil), s.table...) }

// Serve accepts connections on l until l fails or Shutdown is called, and
// serves each on its own goroutine. It returns nil after Shutdown.
func (s *Server) Serve(l net.Listener) error {
	s.mu.Lock()
	if s.draining {
		s.mu.Unlock()
		l.Close()
		return nil
	}
	s.listeners[l] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.listeners, l)
		s.mu.Unlock()
	}()

	backoff := 5 * time.Millisecond
	for {
		nc, err := l.Accept()
		if err != nil {
			if s.isDraining() || errors.Is(err, net.ErrClosed) {
				return nil
			}
			// Running out of descriptors passes; keep accepting.
			s.log.Warn("accept failed", zap.Error(err))
			time.Sleep(backoff)
			backoff = min(2*backoff, time.Second)
			continue
		}
		backoff = 5 * time.Millisecond
		go s.ServeConn(nc)
	}
}

// ServeConn serves one connection until the peer closes it, it breaks
// the framing, or the server shuts down. rwc is closed on return.
func (s *Server) ServeConn(rwc io.ReadWriteCloser) {
	s.mu.Lock()
	if s.draining {
		s.mu.Unlock()
		rwc.Close()
		return
	}
	s.nextConn++
	c := newConn(s, s.nextConn, rwc)
	s.conns[c] = struct{}{}
	s.mu.Unlock()

	c.log.Debug("connection opened")
	c.serve()
	c.log.Debug("connection closed")

	s.mu.Lock()
	delete(s.conns, c)
	s.droppedGone.Add(c.out.dropped.Load())
	s.mu.Unlock()
}

// Shutdown stops accepting connections and calls, waits for calls in
// flight to be answered until ctx is done, then cancels those left (they
// get REQUEST_CANCELLED), gives every connection until then (or at least
// cancelWait) to write the answers it has queued, and closes every
// connection. It reports an error when calls had to be cancelled.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.draining = true
	for l := range s.listeners {
		l.Close()
	}
	if s.active == 0 {
		s.closeIdleLocked()
	}
	s.mu.Unlock()

	var err error
	select {
	case <-s.idle:
	case <-ctx.Done():
		s.mu.Lock()
		n := s.active
		s.mu.Unlock()
		err = fmt.Errorf("%d calls were still running at the end of the shutdown grace and were cancelled", n)
		s.cancelCalls()
		select {
		case <-s.idle:
		case <-time.After(cancelWait):
		}
	}
	s.cancelCalls()

	s.mu.Lock()
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	deadline := time.Now().Add(cancelWait)
	if d, ok := ctx.Deadline(); ok && d.After(deadline) {
		deadline = d
	}
	for _, c := range conns {
		c.out.flush(deadline)
		c.close()
	}
	return err
}

func (s *Server) isDraining() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.draining
}

// admit counts a call in, unless the server is draining.
func (s *Server) admit() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.draining {
		return false
	}
	s.active++
	return true
}

// done counts an admitted call out once it has been answered.
func (s *Server) done() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.active--
	if s.draining && s.active == 0 {
		s.closeIdleLocked()
	}
}

func (s *Server) closeIdleLocked() {
	select {
	case <-s.idle:
	default:
		close(s.idle)
	}
}

// shutdownRequested runs after host.shutdown has been answered.
func (s *Server) shutdownRequested() {
	if s.opts.OnShutdown != nil {
		go s.opts.OnShutdown()
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), s.opts.Limits.ShutdownGrace())
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			s.log.Warn("shutdown", zap.Error(err))
		}
	}()
}

func pid() int { return os.Getpid() }
