package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

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
		stdio    = fs.Bool("stdio", false, "serve one connection on stdin/stdout instead of a socket")
		socket   = fs.String("socket", cfg.Socket, "listen on this Unix socket `path`")
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
	if set["log-file"] {
		cfg.LogFile = *logFile
	}
	if set["log-level"] {
		cfg.LogLevel = *logLevel
	}
	if cfg.Stdio && set["socket"] {
		return cfg, fmt.Errorf("%w: --stdio and --socket are two different ways to serve; pick one", errUsage)
	}
	if _, err := zapcore.ParseLevel(cfg.LogLevel); err != nil {
		return cfg, fmt.Errorf("%w: log level %q: want debug, info, warn or error", errUsage, cfg.LogLevel)
	}
	if cfg.Socket == "" && !cfg.Stdio {
		return cfg, fmt.Errorf("%w: no socket path", errUsage)
	}
	return cfg, nil
}
