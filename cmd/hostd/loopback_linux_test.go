package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
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

// The HTTP face serves a loopback connection of this uid, and closes one
// whose client runs as another user unanswered.
func TestOwnerListenerServesOnlyThisUser(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the owner check reads Linux's /proc/net/tcp; elsewhere --http refuses every connection")
	}
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var log lockedBuffer
	ol := &ownerListener{Listener: l, log: &log}
	defer ol.Close()
	served := make(chan net.Conn, 2)
	go func() {
		for {
			c, err := ol.Accept()
			if err != nil {
				return
			}
			served <- c
		}
	}()

	mine, err := net.Dial("tcp4", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer mine.Close()
	select {
	case c := <-served:
		c.Close()
	case <-time.After(10 * time.Second):
		t.Fatal("a connection of this uid was not served")
	}

	if os.Getuid() != 0 {
		t.Skip("connecting as another user needs root; run as root to test the refusal")
	}
	// This test binary dials as uid 65534, from a copy that user may run.
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "hostd-uid")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o755)
	bin, _ := os.ReadFile(self)
	if err := os.WriteFile(filepath.Join(dir, "t"), bin, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(dir, "t"), "-test.run=^TestHelperDialAsAnotherUser$")
	cmd.Env = append(os.Environ(), "HOSTD_TEST_DIAL="+l.Addr().String())
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the dial as uid 65534: %v\n%s", err, out)
	}
	// Closed unread: a FIN (EOF) or, with the request still unread, a
	// reset. A served connection would time out instead (nothing answers
	// in this test) or return bytes.
	if !strings.Contains(string(out), "read 0 bytes: EOF") && !strings.Contains(string(out), "connection reset by peer") {
		t.Errorf("the other user's connection got %s, want it closed unanswered", out)
	}
	select {
	case c := <-served:
		c.Close()
		t.Fatal("a connection of uid 65534 was served")
	default:
	}
	if !strings.Contains(log.String(), "runs as uid 65534, not as you (uid "+strconv.Itoa(os.Getuid())+")") {
		t.Errorf("log: %q", log.String())
	}
}

// TestHelperDialAsAnotherUser is the other user's client of
// TestOwnerListenerServesOnlyThisUser: it dials, sends a request, and
// prints what it reads.
func TestHelperDialAsAnotherUser(t *testing.T) {
	addr := os.Getenv("HOSTD_TEST_DIAL")
	if addr == "" {
		t.Skip("run by TestOwnerListenerServesOnlyThisUser")
	}
	c, err := net.Dial("tcp4", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write([]byte("GET / HTTP/1.0\r\n\r\n"))
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	n, err := io.ReadFull(c, make([]byte, 1))
	fmt.Printf("read %d bytes: %v\n", n, err)
}

// lockedBuffer is a log the accept goroutine writes while the test reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
