package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/internal/budget"
	"github.com/hostd-dev/hostd/internal/buildinfo"
	"github.com/hostd-dev/hostd/internal/endpoint"
	"github.com/hostd-dev/hostd/internal/memgov"
	"github.com/hostd-dev/hostd/internal/spawn"
	"github.com/hostd-dev/hostd/review"
	"github.com/hostd-dev/hostd/rpc"
	"github.com/hostd-dev/hostd/session"
	"github.com/hostd-dev/hostd/tools"
	"github.com/hostd-dev/hostd/tools/blocks"
	"github.com/hostd-dev/hostd/tools/langserver"
	"github.com/hostd-dev/hostd/tools/parsepool"
	"github.com/hostd-dev/hostd/workspace"
)

// stdio are the process's standard streams.
type stdio struct {
	in       io.ReadCloser
	out, err io.WriteCloser
}

// Read, Write and Close make stdin+stdout the one --stdio connection.
func (s stdio) Read(p []byte) (int, error)  { return s.in.Read(p) }
func (s stdio) Write(p []byte) (int, error) { return s.out.Write(p) }
func (s stdio) Close() error {
	errIn, errOut := s.in.Close(), s.out.Close()
	return errors.Join(errIn, errOut)
}

// exitLive is the exit status of a daemon that found another live one on
// its address: a forwarder that started it then dials the one that won.
const exitLive = 4

// exitCode maps run's error to the process exit status: 2 for a command
// line or config the daemon cannot start with, 0 for --help, 4 when
// another daemon owns the address, 1 otherwise.
func exitCode(err error) int {
	switch {
	case errors.Is(err, errHelp):
		return 0
	case errors.Is(err, errUsage):
		return 2
	case errors.Is(err, endpoint.ErrLive):
		return exitLive
	}
	return 1
}

// run is the daemon: parse, wire, serve until a signal (ctx), a
// host.shutdown call, or, in --stdio mode, the end of the connection; then
// shut down gracefully. It returns nil for every orderly exit.
func run(ctx context.Context, args []string, std stdio) error {
	if len(args) > 0 && args[0] == "mcp" {
		return runMCP(ctx, args[1:], std)
	}
	if len(args) > 0 && args[0] == parseWorkerCommand {
		return runParseWorker(ctx, std)
	}
	if len(args) > 0 && args[0] == spawn.Command {
		return spawn.Serve()
	}
	cfg, err := parseConfig(args, std.out)
	if err != nil {
		return err
	}
	if cfg.Stdio && !cfg.Standalone {
		return forwardStdio(ctx, cfg, std)
	}
	log, closeLog, err := newLogger(cfg, std.err)
	if err != nil {
		return err
	}
	defer closeLog()
	if err := serve(ctx, cfg, std, log); err != nil {
		// A daemon a forwarder started logs to a file and has no stderr:
		// its refusal must be in the log, where the forwarder reads it.
		if cfg.LogFile != "" {
			log.Error(logStartFailed, zap.Error(err))
		}
		return err
	}
	return nil
}

// logStartFailed is the message of the log line that says why a daemon
// stopped with an error; a forwarder looks for it in hostd.log.
const logStartFailed = "hostd stopped with an error"

