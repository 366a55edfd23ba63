package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/internal/testenv"
)

// buildBinaries builds the real hostd and hostctl, as a user would get
// them from `go build`, once per test run; each is alone in its directory.
func buildBinaries(t *testing.T) (hostd, hostctl string) {
	t.Helper()
	return testenv.Binary(t, "cmd/hostd"), testenv.Binary(t, "cmd/hostctl")
}

// startHostd runs the real daemon on socket and waits until it listens.
func startHostd(t *testing.T, bin, socket string) *testenv.Daemon {
	t.Helper()
	d := testenv.Start(t, testenv.Options{Bin: bin, Args: []string{"--socket", socket, "--state-dir", t.TempDir()}})
	d.Require(testenv.Listening(socket), 15*time.Second)
	return d
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
	watch := testenv.Start(t, testenv.Options{Bin: hostctl, Args: []string{"watch", "e2e"}, Env: []string{"HOSTD_SOCKET=" + socket}, Stdio: true})
	lines := make(chan string, 16)
	go func() {
		defer close(lines)
		buf := make([]byte, 4096)
		var acc string
		for {
			n, err := watch.Stdout.Read(buf)
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
	watch.Require(testenv.Logged("watching"), 10*time.Second)
	hc("call", "tools.execute", `{"sessionId":"e2e","toolCallId":"w-1","tool":"write","args":{"path":"a.txt","content":"one\ntwo\n"}}`)
	select {
	case line := <-lines:
		for _, want := range []string{"e2e", "w-1", "write create a.txt", "+2 -0"} {
			if !strings.Contains(line, want) {
				t.Errorf("watch printed %q, lacking %q", line, want)
			}
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("watch printed nothing for a recorded write; stderr: %s", watch.Log())
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
	if code := watch.ExitCode(20 * time.Second); code != exitFailed {
		t.Errorf("watch after the daemon stopped: exit %d, want %d; stderr %s", code, exitFailed, watch.Log())
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

// realHostctl builds hostd and hostctl, starts the daemon on a socket of
// the test's own, and returns a runner of the hostctl binary against it
// (its stdout; a failure ends the test), the binary and the socket.
func realHostctl(t *testing.T) (hc func(args ...string) string, hostctl, socket string) {
	t.Helper()
	var hostd string
	hostd, hostctl = buildBinaries(t)
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
