//go:build linux

package spawn

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/internal/testenv"
)

// The test binary plays every part: the spawner (Command), a child that
// echoes its stdin (echoMode), and a stand-in daemon that starts a
// spawner and a child and then waits to be killed (daemonMode).
const (
	echoMode   = "spawn-test-echo"
	pwdMode    = "spawn-test-pwd"
	daemonMode = "spawn-test-daemon"
)

func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case Command:
			if err := Serve(); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			os.Exit(0)
		case pwdMode:
			wd, _ := os.Getwd()
			fmt.Println(wd)
			os.Exit(0)
		case echoMode:
			fmt.Fprintln(os.Stderr, "echo child ready")
			_, _ = io.Copy(os.Stdout, os.Stdin)
			os.Exit(0)
		case daemonMode:
			runStandIn()
		}
	}
	os.Exit(m.Run())
}

// runStandIn starts a spawner and one child through it, prints both pids
// and waits to be killed.
func runStandIn() {
	s, err := Start(os.Args[0], Command)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	p, err := s.Run(os.Args[0], []string{os.Args[0], echoMode})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	fmt.Println(s.PID(), p.PID)
	select {}
}

func start(t *testing.T) *Spawner {
	t.Helper()
	s, err := Start(os.Args[0], Command)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// RunIn starts the child in the directory it names (a language server
// in its workspace root).
func TestAChildStartsInItsDirectory(t *testing.T) {
	s := start(t)
	dir := testenv.TempDir(t)
	p, err := s.RunIn(dir, os.Args[0], []string{os.Args[0], pwdMode})
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(p.Stdout)
	if err != nil {
		t.Fatal(err)
	}
	<-p.Done()
	if strings.TrimSpace(string(got)) != dir {
		t.Fatalf("the child's directory is %q, want %q", got, dir)
	}
	if _, err := s.RunIn(filepath.Join(dir, "missing"), os.Args[0], []string{os.Args[0], pwdMode}); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("a start in a missing directory: %v, want its error", err)
	}
}

// Wait keeps what the child wrote to stderr and returns how it exited.
func TestWaitKeepsTheChildsStderr(t *testing.T) {
	s := start(t)
	p, err := s.Run(os.Args[0], []string{os.Args[0], echoMode})
	if err != nil {
		t.Fatal(err)
	}
	p.Stdin.Close() // it ends when its stdin does
	var stderr strings.Builder
	if st := p.Wait(&stderr); st != "exit status 0" || stderr.String() != "echo child ready\n" {
		t.Fatalf("Wait: %q, stderr %q; want exit status 0 and its line", st, stderr.String())
	}
	p.Stdout.Close()
}

func TestAChildAnswersThroughItsPipes(t *testing.T) {
	s := start(t)
	p, err := s.Run(os.Args[0], []string{"echo-child", echoMode})
	if err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(p.Stderr).ReadString('\n')
	if err != nil || line != "echo child ready\n" {
		t.Fatalf("its stderr: %q, %v", line, err)
	}
	if cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p.PID)); !strings.HasPrefix(underEmulator(string(cmdline)), "echo-child\x00") {
		t.Errorf("its command line is %q, want the name it was given first", cmdline)
	}
	if _, err := p.Stdin.Write([]byte("hello\n")); err != nil {
		t.Fatal(err)
	}
	got, err := bufio.NewReader(p.Stdout).ReadString('\n')
	if err != nil || got != "hello\n" {
		t.Fatalf("its stdout: %q, %v", got, err)
	}
	p.Stdin.Close() // it ends when its stdin does
	<-p.Done()
	if p.Status() != "exit status 0" {
		t.Errorf("it exited with %q", p.Status())
	}
	p.Stdout.Close()
	p.Stderr.Close()
}

func TestKillEndsAChild(t *testing.T) {
	s := start(t)
	p, err := s.Run(os.Args[0], []string{os.Args[0], echoMode})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	<-p.Done()
	if p.Status() != "signal: killed" {
		t.Errorf("killed, it exited with %q", p.Status())
	}
	if err := p.Kill(); err != nil { // once it has gone, nothing is signalled
		t.Errorf("a second kill: %v", err)
	}
}

