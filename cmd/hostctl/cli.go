package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/hostd-dev/hostd/internal/endpoint"
	"github.com/hostd-dev/hostd/rpc/wire"
)

// Exit codes; scripts may rely on them.
const (
	exitOK       = 0
	exitFailed   = 1 // the daemon answered with an error, a tool call failed, or the connection failed
	exitUsage    = 2 // the command line is wrong; nothing was sent
	exitNoDaemon = 3 // nothing listens on the socket
)

// errUsage marks a command-line mistake: nothing was sent to the daemon.
var errUsage = errors.New("usage")

func usageErrorf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errUsage, fmt.Sprintf(format, args...))
}

// stdio is where a run reads and writes; tests pass buffers.
type stdio struct {
	in       io.Reader
	out, err io.Writer
}

// app is one hostctl invocation: where to connect and how to print.
type app struct {
	socket   string
	json     bool
	timeout  time.Duration
	maxFrame int64 // largest response frame, and largest params read from stdin
	io       stdio
	fmt      formatter
	rewind   rewindFlags
	// completing is the flag whose value __complete looks up ("" for a
	// command word).
	completing string
}

// valueFlags are review rewind's flags whose values the daemon knows.
var valueFlags = []string{"--prompt", "--since", "--call"}

// rewindFlags are review rewind's own flags: what to rewind, whether only
// to preview it, and what to do with a conflicted file.
type rewindFlags struct {
	prompt, since, call string
	all, dryRun         bool
	keepTheirs, merge   bool
	force               bool
}

// set reports whether any of them was given.
func (r rewindFlags) set() bool { return r != rewindFlags{} }

// socketPath picks the socket: --socket, else $HOSTD_SOCKET, else the
// daemon's own default (wire-contract §1), so a plain `hostctl info` finds a
// plain `hostd`.
func socketPath(flagValue string, getenv func(string) string) string {
	if flagValue != "" {
		return flagValue
	}
	if env := getenv("HOSTD_SOCKET"); env != "" {
		return env
	}
	return endpoint.Default()
}

// run is hostctl: it parses args, runs one command and returns the exit
// code. Flags may appear anywhere, before or after the command.
func run(ctx context.Context, args []string, std stdio, getenv func(string) string) int {
	// A completion of a flag's value (review rewind S --prompt <TAB>) is
	// asked with the flag last and no value: it is kept for the lookup
	// rather than parsed.
	valueOf := ""
	if len(args) > 1 && args[0] == completeCommand && slices.Contains(valueFlags, args[len(args)-1]) {
		valueOf, args = args[len(args)-1], args[:len(args)-1]
	}
	a, pos, help, err := parse(args, std, getenv)
	a.completing = valueOf
	if help && len(pos) > 0 {
		// `hostctl review --help`: the help of what the line names.
		pos = append([]string{"help"}, pos...)
	} else if help {
		fmt.Fprint(std.out, usageText)
		return exitOK
	}
	if err == nil && len(pos) == 0 {
		fmt.Fprint(std.err, usageText)
		return exitUsage
	}
	if err == nil {
		err = dispatch(ctx, a, pos)
	}
	return report(std.err, a, err)
}

