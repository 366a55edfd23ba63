package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"go.uber.org/zap/zapcore"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/internal/buildinfo"
	"github.com/hostd-dev/hostd/rpc/wire"
)

// errUsage marks a command line or config file the daemon cannot start
// with; it exits 2, like flag's own errors.
var errUsage = errors.New("usage")

// usageError is an errUsage whose text is the message alone: main prints
// it after "hostd: ", and the word "usage" would only be noise there.
type usageError struct{ msg string }

func (e usageError) Error() string        { return e.msg }
func (e usageError) Is(target error) bool { return target == errUsage }

func usageErrorf(format string, args ...any) error {
	return usageError{fmt.Sprintf(format, args...)}
}

// errHelp is --help or --version: what was asked for is printed, the
// daemon does not start, and the exit status is 0.
var errHelp = flag.ErrHelp

// parseConfig builds the configuration: defaults, then the config file
// (--config), then every flag given on the command line, so a flag always
// wins over the file. --help and --version print to out; every other
// problem is returned, for main to print once.
func parseConfig(args []string, out io.Writer) (config.Config, error) {
	cfg := config.Default()
	fs := flag.NewFlagSet("hostd", flag.ContinueOnError)
	// flag would print each error and the whole usage; main prints the
	// error once, with a pointer to --help instead.
	fs.SetOutput(io.Discard)
	var (
		file       = fs.String("config", "", "read settings and limits from this JSON `file` (flags override it; see docs/config.md)")
		stdio      = fs.Bool("stdio", false, "talk JSON-RPC on stdin/stdout: forwarded to the user's shared daemon (started if none runs), or served in this process with --state-dir or --standalone")
		standalone = fs.Bool("standalone", false, "with --stdio: serve in this process, independent of the shared daemon, with review records of its own that last as long as it does (unless --state-dir names a directory)")
		idleExit   = fs.Duration("idle-exit", 0, "shut down once no client has been connected for this `duration` (0: never)")
		rpcTrace   = fs.Bool("rpc-trace", false, "log every JSON-RPC frame in and out (the first 2 KiB of each) at info level, for client developers")
		socket     = fs.String("socket", cfg.Socket, "listen on this `address`: a Unix socket path in a private directory, or on Windows a pipe name (with --stdio: the shared daemon's); the default is the user's own, which no environment variable moves")
		stateDir   = fs.String("state-dir", cfg.StateDir, "keep durable state (review records) in this `directory`")
		logFile    = fs.String("log-file", "", "append logs to this `file` instead of stderr")
		logLevel   = fs.String("log-level", cfg.LogLevel, "log `level`: debug, info, warn or error")
		showVer    = fs.Bool("version", false, "print the version, protocol version, commit and Go version, then exit")
	)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printUsage(out, fs)
			return cfg, errHelp
		}
		return cfg, usageErrorf("%s; run hostd --help for the flags", dashes(err.Error()))
	}
	if *showVer {
		fmt.Fprintln(out, buildinfo.Read().Describe("hostd", wire.ProtocolVersion))
		return cfg, errHelp
	}
	if fs.NArg() > 0 {
		return cfg, usageErrorf("unexpected argument %q; hostd takes flags only (run hostd --help)", fs.Arg(0))
	}
	if *file != "" {
		if err := cfg.Load(*file); err != nil {
			return cfg, usageError{err.Error()}
		}
		if abs, err := filepath.Abs(*file); err == nil {
			cfg.ConfigFile = abs
		}
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if set["stdio"] {
		cfg.Stdio = *stdio
	}
	if set["socket"] {
		cfg.Socket = *socket
	}
	if set["state-dir"] {
		cfg.StateDir = *stateDir
	}
	cfg.Standalone = *standalone || set["state-dir"]
	if cfg.Stdio && *standalone && !set["state-dir"] {
		// Its own state, never the shared daemon's: run makes a
		// directory for as long as the process lives.
		cfg.StateDir = ""
	}
	cfg.IdleExit = *idleExit
	cfg.RPCTrace = *rpcTrace
	if set["log-file"] {
		cfg.LogFile = *logFile
	}
	if set["log-level"] {
		cfg.LogLevel = *logLevel
	}
	if cfg.Stdio && cfg.Standalone && set["socket"] {
		return cfg, usageErrorf("a standalone --stdio daemon serves no socket; drop --socket, or drop --standalone and --state-dir to forward to the daemon on that socket")
	}
	if cfg.IdleExit < 0 {
		return cfg, usageErrorf("--idle-exit must not be negative")
	}
	if _, err := zapcore.ParseLevel(cfg.LogLevel); err != nil {
		return cfg, usageErrorf("log level %q: want debug, info, warn or error", cfg.LogLevel)
	}
	if cfg.Socket == "" && !cfg.Stdio {
		return cfg, usageErrorf("no socket path: give --socket PATH, or --stdio")
	}
	return cfg, nil
}

// printUsage is the help text, with the flags spelt as the docs spell
// them (--stdio); Go's flag package accepts one dash or two.
func printUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(w, "Usage: hostd [--stdio | --socket PATH] [flags]\n"+
		"       hostd mcp [--workspace DIR]...   (the tools over MCP; hostd mcp --help)\n\n"+
		"hostd serves file tools for coding agents over JSON-RPC 2.0 (LSP framing).\n"+
		"By default it listens on %s.\n\nFlags:\n", config.DefaultSocketPath())
	printFlags(w, fs)
}

// printFlags lists fs's flags spelt as the docs and `hostd --help` spell
// them, --name (Go's flag package accepts one dash or two), with their
// defaults where they have one worth saying (not false, empty or none).
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if name != "" {
			line += " " + name
		}
		fmt.Fprintf(w, "%s\n    \t%s", line, strings.ReplaceAll(usage, "\n", "\n    \t"))
		if d := f.DefValue; d != "" && d != "false" && d != "[]" {
			fmt.Fprintf(w, " (default %q)", d)
		}
		fmt.Fprintln(w)
	})
}

// dashes respells flag's error messages, which name a flag as -name, the
// way the help and the docs do: --name.
func dashes(msg string) string {
	msg = strings.Replace(msg, "flag provided but not defined: -", "unknown flag --", 1)
	msg = strings.Replace(msg, "flag needs an argument: -", "flag needs an argument: --", 1)
	return strings.Replace(msg, " for flag -", " for flag --", 1)
}
