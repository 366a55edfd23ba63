package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"go.uber.org/zap/zapcore"

	"github.com/hostd-dev/hostd/config"
)

// errUsage marks a command line or config file the daemon cannot start
// with; it exits 2, like flag's own errors.
var errUsage = errors.New("usage")

// errHelp is -h / --help: the usage was printed, exit 0.
var errHelp = flag.ErrHelp

// parseConfig builds the configuration: defaults, then the config file
// (--config), then every flag given on the command line, so a flag always
// wins over the file.
func parseConfig(args []string, stderr io.Writer) (config.Config, error) {
	cfg := config.Default()
	fs := flag.NewFlagSet("hostd", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		file     = fs.String("config", "", "read settings and limits from this JSON `file` (flags override it)")
		stdio      = fs.Bool("stdio", false, "talk JSON-RPC on stdin/stdout: forwarded to the user's shared daemon (started if none runs), or served in this process with --state-dir or --standalone")
		standalone = fs.Bool("standalone", false, "with --stdio: serve in this process, independent of the shared daemon")
		idleExit   = fs.Duration("idle-exit", 0, "shut down once no client has been connected for this `duration` (0: never)")
		socket     = fs.String("socket", cfg.Socket, "listen on this Unix socket `path` (with --stdio: the shared daemon's socket)")
		stateDir = fs.String("state-dir", cfg.StateDir, "keep durable state (review records) in this `directory`")
		logFile  = fs.String("log-file", "", "append logs to this `file` instead of stderr")
		logLevel = fs.String("log-level", cfg.LogLevel, "log `level`: debug, info, warn or error")
	)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: hostd [--stdio | --socket PATH] [flags]\n\n"+
			"hostd serves file tools for coding agents over JSON-RPC 2.0 (LSP framing).\n"+
			"By default it listens on %s.\n\nFlags:\n", config.DefaultSocketPath())
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return cfg, errHelp
		}
		return cfg, fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("%w: unexpected argument %q (see hostd --help)", errUsage, fs.Arg(0))
	}
	if *file != "" {
		if err := cfg.Load(*file); err != nil {
			return cfg, fmt.Errorf("%w: %v", errUsage, err)
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
	cfg.IdleExit = *idleExit
	if set["log-file"] {
		cfg.LogFile = *logFile
	}
	if set["log-level"] {
		cfg.LogLevel = *logLevel
	}
	if cfg.Stdio && cfg.Standalone && set["socket"] {
		return cfg, fmt.Errorf("%w: a standalone --stdio daemon serves no socket; drop --socket, or drop --standalone/--state-dir to forward to the daemon on that socket", errUsage)
	}
	if cfg.IdleExit < 0 {
		return cfg, fmt.Errorf("%w: --idle-exit must not be negative", errUsage)
	}
	if _, err := zapcore.ParseLevel(cfg.LogLevel); err != nil {
		return cfg, fmt.Errorf("%w: log level %q: want debug, info, warn or error", errUsage, cfg.LogLevel)
	}
	if cfg.Socket == "" && !cfg.Stdio {
		return cfg, fmt.Errorf("%w: no socket path", errUsage)
	}
	return cfg, nil
}
