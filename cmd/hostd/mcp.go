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
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/internal/mcpface"
)

// `hostd mcp` serves the tools over the Model Context Protocol on
// stdin/stdout, or with --http over streamable HTTP on a loopback port
// (to requests carrying its token, mcptoken.go). It is a client of the shared daemon, as a forwarding
// `hostd --stdio` is (started the same way when none runs): the MCP
// connection's hostd session lives there, so `hostctl sessions` lists it
// and `hostctl review` shows and rolls back its changes.

// mcpFlags are `hostd mcp`'s command line.
type mcpFlags struct {
	cfg   config.Config
	roots []string // --workspace, in order; empty: the client's roots
	http  string   // --http: serve streamable HTTP on this loopback address instead of stdio
	// httpNet is the network of http: tcp4 or tcp6.
	httpNet string
	// editResult is the sessions' edit result form (--edit-result).
	editResult string
	// structured: --structured-results.
	structured bool
}

// loopbackAddr checks --http's address: a loopback IP address or
// localhost (127.0.0.1), and a port. It returns the network and the
// address to listen on.
func loopbackAddr(addr string) (network, hostport string, err error) {
	host, port, err := net.SplitHostPort(addr)
	if err == nil {
		_, err = strconv.ParseUint(port, 10, 16)
	}
	if host == "localhost" {
		host = "127.0.0.1"
	}
	ip := net.ParseIP(host)
	if err != nil || ip == nil || !ip.IsLoopback() {
		return "", "", errors.New("give a loopback address and a port, 127.0.0.1:PORT or [::1]:PORT (the tools act as you: nothing off this machine may reach them)")
	}
	network = "tcp4"
	if ip.To4() == nil {
		network = "tcp6"
	}
	return network, net.JoinHostPort(ip.String(), port), nil
}

// rootsFlag collects a repeatable --workspace.
type rootsFlag []string

func (r *rootsFlag) String() string { return fmt.Sprint(*r) }
func (r *rootsFlag) Set(v string) error {
	*r = append(*r, v)
	return nil
}

// parseMCPFlags reads `hostd mcp`'s flags: --workspace (repeatable),
// --socket and --config, both about the shared daemon, and --http.
func parseMCPFlags(args []string, out io.Writer) (mcpFlags, error) {
	f := mcpFlags{cfg: config.Default()}
	fs := flag.NewFlagSet("hostd mcp", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var roots rootsFlag
	fs.Var(&roots, "workspace", "the session's workspace `dir`; repeat it to approve more (writable) roots; without it, the MCP client's roots")
	socket := fs.String("socket", f.cfg.Socket, "the shared daemon's socket `path` (started there if none listens)")
	file := fs.String("config", "", "settings and limits (limits.maxMcpSessions, and for a daemon this command starts, the rest) from this JSON `file`")
	editResult := fs.String("edit-result", "compact", "the `form` of edit results when a call does not choose one: compact (the new tag and the spans that moved) or full (every changed line)")
	structured := fs.Bool("structured-results", false, "give each tool an outputSchema and each result structuredContent and the whole result in _meta, for hosts that read them; a host that shows the model structuredContent (Claude Code) then pays several times the tokens")
	httpAddr := fs.String("http", "", "serve MCP's streamable HTTP transport on this loopback `address` (127.0.0.1:PORT or [::1]:PORT; port 0 picks one) instead of stdin/stdout; every request must carry the token hostd writes to a file only you can read")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(out, "Usage: hostd mcp [--workspace DIR]... [--socket PATH] [--config FILE] [--http 127.0.0.1:PORT] [--edit-result compact|full] [--structured-results]\n\n"+
				"Serves hostd's tools (read, grep, write, edit) over the Model Context Protocol on\n"+
				"stdin/stdout. Tools run in the shared daemon, so `hostctl sessions` and `hostctl review`\n"+
				"see the MCP session and its changes.\n\nFlags:\n")
			printFlags(out, fs)
			return f, errHelp
		}
		return f, usageErrorf("%s; run hostd mcp --help for the flags", dashes(err.Error()))
	}
	if fs.NArg() > 0 {
		return f, usageErrorf("unexpected argument %q; hostd mcp takes flags only (run hostd mcp --help)", fs.Arg(0))
	}
	f.structured = *structured
	if f.editResult = *editResult; f.editResult != "compact" && f.editResult != "full" {
		return f, usageErrorf("--edit-result %q: give compact or full", *editResult)
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
		var err error
		if f.httpNet, f.http, err = loopbackAddr(*httpAddr); err != nil {
			return f, usageErrorf("--http %q: %v", *httpAddr, err)
		}
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
	face, err := mcpface.New(ctx, mcpface.Options{Daemon: daemon, Roots: f.roots, Version: version(),
		MaxFrameBytes: f.cfg.Limits.MaxFrameBytes, MaxSessions: f.cfg.Limits.MaxMCPSessions, EditResult: f.editResult, Structured: f.structured})
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
		err = serveMCPHTTP(serve, face, f, std.err)
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

// serveMCPHTTP serves the face over streamable HTTP on f.http until ctx
// ends. A TCP port on loopback is open to every user of the machine, so
// every request must carry a token that only this user can read (written
// to a file at start, removed at exit), and on Linux each connection is
// also served only when its client is this uid (the check the Unix
// socket makes with SO_PEERCRED).
func serveMCPHTTP(ctx context.Context, face *mcpface.Face, f mcpFlags, stderr io.Writer) error {
	l, err := net.Listen(f.httpNet, f.http)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", f.http, err)
	}
	defer l.Close()
	addr := l.Addr().(*net.TCPAddr)
	token := mcpface.NewToken()
	tokenFile, err := writeMCPToken(mcpTokenDir(f.cfg), addr, token)
	if err != nil {
		return err
	}
	defer removeMCPToken(tokenFile, token)
	handler, err := face.HTTPHandler(mcpface.HTTPOptions{Token: token, TokenFile: tokenFile, Idle: mcpHTTPIdle, MaxBody: f.cfg.Limits.MaxFrameBytes})
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(shut)
		face.Close(shut)
	}()
	fmt.Fprintf(stderr, "hostd %s serving MCP over streamable HTTP at http://%s/mcp (pid %d); tools run in the shared daemon on %s\n", version(), addr, os.Getpid(), f.cfg.Socket)
	fmt.Fprintf(stderr, "hostd mcp: every request must carry the header \"Authorization: Bearer TOKEN\"; the token (new at every start) is in %s\n", tokenFile)
	return srv.Serve(ownerOnly(l, stderr))
}
