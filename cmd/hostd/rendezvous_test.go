package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/internal/endpoint"
	"github.com/hostd-dev/hostd/rpc/wire"
)

// Issue 24's two daemons on one state directory, with the environment the
// official MCP SDK's StdioClientTransport passes (and Claude Desktop):
// HOME, LOGNAME, PATH, SHELL, TERM and USER, nothing else.

// Environment variables of the helper process pattern below.
const (
	envNamespace = "HOSTD_TEST_IN_NAMESPACE"
	envBinary    = "HOSTD_TEST_BINARY"
)

// TestE2EOneRendezvousWhateverTheEnvironment runs the scenarios in a
// mount namespace of their own with an empty /run/user, so the user's
// real rendezvous (which no variable moves, and which is the point) is
// this test's alone, and no daemon of the machine is reached.
func TestE2EOneRendezvousWhateverTheEnvironment(t *testing.T) {
	if runtime.GOOS != "linux" || os.Getuid() != 0 {
		t.Skip("a private /run/user needs a mount namespace: Linux, as root")
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("no unshare(1) to make a mount namespace")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(unshare, "--mount", "--propagation", "private", "/bin/sh", "-c",
		`mount -t tmpfs -o mode=0755 hostd-test /run/user && mkdir -m 0700 /run/user/0 && exec "$@"`,
		"sh", self, "-test.run=^TestRendezvousHelper$", "-test.v")
	cmd.Env = append(os.Environ(), envNamespace+"=1", envBinary+"="+hostdBinary(t))
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestRendezvousHelper") {
		t.Fatalf("in the namespace: %v\n%s", err, out)
	}
	t.Logf("in the namespace:\n%s", out)
}

// TestRendezvousHelper is the namespace's side of the test above; run on
// its own it does nothing (the helper process pattern of os/exec's tests).
func TestRendezvousHelper(t *testing.T) {
	if os.Getenv(envNamespace) != "1" {
		return
	}
	if got, want := endpoint.Default(), "/run/user/0/hostd/hostd.sock"; got != want {
		t.Fatalf("the rendezvous is %s, want %s in the namespace", got, want)
	}
	home := t.TempDir()
	sdk := []string{"HOME=" + home, "LOGNAME=root", "PATH=" + os.Getenv("PATH"), "SHELL=/bin/sh", "TERM=dumb", "USER=root"}
	// The app's windows run with a desktop session's variables, pointing
	// somewhere else than the defaults.
	xdg, tmp := filepath.Join(home, "xdg"), filepath.Join(home, "tmp")
	os.Mkdir(xdg, 0o700)
	os.Mkdir(tmp, 0o700)
	app := append([]string{"XDG_RUNTIME_DIR=" + xdg, "TMPDIR=" + tmp}, sdk...)
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("one\n"), 0o644)

	// The app's window starts the shared daemon.
	window := startStdioIn(t, app)
	var info wire.HostInfo
	if err := window.call("host.info", nil, &info); err != nil {
		t.Fatalf("the app's window: %v\n%s", err, window.errText())
	}
	shared := info.PID

	// hostd mcp, launched by an MCP host with the SDK's environment,
	// reaches the same daemon: its session is listed there.
	p := startMCPIn(t, sdk, "--workspace", ws)
	if text, res := p.callTool(t, "read", map[string]any{"path": "a.txt"}); res.IsError {
		t.Fatalf("read through hostd mcp: %s\n%s", text, p.errText())
	}
	var list wire.SessionList
	if err := window.call("session.list", nil, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Sessions) != 1 || !strings.HasPrefix(list.Sessions[0].SessionID, "mcp-") {
		t.Errorf("the app's daemon lists %+v, want hostd mcp's session: hostd mcp reached another daemon\n%s", list.Sessions, p.errText())
	}
	other := startStdioIn(t, sdk)
	if err := other.call("host.info", nil, &info); err != nil || info.PID != shared {
		t.Errorf("a window with the SDK's environment reached pid %d (%v), the app's daemon is %d", info.PID, err, shared)
	}

	// --standalone while the shared daemon runs: a daemon of its own, on
	// a store of its own, whose first calls work.
	alone := startStdioIn(t, sdk, "--standalone")
	standalone(t, alone, ws, shared)

	// And the other way round: with the standalone one running, the
	// shared daemon stops and a new window starts a new one.
	if err := window.call("host.shutdown", nil, nil); err != nil {
		t.Fatal(err)
	}
	waitGone(t, shared)
	again := startStdioIn(t, sdk)
	if err := again.call("host.info", nil, &info); err != nil || info.PID == shared {
		t.Fatalf("a window after the shared daemon stopped: pid %d, %v\n%s", info.PID, err, again.errText())
	}
	standalone(t, alone, ws, info.PID)
	if err := again.call("host.shutdown", nil, nil); err != nil {
		t.Fatal(err)
	}
}

// standalone checks that s serves in its own process (not the shared
// daemon's pid) and that a session and a write work there.
func standalone(t *testing.T, s *stdioClient, ws string, shared int) {
	t.Helper()
	var info wire.HostInfo
	if err := s.call("host.info", nil, &info); err != nil || info.PID != s.Cmd.Process.Pid || info.PID == shared {
		t.Fatalf("--standalone: pid %d (%v), its own is %d, the shared daemon's %d\n%s", info.PID, err, s.Cmd.Process.Pid, shared, s.errText())
	}
	id := "alone-" + time.Now().Format("150405.000000000")
	if err := s.call("session.create", wire.SessionCreateParams{Workspace: ws, SessionID: id}, nil); err != nil {
		t.Fatalf("--standalone: %v\n%s", err, s.errText())
	}
	var res struct {
		OK bool `json:"ok"`
	}
	args := `{"path":"` + id + `.txt","content":"x\n"}`
	if err := s.call("tools.execute", wire.ExecuteParams{SessionID: id, Tool: "write", Args: []byte(args)}, &res); err != nil || !res.OK {
		t.Fatalf("--standalone write: %+v %v\n%s", res, err, s.errText())
	}
}
