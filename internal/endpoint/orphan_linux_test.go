package endpoint

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The test binary plays a daemon that listens and then forks an orphan:
// a child that keeps a copy of the lock, of the listener, or of both, as
// a child forked and not yet exec'd does, and outlives the daemon until
// its stdin (a pipe the test holds, passed on as descriptor 3) ends.
const (
	standInDaemon = "endpoint-test-daemon"
	standInOrphan = "endpoint-test-orphan"
)

func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == standInDaemon {
		standIn(os.Args[2], os.Args[3])
		return
	}
	if len(os.Args) > 1 && os.Args[1] == standInOrphan {
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n') // until EOF
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// standIn listens on path, starts an orphan holding what holds names
// (lock, listener, both), says "ready" and waits to be killed.
func standIn(path, holds string) {
	l, err := Listen(path)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	lf, err := l.UnixListener.File()
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	cmd := exec.Command(os.Args[0], standInOrphan)
	cmd.Stdin = os.NewFile(3, "release")
	switch holds {
	case "lock":
		cmd.ExtraFiles = []*os.File{l.lock}
	case "listener":
		cmd.ExtraFiles = []*os.File{lf}
	default:
		cmd.ExtraFiles = []*os.File{l.lock, lf}
	}
	if err := cmd.Start(); err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	fmt.Println("ready")
	select {}
}

// orphaned runs the stand-in daemon on path, kills it once its orphan
// holds what holds names, and returns the function that ends the orphan.
func orphaned(t *testing.T, path, holds string) (release func()) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], standInDaemon, path, holds)
	cmd.ExtraFiles = []*os.File{r}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r.Close()
	line, _ := bufio.NewReader(out).ReadString('\n')
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if line != "ready\n" {
		w.Close()
		t.Fatalf("the stand-in daemon: %q", line)
	}
	var once bool
	release = func() {
		if !once {
			once = true
			w.Close()
		}
	}
	t.Cleanup(release)
	return release
}

// TestAnOrphanedListenerIsReplaced: the daemon is dead, an orphan of it
// holds a copy of its listener (so a probe connects) but not the lock. A
// start replaces the socket at once, and a client reaches the new
// listener, not the orphan's.
func TestAnOrphanedListenerIsReplaced(t *testing.T) {
	path := filepath.Join(shortDir(t), "hostd.sock")
	orphaned(t, path, "listener")
	if c, err := net.Dial("unix", path); err != nil {
		t.Fatalf("the orphan does not hold the listener, so this tests nothing: %v", err)
	} else {
		c.Close()
	}
	l, err := Listen(path)
	if err != nil {
		t.Fatalf("a start beside an orphaned listener of a dead daemon: %v", err)
	}
	defer l.Close()
	accepted := make(chan error, 1)
	go func() {
		c, err := l.Accept()
		if err == nil {
			c.Close()
		}
		accepted <- err
	}()
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if err := <-accepted; err != nil {
		t.Fatalf("the new listener did not get the client: %v", err)
	}
}

// TestALockHeldByAnOrphanIsWaitedFor: the daemon is dead and an orphan of
// it holds the lock and the listener. A start waits for the orphan to let
// go (at its exec, here its exit) instead of refusing, then listens.
func TestALockHeldByAnOrphanIsWaitedFor(t *testing.T) {
	path := filepath.Join(shortDir(t), "hostd.sock")
	release := orphaned(t, path, "both")
	claimed := make(chan error, 1)
	var claim *Claim
	go func() {
		var err error
		claim, err = ClaimAddress(path)
		claimed <- err
	}()
	release()
	if err := <-claimed; err != nil {
		t.Fatalf("a start while an orphan of the dead daemon held the lock: %v", err)
	}
	l, err := claim.Listen()
	if err != nil {
		t.Fatalf("listening once the orphan let go: %v", err)
	}
	l.Close()
}

// TestALockWhoseNamedDaemonLivesIsLive: the lock file names a live
// process: the start is refused at once, naming it (the live daemon).
func TestALockWhoseNamedDaemonLivesIsLive(t *testing.T) {
	path := filepath.Join(shortDir(t), "hostd.sock")
	first, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	_, err = ClaimAddress(path)
	var live *LiveError
	if !errors.As(err, &live) || live.PID != os.Getpid() {
		t.Fatalf("a second claim beside a live daemon: %v", err)
	}
}
