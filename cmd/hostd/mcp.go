package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/internal/mcpface"
)

// `hostd mcp` serves the four tools over the Model Context Protocol on
// stdin/stdout. It is a client of the shared daemon, as a forwarding
// `hostd --stdio` is (started the same way when none runs): the MCP
// connection's hostd session lives there, so `hostctl sessions` lists it
// and `hostctl review` shows and rolls back its changes.

// mcpFlags are `hostd mcp`'s command line.
type mcpFlags struct {
	cfg   config.Config
	roots []string // --workspace, in order; empty: the client's roots
	http  string   // --http: serve streamable HTTP on this loopback address instead of stdio
}

// rootsFlag collects a repeatable --workspace.
type rootsFlag []string

func (r *rootsFlag) String() string { return fmt.Sprint(*r) }
func (r *rootsFlag) Set(v string) error {
	*r = append(*r, v)
	return nil
}

// parseMCPFlags reads `hostd mcp`'s flags: --workspace (repeatable),
// --socket and --config, both about the shared daemon.
func parseMCPFlags(args []string, out io.Writer) (mcpFlags, error) {
	f := mcpFlags{cfg: config.Default()}
	fs := flag.NewFlagSet("hostd mcp", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var roots rootsFlag
	fs.Var(&roots, "workspace", "the session's workspace `dir`; repeat it to approve more (writable) roots; without it, the MCP client's roots")
	socket := fs.String("socket", f.cfg.Socket, "the shared daemon's socket `path` (started there if none listens)")
	file := fs.String("config", "", "settings and limits for a daemon this command starts, from this JSON `file`")
	httpAddr := fs.String("http", "", "serve MCP's streamable HTTP transport on this loopback `address` (127.0.0.1:PORT) instead of stdin/stdout; only connections of your own uid are served")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(out, "Usage: hostd mcp [--workspace DIR]... [--socket PATH] [--config FILE] [--http 127.0.0.1:PORT]\n\n"+
				"Serves hostd's tools (read, grep, write, edit) over the Model Context Protocol on\n"+
				"stdin/stdout. Tools run in the shared daemon, so `hostctl sessions` and `hostctl review`\n"+
				"see the MCP session and its changes.\n\nFlags:\n")
			fs.SetOutput(out)
			fs.PrintDefaults()
			return f, errHelp
		}
		return f, usageErrorf("%s; run hostd mcp --help for the flags", dashes(err.Error()))
	}
	if fs.NArg() > 0 {
		return f, usageErrorf("unexpected argument %q; hostd mcp takes flags only (run hostd mcp --help)", fs.Arg(0))
	}
	if *file != "" {
		if err := f.cfg.Load(*file); err != nil {
			return f, usageError{err.Error()}
		}
		if abs, err := filepath.Abs(*file); err == nil {
			f.cfg.ConfigFile = abs
		}
	}
	fs.Visit(func(fl *flag.Flag) {
		if fl.Name == "socket" {
			f.cfg.Socket = *socket
		}
	})
	if f.cfg.Socket == "" {
		return f, usageErrorf("no socket path: give --socket PATH")
	}
	if *httpAddr != "" {
		host, _, err := net.SplitHostPort(*httpAddr)
		if err != nil || (host != "127.0.0.1" && host != "localhost") {
			return f, usageErrorf("--http %q: give a loopback address, 127.0.0.1:PORT (the tools act as you: nothing off this machine may reach them)", *httpAddr)
		}
		f.http = net.JoinHostPort("127.0.0.1", (*httpAddr)[len(host)+1:])
	}
	for _, r := range roots {
		abs, err := filepath.Abs(r)
		if err != nil {
			return f, usageErrorf("--workspace %q: %v", r, err)
		}
		if st, err := os.Stat(abs); err != nil || !st.IsDir() {
			return f, usageErrorf("--workspace %q is not an existing directory; give the project's root directory", r)
		}
		f.roots = append(f.roots, abs)
	}
	return f, nil
}

