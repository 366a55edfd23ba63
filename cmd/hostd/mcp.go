package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/mcpface"
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
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(out, "Usage: hostd mcp [--workspace DIR]... [--socket PATH] [--config FILE]\n\n"+
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
	daemon := mcpface.NewRemote(conn)
	defer daemon.Close()
	if started {
		fmt.Fprintf(std.err, "hostd %s: started the shared daemon on %s (it stops %s after its last client)\n", version(), f.cfg.Socket, sharedIdleExit)
	}
	face, err := mcpface.New(ctx, mcpface.Options{Daemon: daemon, Roots: f.roots, Version: version()})
	if err != nil {
		return err
	}
	fmt.Fprintf(std.err, "hostd %s serving MCP on stdin/stdout (pid %d); tools run in the shared daemon on %s\n", version(), os.Getpid(), f.cfg.Socket)

	serve, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		select {
		case <-daemon.Done():
			stop()
		case <-serve.Done():
		}
	}()
	err = face.Run(serve, &mcp.IOTransport{Reader: std.in, Writer: std.out})
	select {
	case <-daemon.Done():
		if ctx.Err() == nil {
			std.out.Close()
			return fmt.Errorf("%w (socket %s): it was stopped or it crashed; restart this MCP server to start a new daemon (the review history is kept)", errDaemonGone, f.cfg.Socket)
		}
	default:
	}
	if ctx.Err() != nil || errors.Is(err, io.EOF) {
		return nil // a signal, or the client closed stdin
	}
	return err
}
