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
	hostd, hostctl := buildBinaries(t, t.TempDir())
	socket := filepath.Join(shortSocketDir(t), "hostd.sock")
	startHostd(t, hostd, socket)

	hc := func(args ...string) string {
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
