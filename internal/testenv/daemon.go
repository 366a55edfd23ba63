package testenv

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The harness for tests that need a real process: a program of the
// module built once per test binary (Binary), started (Start), waited on
// by its events (Daemon.Await: a line on its stderr, its exit, or a
// condition Poll checks), and stopped (Daemon.Stop gracefully,
// Daemon.Kill as a crash does), always by t.Cleanup when the test has not.

var (
	buildMu  sync.Mutex
	builds   = map[string]*build{} // by package and tags; guarded by buildMu
	buildDir string                // guarded by buildMu; RemoveBinaries removes it
)

// build is one program built, or the error building it.
type build struct {
	once sync.Once
	path string
	err  error
}

// Binary builds the main package at pkg (a directory relative to the
// module root, "cmd/hostd") with the build tags once per test binary,
// and returns the program's path, which the tests share: a test that
// moves or changes the program copies it first. TestMain calls RemoveBinaries when the
// tests are done.
func Binary(tb testing.TB, pkg string, tags ...string) string {
	tb.Helper()
	root := ModuleRoot(tb)
	key := pkg + " " + strings.Join(tags, ",")
	buildMu.Lock()
	b := builds[key]
	if b == nil {
		b = &build{}
		builds[key] = b
	}
	if buildDir == "" {
		dir, err := os.MkdirTemp("", "hostd-test-bin")
		if err != nil {
			buildMu.Unlock()
			tb.Fatal(err)
		}
		buildDir = dir
	}
	// Each program in a directory of its own, under its own name: none
	// finds another beside it (hostctl looks for hostd there).
	out := filepath.Join(buildDir, strconv.Itoa(len(builds)), filepath.Base(pkg))
	if runtime.GOOS == "windows" {
		out += ".exe"
	}
	buildMu.Unlock()
	b.once.Do(func() {
		args := []string{"build", "-o", out}
		if len(tags) > 0 {
			args = append(args, "-tags", strings.Join(tags, ","))
		}
		cmd := exec.Command("go", append(args, "./"+filepath.ToSlash(pkg))...)
		cmd.Dir = root
		if msg, err := cmd.CombinedOutput(); err != nil {
			b.err = fmt.Errorf("go build %s: %v\n%s", pkg, err, msg)
			return
		}
		b.path = out
	})
	if b.err != nil {
		tb.Fatal(b.err)
	}
	return b.path
}

// RemoveBinaries removes the programs Binary built (hostd is 17 MB);
// TestMain calls it after m.Run, whatever the outcome.
func RemoveBinaries() {
	buildMu.Lock()
	defer buildMu.Unlock()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
}

// ShortDir is a private temporary directory whose path is short enough
// for a Unix socket name (108 bytes on Linux, 104 on macOS), removed
// when the test ends.
func ShortDir(tb testing.TB) string {
	tb.Helper()
	dir, err := os.MkdirTemp("", "hd")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// Options say how to start a process under test.
type Options struct {
	Bin  string   // the program (Binary's result)
	Args []string // its arguments
	// Env is added to the test's environment; with ExactEnv it is the
	// whole environment instead (a launcher's, say).
	Env      []string
	ExactEnv bool
	// Stdio gives the Daemon pipes to the process's stdin and stdout
	// (hostd --stdio, hostd mcp); Stop then closes stdin, as a client
	// that is done does. Without it stdout goes to Stdout (discarded
	// when nil), complete once the process has exited.
	Stdio  bool
	Stdout io.Writer
	// StopTimeout is how long Stop waits for a graceful exit before it
	// kills the process; 15s when zero.
	StopTimeout time.Duration
}

// Daemon is one process under test. Its stderr is kept (Log) and every
// write to it wakes the waits (Await).
type Daemon struct {
	Cmd    *exec.Cmd
	Stdin  io.WriteCloser // with Options.Stdio
	Stdout io.ReadCloser  // with Options.Stdio

	tb   testing.TB
	opts Options

	mu    sync.Mutex
	log   bytes.Buffer  // the process's stderr; guarded by mu
	wrote chan struct{} // closed and replaced at every write to log; guarded by mu

	exited chan struct{} // closed once the process has exited and its stderr is read
	err    error         // the process's exit status, set before exited is closed
}

// Start starts a process under test. The test's cleanup stops it (Stop)
// and, when the test failed, logs its stderr.
func Start(tb testing.TB, opts Options) *Daemon {
	tb.Helper()
	d := &Daemon{Cmd: exec.Command(opts.Bin, opts.Args...), tb: tb, opts: opts, wrote: make(chan struct{}), exited: make(chan struct{})}
	switch {
	case opts.ExactEnv:
		d.Cmd.Env = opts.Env
	case opts.Env != nil:
		d.Cmd.Env = append(os.Environ(), opts.Env...)
	}
	if opts.Stdio {
		var err error
		if d.Stdin, err = d.Cmd.StdinPipe(); err != nil {
			tb.Fatal(err)
		}
		if d.Stdout, err = d.Cmd.StdoutPipe(); err != nil {
			tb.Fatal(err)
		}
	}
	if !opts.Stdio {
		d.Cmd.Stdout = opts.Stdout
	}
	d.Cmd.Stderr = logWriter{d}
	// Children the process leaves behind (parse workers) inherit its
	// stderr; its exit must not wait for theirs.
	d.Cmd.WaitDelay = 10 * time.Second
	if err := d.Cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	go func() {
		d.err = d.Cmd.Wait()
		close(d.exited)
	}()
	tb.Cleanup(func() {
		d.Stop()
		if tb.Failed() {
			tb.Logf("%s stderr:\n%s", filepath.Base(opts.Bin), d.Log())
		}
	})
	return d
}

type logWriter struct{ d *Daemon }

func (w logWriter) Write(p []byte) (int, error) {
	w.d.mu.Lock()
	defer w.d.mu.Unlock()
	w.d.log.Write(p)
	close(w.d.wrote)
	w.d.wrote = make(chan struct{})
	return len(p), nil
}

// Log is what the process has written to its stderr so far.
func (d *Daemon) Log() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.log.String()
}