// serve runs the daemon with its logger until it stops.
func serve(ctx context.Context, cfg config.Config, std stdio, log *zap.Logger) error {
	// The process spawner starts before anything a child must never hold
	// is opened: the parse workers and the language servers are forked by
	// it, never by this process, so no child of the daemon, between its fork and its exec,
	// holds a copy of the socket's lock or listener (package spawn). The
	// daemon forks nothing once it has claimed its address, and a daemon
	// killed at any moment leaves nothing of its address behind.
	spawner, err := startSpawner()
	if err != nil {
		return err
	}
	if spawner != nil {
		defer spawner.Close()
	}
	// In socket mode the address is claimed first: a second daemon learns
	// that one is live from its lock, before it touches the state
	// directory. It listens only once the review store is open, so no
	// client connects to a daemon that is about to refuse to start.
	var claim *endpoint.Claim
	if !cfg.Stdio {
		if claim, err = endpoint.ClaimAddress(cfg.Socket); err != nil {
			return err
		}
	}
	listening := false
	defer func() {
		if claim != nil && !listening {
			claim.Release()
		}
	}()
	if cfg.StateDir == "" {
		// --standalone without --state-dir: state of its own, for as long
		// as this process lives, so it never contends with the shared
		// daemon for the user's review store.
		dir, err := os.MkdirTemp("", "hostd-standalone-")
		if err != nil {
			return fmt.Errorf("a state directory for --standalone: %w", err)
		}
		defer os.RemoveAll(dir)
		cfg.StateDir = dir
	}
	store, err := openStore(cfg, log)
	if err != nil {
		return err
	}
	defer store.Close()
	if rec := store.Recovered(); rec != nil {
		fmt.Fprintf(std.err, "hostd: WARNING: the review store was damaged (%s).\n"+
			"  It was moved aside to %s and a fresh, empty store started:\n"+
			"  the review history before this start is in that file, not in hostd.\n", rec.Reason, rec.From)
	}
	var l *endpoint.Listener
	if claim != nil {
		listening = true
		if l, err = claim.Listen(); err != nil {
			return err
		}
		l.OnRefuse = func(p endpoint.Peer, err error) {
			log.Warn("refused a peer", zap.Int(rpc.LogPeerUID, p.UID), zap.Int(rpc.LogPID, p.PID), zap.Error(err))
		}
		defer l.Close()
	}

	stop := make(chan struct{})
	var stopOnce sync.Once
	sessions := session.NewManager(cfg.Limits)
	encodings, err := workspace.CompileEncodings(cfg.Encodings)
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	// Tree-sitter runs in worker processes, never in the daemon: each
	// keeps the trees of the files it parsed, so a file version is parsed
	// once and the next version from its tree.
	workers, err := newParseWorkers(cfg.Limits, log, spawner)
	if err != nil {
		return err
	}
	defer workers.Close()
	servers, err := newLanguageServers(cfg.LanguageServers, cfg.Limits, log, spawner)
	if err != nil {
		return err
	}
	defer servers.Close()
	srv := newServer(cfg, log, sessions, encodings, store, workers, servers, func() { stopOnce.Do(func() { close(stop) }) })
	defer memgov.Start(cfg.Limits, memgov.Sources{Held: sessions.HeldBytes, Index: store.IndexBytes})()

	served := make(chan error, 1)
	var idle <-chan struct{} // closed after IdleExit with no client; nil: never
	if cfg.Stdio {
		go func() { srv.ServeConn(std); served <- nil }()
		fmt.Fprintf(std.err, "hostd %s serving JSON-RPC on stdin/stdout (pid %d)\n", version(), os.Getpid())
		log.Info("serving", zap.String(rpc.LogSocket, "stdio"), zap.Int(rpc.LogPID, os.Getpid()), zap.String(rpc.LogVersion, version()))
	} else {
		var ln net.Listener = l
		if cfg.IdleExit > 0 {
			il := newIdleListener(l, cfg.IdleExit)
			ln, idle = il, il.Idle()
		}
		go func() { served <- srv.Serve(ln) }()
		// The hint names the socket unless it is the default: a plain
		// hostctl would reach another daemon, and could stop it.
		ctl := endpoint.Hostctl(l.Path())
		fmt.Fprintf(std.err, "hostd %s listening on %s (pid %d)\n"+
			"  talk to it:  %s info        (from a checkout: go run ./cmd/%s info)\n"+
			"  stop it:     Ctrl-C, or %s shutdown\n", version(), l.Path(), os.Getpid(), ctl, ctl, ctl)
		log.Info("listening", zap.String(rpc.LogSocket, l.Path()), zap.Int(rpc.LogPID, os.Getpid()), zap.String(rpc.LogVersion, version()))
	}

	var serveErr error
	select {
	case <-ctx.Done():
		log.Info("shutting down on a signal")
	case <-stop:
		log.Info("shutting down on host.shutdown")
	case <-idle:
		log.Info("shutting down: no client for the idle bound", zap.Duration("idleExit", cfg.IdleExit))
	case serveErr = <-served:
		log.Info("connection closed")
	}
	grace, cancel := context.WithTimeout(context.Background(), cfg.Limits.ShutdownGrace())
	defer cancel()
	if err := srv.Shutdown(grace); err != nil {
		log.Warn("shutdown", zap.Error(err))
	}
	log.Info("stopped")
	return serveErr
}

// newServer wires the daemon's domain objects into the RPC server.
func newServer(cfg config.Config, log *zap.Logger, sessions *session.Manager, encodings *workspace.Encodings, store *review.Store, workers *parsepool.Workers, servers *langserver.Manager, onShutdown func()) *rpc.Server {
	// One budget for the whole daemon: frames in flight (rpc) and the
	// payloads write and edit apply (tools) take from the same bytes.
	mem := budget.New(cfg.Limits.MaxMemoryBytes, cfg.Limits.BudgetWait())
	exec := tools.NewExecutor(tools.Options{
		Sessions: sessions,
		Limits:   cfg.Limits,
		Log:      log,
		Review:   store,
		Parser:   parsepool.For(workers, cfg.Limits.MaxBlockParseBytes, time.Duration(cfg.Limits.MaxParseMs)*time.Millisecond),
		Tools:    builtinTools(),
		Budget:   mem,

		Diagnostics:     servers,
		DiagnosticsWait: time.Duration(cfg.LanguageServers.DiagnosticsMs) * time.Millisecond,
	})
	return rpc.NewServer(rpc.Options{
		Limits:     cfg.Limits,
		Sessions:   sessions,
		Encodings:  encodings,
		Executor:   exec,
		Review:     store,
		Log:        log,
		Version:    version(),
		Grammars:   blocks.Languages(),
		OnShutdown: onShutdown,
		Budget:     mem,
		Trace:      cfg.RPCTrace,
		Commit:     buildinfo.Read().CommitLabel(),

		LanguageServers: servers,
	})
}

// builtinTools is the tool list the daemon serves; a new tool is one line
// in tools.Builtin.
func builtinTools() []tools.Tool {
	return tools.Builtin()
}

// version is the module version this binary was built from, or "dev" for
// a build from a checkout.
func version() string { return buildinfo.Read().Version }