// parse reads flags and positional arguments in any order; "--" ends the
// flags.
func parse(args []string, std stdio, getenv func(string) string) (a *app, pos []string, help bool, err error) {
	fs := flag.NewFlagSet("hostctl", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	socket := fs.String("socket", "", "")
	asJSON := fs.Bool("json", false, "")
	timeout := fs.Duration("timeout", defaultTimeout, "")
	version := fs.Bool("version", false, "")
	var rw rewindFlags
	fs.StringVar(&rw.prompt, "prompt", "", "")
	fs.StringVar(&rw.since, "since", "", "")
	fs.StringVar(&rw.call, "call", "", "")
	fs.BoolVar(&rw.all, "all", false, "")
	fs.BoolVar(&rw.dryRun, "dry-run", false, "")
	fs.BoolVar(&rw.keepTheirs, "keep-theirs", false, "")
	fs.BoolVar(&rw.merge, "merge", false, "")
	fs.BoolVar(&rw.force, "force", false, "")
	fs.BoolVar(&help, "help", false, "")
	fs.BoolVar(&help, "h", false, "")

	for {
		if err := fs.Parse(args); err != nil {
			return &app{io: std}, nil, false, usageErrorf("%v", err)
		}
		rest := fs.Args()
		consumed := len(args) - len(rest)
		if consumed > 0 && args[consumed-1] == "--" {
			pos = append(pos, rest...)
			break
		}
		if len(rest) == 0 {
			break
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
	if *version {
		pos = append([]string{"version"}, pos...)
	}
	a = &app{
		socket:   socketPath(*socket, getenv),
		json:     *asJSON,
		timeout:  *timeout,
		maxFrame: wire.DefaultMaxFrameBytes,
		io:       std,
		fmt:      formatter{loc: time.Local, now: time.Now},
		rewind:   rw,
	}
	if *timeout <= 0 {
		return a, nil, false, usageErrorf("--timeout must be positive, got %v", *timeout)
	}
	return a, pos, help, nil
}

// report prints err for a person and picks the exit code.
func report(w io.Writer, a *app, err error) int {
	var rpcErr *rpcError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errUsage):
		fmt.Fprintf(w, "hostctl: %s\nrun 'hostctl --help' for the commands and flags\n", strings.TrimPrefix(err.Error(), errUsage.Error()+": "))
		return exitUsage
	case errors.Is(err, errNoDaemon):
		fmt.Fprintf(w, "hostctl: %s\n", safeLine(err.Error()))
		fmt.Fprint(w, startHint(a.socket, findLauncher()))
		return exitNoDaemon
	case errors.As(err, &rpcErr):
		rpcFailure(w, rpcErr)
		return exitFailed
	default:
		fmt.Fprintf(w, "hostctl: %s\n", safeLine(err.Error()))
		return exitFailed
	}
}

// startHint tells a person how to start a daemon hostctl would find:
// from the source tree when they are in one, else the installed hostd.
func startHint(socket string, l launcher) string {
	flag := ""
	if socket != endpoint.Default() {
		flag = " --socket " + socket
	}
	switch {
	case l.checkout != "":
		hint := "start one from the hostd source tree"
		if l.inSubdir {
			hint += " (in " + l.checkout + ")"
		}
		hint += " with:\n  go run ./cmd/hostd" + flag + "\n"
		if l.installed != "" {
			return hint + "or run the installed " + l.installed + flag + "; it prints where it listens\n"
		}
		return hint + "it prints where it listens\n"
	case l.installed != "":
		return "start one with:\n  " + l.installed + flag + "\nit prints where it listens\n"
	}
	return "start one with hostd" + flag + "; no hostd is installed beside hostctl or on $PATH:\n" +
		"  go install " + modulePath + "/cmd/hostd@latest\n"
}

// modulePath is hostd's Go module, which a checkout's go.mod declares.
const modulePath = "github.com/hostd-dev/hostd"

// launcher is how this machine can start a daemon.
type launcher struct {
	checkout  string // the hostd source tree the working directory is in, if any
	inSubdir  bool   // the working directory is below checkout, not at its root
	installed string // a hostd binary beside hostctl or on $PATH, if any
}

// findLauncher looks for the hostd source tree around the working
// directory and for an installed hostd: beside this hostctl first (the
// pair installed together), then on $PATH.
func findLauncher() launcher {
	var l launcher
	if wd, err := os.Getwd(); err == nil {
		for dir := wd; ; dir = filepath.Dir(dir) {
			if isHostdModule(filepath.Join(dir, "go.mod")) {
				l.checkout, l.inSubdir = dir, dir != wd
				break
			}
			if dir == filepath.Dir(dir) {
				break
			}
		}
	}
	if self, err := os.Executable(); err == nil {
		beside := filepath.Join(filepath.Dir(self), "hostd"+filepath.Ext(self)) // hostd.exe beside hostctl.exe
		if info, err := os.Stat(beside); err == nil && info.Mode().IsRegular() && (runtime.GOOS == "windows" || info.Mode().Perm()&0o111 != 0) {
			l.installed = beside
		}
	}
	if l.installed == "" {
		if p, err := exec.LookPath("hostd"); err == nil {
			if abs, err := filepath.Abs(p); err == nil {
				p = abs
			}
			l.installed = p
		}
	}
	return l
}

// isHostdModule reports whether gomod is hostd's go.mod.
func isHostdModule(gomod string) bool {
	f, err := os.Open(gomod)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	for _, line := range strings.Split(string(head[:n]), "\n") {
		if fields := strings.Fields(line); len(fields) == 2 && fields[0] == "module" {
			return strings.Trim(fields[1], `"`) == modulePath
		}
	}
	return false
}

const usageText = `hostctl inspects a running hostd over its socket.

usage: hostctl [flags] COMMAND [ARGS]

commands:
  info                             the daemon: version, pid, uptime, limits in force
  sessions                         every live session
  stats                            daemon counters and per-method call latencies
  lsp                              the language servers: root, language, state, memory, last error
  session ID                       one session's snapshot store and registers
  session delete ID                drop a live session (its review records stay)
  watch [SESSION]                  print each change as hostd records it, until Ctrl-C
                                   (--json: one review.recorded per line, diffs included)
  shutdown                         stop the daemon (in-flight calls finish first)
  completion bash|zsh|fish         print a shell completion script
  call METHOD [JSON|-]             any method with JSON params (- reads them from stdin);
                                   prints the raw result
  review sessions                  every session with recorded changes, live or not, newest first
  review list SESSION [PATH]       the session's recorded changes, with diffs (also after a restart)
  review rollback SESSION TOOLCALL undo every change of one tool call
  review rewind SESSION --prompt ID|--since TOOLCALL|--call TOOLCALL|--all
        [--dry-run] [--keep-theirs|--merge|--force]
                                   undo a whole turn (or every call since one, one call,
                                   the session) all or nothing; --dry-run previews it
  version                          this hostctl's version, protocol and commit, and the
                                   daemon's version and protocol if one answers
  help [COMMAND]                   this help, or one command's (also: COMMAND --help)

flags (anywhere on the line):
  --socket PATH     the daemon's socket (default: $HOSTD_SOCKET, else the
                    user's own, the one hostd --help names; Windows: a pipe)
  --json            print the raw JSON result instead of a table, for scripts
  --timeout DUR     give up (and cancel the request) after DUR (default 30s)
  --version         the same as the version command

exit status: 0 ok, 1 the daemon answered with an error, the connection
failed, or the socket is not safe to use (another user's directory or
daemon; nothing is sent), 2 bad command line, 3 no daemon is listening.
`