// Exited is closed once the process has exited.
func (d *Daemon) Exited() <-chan struct{} { return d.exited }

// Err is the process's exit status (cmd.Wait's error), once it has
// exited.
func (d *Daemon) Err() error {
	<-d.exited
	return d.err
}

// Event is a condition on a process under test that Await waits for.
type Event struct {
	what string
	// holds checks the event against the process's stderr so far and
	// whether it has exited.
	holds func(log string, exited bool) bool
	// polled says that nothing the process does announces the event, so
	// Await checks it every pollEvery as well.
	polled bool
}

func (e Event) String() string { return e.what }

// Logged is the event of s appearing on the process's stderr.
func Logged(s string) Event {
	return Event{what: fmt.Sprintf("%q on its stderr", s), holds: func(log string, _ bool) bool { return strings.Contains(log, s) }}
}

// LoggedTimes is the event of s appearing n times on the process's
// stderr.
func LoggedTimes(s string, n int) Event {
	return Event{what: fmt.Sprintf("%d lines %q on its stderr", n, s), holds: func(log string, _ bool) bool { return strings.Count(log, s) >= n }}
}

// Listening is the event of hostd saying it listens on socket, which it
// says once it accepts connections there.
func Listening(socket string) Event { return Logged("listening on " + socket) }

// Exit is the event of the process's exit.
func Exit() Event {
	return Event{what: "its exit", holds: func(_ string, exited bool) bool { return exited }}
}

// Check is the event of cond holding, where nothing the process writes
// announces it (a file it makes, a socket it removes): Await checks it at
// every write to stderr and every pollEvery.
func Check(what string, cond func() bool) Event {
	return Event{what: what, holds: func(string, bool) bool { return cond() }, polled: true}
}

// Await waits until ev holds, the process exits without it holding, or
// bound passes, and reports whether it held.
func (d *Daemon) Await(ev Event, bound time.Duration) bool {
	timer := time.NewTimer(bound)
	defer timer.Stop()
	var tick <-chan time.Time
	if ev.polled {
		ticker := time.NewTicker(pollEvery)
		defer ticker.Stop()
		tick = ticker.C
	}
	for {
		d.mu.Lock()
		log, wrote := d.log.String(), d.wrote
		d.mu.Unlock()
		select {
		case <-d.exited:
			return ev.holds(d.Log(), true)
		default:
		}
		if ev.holds(log, false) {
			return true
		}
		select {
		case <-wrote:
		case <-d.exited:
		case <-tick:
		case <-timer.C:
			return ev.holds(d.Log(), false)
		}
	}
}

// Require is Await that ends the test, with the process's stderr, when ev
// does not hold within bound.
func (d *Daemon) Require(ev Event, bound time.Duration) {
	d.tb.Helper()
	if !d.Await(ev, bound) {
		state := "still running"
		select {
		case <-d.exited:
			state = fmt.Sprintf("exited (%v)", d.err)
		default:
		}
		d.tb.Fatalf("%s: waited %v for %s, in vain; it is %s; its stderr:\n%s", filepath.Base(d.opts.Bin), bound, ev, state, d.Log())
	}
}

// ExitCode waits up to bound for the process to exit and returns its
// exit code; a process still running then, or one that could not be
// waited for, ends the test.
func (d *Daemon) ExitCode(bound time.Duration) int {
	d.tb.Helper()
	d.Require(Exit(), bound)
	if d.Cmd.ProcessState == nil {
		d.tb.Fatal(d.err)
	}
	return d.Cmd.ProcessState.ExitCode()
}

// Stop ends the process gracefully (SIGTERM, or with Stdio its stdin
// closed, as a client that is done closes it) and waits for its exit;
// one that has not exited within the stop timeout is killed.
func (d *Daemon) Stop() {
	if d.opts.Stdio {
		d.Stdin.Close()
	} else {
		d.Cmd.Process.Signal(syscall.SIGTERM)
	}
	bound := d.opts.StopTimeout
	if bound == 0 {
		bound = 15 * time.Second
	}
	select {
	case <-d.exited:
	case <-time.After(bound):
		d.Kill()
	}
}

// Kill ends the process with SIGKILL, as a power cut or the OOM killer
// would (no deferred function, no flush, no socket removal), and waits
// for its exit.
func (d *Daemon) Kill() {
	d.Cmd.Process.Kill()
	<-d.exited
}
