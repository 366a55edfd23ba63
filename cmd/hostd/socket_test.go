package main

import (
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
)

// shortDir is a private temporary directory whose path is short enough
// for a Unix socket name.
func shortDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "hd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func TestSocketDirectoryIsCreatedPrivate(t *testing.T) {
	path := filepath.Join(shortDir(t), "run", "hostd", "hostd.sock")
	l, err := listenSocket(path, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	dir, _ := os.Stat(filepath.Dir(path))
	sock, _ := os.Stat(path)
	if dir.Mode().Perm() != 0o700 || sock.Mode().Perm() != 0o600 || sock.Mode().Type() != fs.ModeSocket {
		t.Errorf("directory %v, socket %v: want 0700 and a 0600 socket", dir.Mode(), sock.Mode())
	}
}

func TestSocketDirectoryMustBePrivate(t *testing.T) {
	base := shortDir(t)
	open := filepath.Join(base, "open")
	os.Mkdir(open, 0o755)
	os.Chmod(open, 0o755)
	link := filepath.Join(base, "link")
	os.Symlink(base, link)
	for _, tt := range []struct{ dir, says string }{
		{open, "0755"},
		{link, "symlink"},
	} {
		_, err := listenSocket(filepath.Join(tt.dir, "hostd.sock"), zap.NewNop())
		if err == nil || !strings.Contains(err.Error(), tt.says) {
			t.Errorf("%s: %v, want an error saying %q", tt.dir, err, tt.says)
		}
	}
}

func TestALiveSocketIsNeverStolen(t *testing.T) {
	path := filepath.Join(shortDir(t), "hostd.sock")
	first, err := listenSocket(path, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	_, err = listenSocket(path, zap.NewNop())
	if !errors.Is(err, errLive) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "pid "+strconv.Itoa(os.Getpid())) {
		t.Fatalf("second listener: %v; want errLive naming the socket and the live pid", err)
	}
	// The first still accepts.
	go func() {
		if c, err := first.Accept(); err == nil {
			c.Close()
		}
	}()
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatalf("the live socket was disturbed: %v", err)
	}
	c.Close()
}

func TestAStaleSocketIsReplaced(t *testing.T) {
	path := filepath.Join(shortDir(t), "hostd.sock")
	stale, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	stale.SetUnlinkOnClose(false)
	stale.Close() // the file stays; nobody answers on it
	l, err := listenSocket(path, zap.NewNop())
	if err != nil {
		t.Fatalf("stale socket not replaced: %v", err)
	}
	l.Close()
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Close must remove the socket file: %v", err)
	}
}

func TestANonSocketFileIsNotRemoved(t *testing.T) {
	path := filepath.Join(shortDir(t), "hostd.sock")
	os.WriteFile(path, []byte("mine"), 0o600)
	if _, err := listenSocket(path, zap.NewNop()); err == nil || !strings.Contains(err.Error(), "not a socket") {
		t.Fatalf("got %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "mine" {
		t.Error("the file was touched")
	}
}

func TestPeersOfAnotherUIDAreRefused(t *testing.T) {
	path := filepath.Join(shortDir(t), "hostd.sock")
	l, err := listenSocket(path, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	l.uid = os.Getuid() + 1 // as if we ran as someone else

	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := l.Accept()
		if err == nil {
			accepted <- c
		}
	}()
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Read(make([]byte, 1)); !errors.Is(err, io.EOF) && !strings.Contains(fmtErr(err), "reset") {
		t.Errorf("a refused peer must see the connection closed, got %v", err)
	}
	select {
	case <-accepted:
		t.Error("Accept returned a peer of another uid")
	case <-time.After(100 * time.Millisecond):
	}
}

func fmtErr(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