func TestAStartThatFailsSaysWhy(t *testing.T) {
	s := start(t)
	_, err := s.Run(filepath.Join(t.TempDir(), "missing"), []string{"missing"})
	if err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Fatalf("starting a missing program: %v", err)
	}
	// The spawner goes on serving.
	p, err := s.Run(os.Args[0], []string{os.Args[0], echoMode})
	if err != nil {
		t.Fatal(err)
	}
	p.Stdin.Close()
	<-p.Done()
}

// TestChildrenHoldNothingOpenedAfterStart is the reason for the package:
// what the daemon opens after starting its spawner (its socket's lock and
// listener) is held by no process the spawner starts, nor by the spawner.
func TestChildrenHoldNothingOpenedAfterStart(t *testing.T) {
	s := start(t)
	secret := filepath.Join(t.TempDir(), "lock")
	f, err := os.Create(secret)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := s.Run(os.Args[0], []string{os.Args[0], echoMode})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { p.Stdin.Close(); <-p.Done() }()
	if _, err := bufio.NewReader(p.Stderr).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	for _, pid := range []int{s.PID(), p.PID} {
		entries, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if target, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, e.Name())); target == secret {
				t.Errorf("pid %d holds %s (descriptor %s)", pid, secret, e.Name())
			}
		}
	}
}

func TestCloseEndsTheSpawnerAndItsChildren(t *testing.T) {
	s, err := Start(os.Args[0], Command)
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Run(os.Args[0], []string{os.Args[0], echoMode})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	<-p.Done()
	// The spawner has exited; its child was sent its parent-death signal
	// then, and is waited for by its exit (the kernel runs the dying
	// process when it can).
	if alive(s.PID()) || !goneWithin(p.PID, time.Minute) {
		t.Errorf("after Close: spawner alive %v, child alive %v", alive(s.PID()), alive(p.PID))
	}
	if _, err := s.Run(os.Args[0], []string{os.Args[0], echoMode}); err == nil {
		t.Error("a start after Close succeeded")
	}
}

// TestTheSpawnerAndItsChildrenDieWithTheDaemon: a stand-in daemon that
// started a spawner and a child is SIGKILLed; both must go with it (the
// parent-death signals), waited for by event: each pid's exit.
func TestTheSpawnerAndItsChildrenDieWithTheDaemon(t *testing.T) {
	cmd := exec.Command(os.Args[0], daemonMode)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		_ = cmd.Process.Kill()
		t.Fatalf("the stand-in daemon: %q, %v", line, err)
	}
	var spawner, child int
	if _, err := fmt.Sscan(line, &spawner, &child); err != nil {
		_ = cmd.Process.Kill()
		t.Fatalf("the stand-in daemon said %q", line)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	for _, pid := range []int{spawner, child} {
		if !goneWithin(pid, time.Minute) {
			t.Errorf("pid %d outlived the daemon that started it", pid)
		}
	}
}

// alive reports whether pid runs (a zombie does not count: it has ended
// and waits for its parent).
func alive(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(data), ") ")
	return !strings.HasPrefix(rest, "Z") && !strings.HasPrefix(rest, "X")
}

// goneWithin polls for pid's end; the bound is a failure's, not a
// verdict on speed (the kernel signals at once; a loaded machine may be
// slow to run the dying process).
func goneWithin(pid int, d time.Duration) bool {
	return testenv.Poll(d, func() bool { return !alive(pid) })
}

// underEmulator is a command line as the program sees it: under
// qemu-user's binfmt_misc registration with argv[0] preserved (the P
// flag), /proc shows the interpreter and the program's file before the
// program's own argv, which is what the test compares.
func underEmulator(cmdline string) string {
	if first, rest, ok := strings.Cut(cmdline, "\x00"); ok && strings.Contains(first, "qemu") {
		if _, argv, ok := strings.Cut(rest, "\x00"); ok {
			return argv
		}
	}
	return cmdline
}