// runMCP serves one MCP client on std until it closes stdin, a signal
// (ctx), or the shared daemon going away, which exits 1 with a message
// as a forwarding `hostd --stdio` does.
func runMCP(ctx context.Context, args []string, std stdio) error {
	f, err := parseMCPFlags(args, std.out)
	if err != nil {
		return err
	}
	conn, started, err := connectShared(ctx, f.cfg, std.err)
	if err != nil {
		return err
	}
	daemon := mcpface.NewRemote(conn, f.cfg.Limits.MaxFrameBytes)
	defer daemon.Close()
	if started {
		fmt.Fprintf(std.err, "hostd %s: started the shared daemon on %s (it stops %s after its last client)\n", version(), f.cfg.Socket, sharedIdleExit)
	}
	face, err := mcpface.New(ctx, mcpface.Options{Daemon: daemon, Roots: f.roots, Version: version(), MaxFrameBytes: f.cfg.Limits.MaxFrameBytes})
	if err != nil {
		return err
	}
	serve, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		select {
		case <-daemon.Done():
			stop()
		case <-serve.Done():
		}
	}()
	if f.http != "" {
		err = serveMCPHTTP(serve, face, f.http, f.cfg, std.err)
	} else {
		fmt.Fprintf(std.err, "hostd %s serving MCP on stdin/stdout (pid %d); tools run in the shared daemon on %s\n", version(), os.Getpid(), f.cfg.Socket)
		// A message may be as large as a JSON-RPC frame (a write of
		// maxWriteBytes, escaped), not only the SDK's default 16 MiB.
		err = face.Run(serve, &mcp.IOTransport{Reader: std.in, Writer: std.out, MaxLineLength: int(f.cfg.Limits.MaxFrameBytes)})
	}
	select {
	case <-daemon.Done():
		if ctx.Err() == nil {
			std.out.Close()
			return fmt.Errorf("%w (socket %s): it was stopped or it crashed; restart this MCP server to start a new daemon (the review history is kept)", errDaemonGone, f.cfg.Socket)
		}
	default:
	}
	if ctx.Err() != nil || errors.Is(err, io.EOF) || errors.Is(err, http.ErrServerClosed) {
		return nil // a signal, or the client closed stdin
	}
	return err
}

// mcpHTTPIdle ends an HTTP MCP session, and its hostd session, after
// this long without a request.
const mcpHTTPIdle = time.Hour

// serveMCPHTTP serves the face over streamable HTTP on addr until ctx
// ends. A TCP port on loopback is open to every user of the machine, so
// each connection is served only when its owner is this process's uid
// (the check the Unix socket makes with SO_PEERCRED).
func serveMCPHTTP(ctx context.Context, face *mcpface.Face, addr string, cfg config.Config, stderr io.Writer) error {
	l, err := net.Listen("tcp4", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	srv := &http.Server{
		Handler:           face.HTTPHandler(mcpHTTPIdle, cfg.Limits.MaxFrameBytes),
		ReadHeaderTimeout: 10 * time.Second,
	}
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(shut)
		face.Close(shut)
	}()
	fmt.Fprintf(stderr, "hostd %s serving MCP over streamable HTTP at http://%s/mcp (pid %d); tools run in the shared daemon on %s\n", version(), l.Addr(), os.Getpid(), cfg.Socket)
	return srv.Serve(&ownerListener{Listener: l, log: stderr})
}

// ownerListener accepts only connections whose client socket belongs to
// this process's uid; others are closed unanswered, and said so on log.
type ownerListener struct {
	net.Listener
	log io.Writer
}

func (l *ownerListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		uid, err := loopbackPeerUID(c)
		if err == nil && uid == os.Getuid() {
			return c, nil
		}
		if err == nil {
			err = fmt.Errorf("its client runs as uid %d, not as you (uid %d)", uid, os.Getuid())
		}
		fmt.Fprintf(l.log, "hostd mcp: refused a connection from %v: %v\n", c.RemoteAddr(), err)
		c.Close()
	}
}
