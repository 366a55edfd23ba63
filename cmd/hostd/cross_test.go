package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/internal/client"
	"github.com/hostd-dev/hostd/internal/testenv"
)

// TestCrossBuildServesStdio drives a hostd built for another platform,
// run through an emulator (.ci/cross: wine for windows/amd64, qemu-user
// for linux/arm64), as a desktop app would: --stdio, a session, a read
// and an edit, and the file on disk afterwards. HOSTD_CROSS_BIN is the
// command line ("wine /path/hostd.exe"); with HOSTD_CROSS_PATHS=wine the
// workspace is handed over as the Windows path wine maps it to. Without
// HOSTD_CROSS_BIN there is nothing to run: the test skips (docs/testing.md).
func TestCrossBuildServesStdio(t *testing.T) {
	cmdline := strings.Fields(os.Getenv("HOSTD_CROSS_BIN"))
	if len(cmdline) == 0 {
		t.Skip("HOSTD_CROSS_BIN is not set: .ci/cross sets it to a hostd built for another platform and the emulator that runs it")
	}
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	state := filepath.Join(dir, "state")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	src := "package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n"
	if err := os.WriteFile(filepath.Join(ws, "main.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	wsArg, stateArg := ws, state
	if os.Getenv("HOSTD_CROSS_PATHS") == "wine" {
		wsArg, stateArg = winePath(t, ws), winePath(t, state)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	args := append(cmdline[1:], "--stdio", "--standalone", "--state-dir", stateArg)
	// Its stderr is in the test log when the test fails.
	d := testenv.Start(t, testenv.Options{Bin: cmdline[0], Args: args, Stdio: true})
	conn := client.New(pipeConn{d.Stdout, d.Stdin}, client.Options{})
	defer conn.Close()

	var info struct {
		Version  string   `json:"version"`
		Grammars []string `json:"grammars"`
	}
	if err := conn.Call(ctx, "host.info", nil, &info); err != nil {
		t.Fatalf("host.info: %v", err)
	}
	t.Logf("hostd %s, %d grammars", info.Version, len(info.Grammars))
	if err := conn.Call(ctx, "session.create", map[string]any{"workspace": wsArg, "sessionId": "cross"}, nil); err != nil {
		t.Fatalf("session.create: %v", err)
	}
	var read struct {
		OK      bool   `json:"ok"`
		Content string `json:"content"`
		Tag     string `json:"tag"`
	}
	if err := conn.Call(ctx, "tools.execute", map[string]any{"sessionId": "cross", "tool": "read", "args": map[string]any{"path": "main.go"}}, &read); err != nil {
		t.Fatalf("read: %v", err)
	}
	if !read.OK || !strings.Contains(read.Content, "4:\tprintln(\"hi\")") {
		t.Fatalf("read answered %+v", read)
	}
	// A line edit and a block op: the block op parses in a parse worker,
	// which the daemon starts from its own binary on that platform.
	ops := "PUT 4:\n+\tprintln(\"hello from the other side\")\nPUT >3*:\n+\n+func two() int { return 2 }"
	var edit struct {
		OK      bool            `json:"ok"`
		Content string          `json:"content"`
		Error   json.RawMessage `json:"error"`
	}
	if err := conn.Call(ctx, "tools.execute", map[string]any{"sessionId": "cross", "tool": "edit", "args": map[string]any{"path": "main.go#" + read.Tag, "ops": ops}}, &edit); err != nil {
		t.Fatalf("edit: %v", err)
	}
	if !edit.OK {
		t.Fatalf("edit refused: %s %s", edit.Content, edit.Error)
	}
	got, err := os.ReadFile(filepath.Join(ws, "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	want := "package main\n\nfunc main() {\n\tprintln(\"hello from the other side\")\n}\n\nfunc two() int { return 2 }\n"
	if string(got) != want {
		t.Fatalf("main.go after the edit:\n%s\nwant:\n%s", got, want)
	}
}

// winePath is the Windows spelling wine gives a Linux path (Z:\...).
func winePath(t *testing.T, p string) string {
	t.Helper()
	out, err := exec.Command("winepath", "-w", p).Output()
	if err != nil {
		t.Fatalf("winepath -w %s: %v", p, err)
	}
	return strings.TrimSpace(string(out))
}

// pipeConn joins a child's stdout and stdin into one connection.
type pipeConn struct {
	io.ReadCloser
	w io.WriteCloser
}

func (p pipeConn) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p pipeConn) Close() error {
	p.w.Close()
	return p.ReadCloser.Close()
}
