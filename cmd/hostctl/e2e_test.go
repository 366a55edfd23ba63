package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// buildBinaries builds the real hostd and hostctl into dir, as a user
// would get them from `go build`.
func buildBinaries(t *testing.T, dir string) (hostd, hostctl string) {
	t.Helper()
	hostd, hostctl = filepath.Join(dir, "hostd"), filepath.Join(dir, "hostctl")
	for bin, pkg := range map[string]string{hostd: "../hostd", hostctl: "."} {
		out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go build %s: %v\n%s", pkg, err, out)
		}
	}
	return hostd, hostctl
}

// startHostd runs the real daemon on socket and waits until it accepts.
func startHostd(t *testing.T, bin, socket string) {
	t.Helper()
	var stderr bytes.Buffer
	cmd := exec.Command(bin, "--socket", socket, "--state-dir", t.TempDir())
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	})
	deadline := time.Now().Add(15 * time.Second)
	for {
		if c, err := net.Dial("unix", socket); err == nil {
			c.Close()
			return
		}
		select {
		case err := <-exited:
			t.Fatalf("hostd exited before listening: %v\n%s", err, stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("hostd did not listen on %s within 15s\n%s", socket, stderr.String())
		}
	}
}

// TestAgainstRealHostd runs the hostctl binary against the hostd binary:
// the table names the daemon it reached, and --json is the real
// session.list result, holding the session created through hostctl call.
func TestAgainstRealHostd(t *testing.T) {
	hc, hostctl, socket := realHostctl(t)

	info := hc("info")
	for _, want := range []string{"name      hostd", "protocol  1", "socket    " + socket, "maxFrameBytes", "maxSessions"} {
		if !strings.Contains(info, want) {
			t.Errorf("hostctl info lacks %q:\n%s", want, info)
		}
	}
	pidLine := tableValue(info, "pid")
	if pid, err := strconv.Atoi(pidLine); err != nil || pid <= 0 {
		t.Errorf("hostctl info pid %q is not a process id", pidLine)
	}

	workspace := t.TempDir()
	hc("call", "session.create", `{"workspace":`+strconv.Quote(workspace)+`,"sessionId":"e2e"}`)
	var list struct {
		Sessions []struct {
			SessionID string `json:"sessionId"`
			Workspace string `json:"workspace"`
		} `json:"sessions"`
	}
	out := hc("sessions", "--json")
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("hostctl sessions --json is not JSON: %v\n%s", err, out)
	}
	canon, _ := filepath.EvalSymlinks(workspace)
	if len(list.Sessions) != 1 || list.Sessions[0].SessionID != "e2e" || list.Sessions[0].Workspace != canon {
		t.Errorf("sessions --json = %s, want the one session e2e on %s", out, canon)
	}

	// watch prints each change as it is recorded, of the session it names.
	watch := exec.Command(hostctl, "watch", "e2e")
	watch.Env = append(os.Environ(), "HOSTD_SOCKET="+socket)
	watchOut, err := watch.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var watchErr lockedBuffer
	watch.Stderr = &watchErr
	if err := watch.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 16)
	go func() {
		defer close(lines)
		buf := make([]byte, 4096)
		var acc string
		for {
			n, err := watchOut.Read(buf)
			acc += string(buf[:n])
			for {
				line, rest, ok := strings.Cut(acc, "\n")
				if !ok {
					break
				}
				lines <- line
				acc = rest
			}
			if err != nil {
				return
			}
		}
	}()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(watchErr.String(), "watching") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	hc("call", "tools.execute", `{"sessionId":"e2e","toolCallId":"w-1","tool":"write","args":{"path":"a.txt","content":"one\ntwo\n"}}`)
	select {
	case line := <-lines:
		for _, want := range []string{"e2e", "w-1", "write create a.txt", "+2 -0"} {
			if !strings.Contains(line, want) {
				t.Errorf("watch printed %q, lacking %q", line, want)
			}
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("watch printed nothing for a recorded write; stderr: %s", watchErr.String())
	}

	// session delete drops the live session; its review records stay.
	if out := hc("session", "delete", "e2e"); !strings.Contains(out, "session e2e deleted") {
		t.Errorf("session delete printed %q", out)
	}
	if out := hc("sessions"); strings.Contains(out, "e2e") {
		t.Errorf("the deleted session is still listed:\n%s", out)
	}
	if out := hc("review", "list", "e2e"); !strings.Contains(out, "w-1") {
		t.Errorf("the deleted session's review records are gone:\n%s", out)
	}

	// shutdown stops the daemon; watch then ends with exit 1.
	if out := hc("shutdown"); !strings.Contains(out, "is shutting down") {
		t.Errorf("shutdown printed %q", out)
	}
	waited := make(chan error, 1)
	go func() { waited <- watch.Wait() }()
	select {
	case err := <-waited:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != exitFailed {
			t.Errorf("watch after the daemon stopped: %v, want exit %d; stderr %s", err, exitFailed, watchErr.String())
		}
	case <-time.After(20 * time.Second):
		watch.Process.Kill()
		t.Fatal("watch did not end when the daemon stopped")
	}

	// And the exit status a script checks when the daemon is gone.
	cmd := exec.Command(hostctl, "--socket", filepath.Join(filepath.Dir(socket), "none.sock"), "info")
	var ee *exec.ExitError
	if err := cmd.Run(); !errors.As(err, &ee) || ee.ExitCode() != exitNoDaemon {
		t.Errorf("hostctl info on an empty socket path: %v, want exit %d", err, exitNoDaemon)
	}
}

// tableValue returns the value of a "key  value" row of a key/value table.
func tableValue(table, key string) string {
	for line := range strings.SplitSeq(table, "\n") {
		if rest, ok := strings.CutPrefix(line, key+" "); ok {
			return strings.TrimSpace(rest)
		}
	}
	return ""
}

// lockedBuffer is a bytes.Buffer a child's output goroutine writes while
// the test reads it.
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

// realHostctl builds hostd and hostctl, starts the daemon on a socket of
// the test's own, and returns a runner of the hostctl binary against it
// (its stdout; a failure ends the test), the binary and the socket.
func realHostctl(t *testing.T) (hc func(args ...string) string, hostctl, socket string) {
	t.Helper()
	var hostd string
	hostd, hostctl = buildBinaries(t, t.TempDir())
	socket = filepath.Join(shortSocketDir(t), "hostd.sock")
	startHostd(t, hostd, socket)

	hc = func(args ...string) string {
		t.Helper()
		cmd := exec.Command(hostctl, args...)
		cmd.Env = append(os.Environ(), "HOSTD_SOCKET="+socket)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("hostctl %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
		}
		return stdout.String()
	}
	return hc, hostctl, socket
}
