package testenv

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// childEnv makes the test binary a process for the harness to run: its
// value is the part it plays (see TestMain).
const childEnv = "TESTENV_HARNESS_CHILD"

func TestMain(m *testing.M) {
	if part := os.Getenv(childEnv); part != "" {
		os.Exit(playChild(part))
	}
	code := m.Run()
	RemoveBinaries()
	os.Exit(code)
}

// playChild is the child's part: "echo" says it is ready on stderr,
// then copies stdin to stdout and exits 0 when stdin closes; "term" says
// it is ready and exits 3 on SIGTERM; "stubborn" ignores SIGTERM and
// waits for stdin to close; "exit7" writes a last word and exits 7;
// "file" makes the file its first argument names, then waits as "echo".
func playChild(part string) int {
	switch part {
	case "echo":
		fmt.Fprintln(os.Stderr, "ready")
		io.Copy(os.Stdout, os.Stdin)
		return 0
	case "term":
		term := make(chan os.Signal, 1)
		signal.Notify(term, syscall.SIGTERM)
		fmt.Fprintln(os.Stderr, "ready")
		<-term
		fmt.Fprintln(os.Stderr, "terminated")
		return 3
	case "stubborn":
		signal.Ignore(syscall.SIGTERM)
		fmt.Fprintln(os.Stderr, "ready")
		io.Copy(io.Discard, os.Stdin)
		time.Sleep(time.Hour) // not even a closed stdin ends it
		return 0
	case "exit7":
		fmt.Fprintln(os.Stderr, "a last word")
		return 7
	case "file":
		os.WriteFile(os.Args[len(os.Args)-1], []byte("made"), 0o600)
		io.Copy(io.Discard, os.Stdin)
		return 0
	}
	return 2
}

// child starts the test binary in part, with the harness.
func child(t *testing.T, part string, opts Options) *Daemon {
	t.Helper()
	opts.Bin = os.Args[0]
	opts.Args = append([]string{"-test.run=^$"}, opts.Args...)
	opts.Env = append(opts.Env, childEnv+"="+part)
	return Start(t, opts)
}

func TestAwaitWakesOnTheLogAndStdioCarriesData(t *testing.T) {
	d := child(t, "echo", Options{Stdio: true})
	d.Require(Logged("ready"), time.Minute)
	io.WriteString(d.Stdin, "ping\n")
	line, err := bufio.NewReader(d.Stdout).ReadString('\n')
	if line != "ping\n" || err != nil {
		t.Fatalf("read %q, %v through the child's stdout; want ping", line, err)
	}
	d.Stop() // closes stdin: the child's copy ends, it exits 0
	if code := d.ExitCode(time.Minute); code != 0 {
		t.Errorf("exit %d after stdin closed, want 0", code)
	}
}

func TestAwaitReturnsWhenTheProcessExitsWithoutTheEvent(t *testing.T) {
	d := child(t, "exit7", Options{})
	if d.Await(Logged("never written"), time.Hour) {
		t.Fatal("an event the child never caused held")
	}
	// Await returned on the exit, not at its bound: the process is gone.
	select {
	case <-d.Exited():
	default:
		t.Fatal("Await returned false while the child still runs")
	}
	if code := d.ExitCode(time.Minute); code != 7 {
		t.Errorf("exit %d, want 7", code)
	}
	if !strings.Contains(d.Log(), "a last word") {
		t.Errorf("the log lacks the child's last word: %q", d.Log())
	}
}

func TestStopSendsSIGTERM(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows has no SIGTERM to send")
	}
	d := child(t, "term", Options{})
	d.Require(Logged("ready"), time.Minute)
	d.Stop()
	if code := d.ExitCode(time.Minute); code != 3 || !strings.Contains(d.Log(), "terminated") {
		t.Errorf("exit %d, log %q; want 3 after the child saw SIGTERM", code, d.Log())
	}
}

func TestStopKillsWhatOutlivesItsBoundAndKillKills(t *testing.T) {
	d := child(t, "stubborn", Options{Stdio: true, StopTimeout: 100 * time.Millisecond})
	d.Require(Logged("ready"), time.Minute)
	d.Stop()
	if code := d.ExitCode(time.Minute); code == 0 {
		t.Errorf("a child that ignores SIGTERM and a closed stdin exited 0; want it killed")
	}

	k := child(t, "stubborn", Options{Stdio: true})
	k.Require(Logged("ready"), time.Minute)
	k.Kill()
	select {
	case <-k.Exited():
	default:
		t.Fatal("Kill returned before the child exited")
	}
}

func TestCheckEventAndPoll(t *testing.T) {
	path := filepath.Join(TempDir(t), "made")
	d := child(t, "file", Options{Stdio: true, Args: []string{path}})
	d.Require(Check(path+" to exist", func() bool {
		_, err := os.Stat(path)
		return err == nil
	}), time.Minute)

	var n atomic.Int32
	go func() {
		for range 3 {
			n.Add(1)
		}
	}()
	Until(t, time.Minute, "the counter to reach 3", func() bool { return n.Load() == 3 })
	if Poll(20*time.Millisecond, func() bool { return false }) {
		t.Error("Poll reported a condition that never held")
	}
}

func TestBinaryBuildsOnce(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skipf("no go command to build with: %v", err)
	}
	a := Binary(t, "internal/testcount")
	b := Binary(t, "internal/testcount")
	if a != b {
		t.Errorf("two builds of one package: %s and %s", a, b)
	}
	if _, err := os.Stat(a); err != nil {
		t.Error(err)
	}
}
