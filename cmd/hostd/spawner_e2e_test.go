//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/internal/testenv"
	"github.com/hostd-dev/hostd/rpc/wire"
)

// TestE2EOnlyTheDaemonHoldsItsAddress: the daemon forks nothing itself;
// its one child is the process spawner, the parse workers are the
// spawner's, and neither holds any socket of the daemon's (its listener
// among them) or the socket's lock file (package spawn: a child between
// its fork and its exec holds all its parent holds).
func TestE2EOnlyTheDaemonHoldsItsAddress(t *testing.T) {
	d := startDaemon(t, "")
	c := d.client()
	s := newSession(t, c, t.TempDir())
	w := tool(t, c, s, "write", map[string]any{"path": "a.py", "content": "def f():\n    return 1\n"})
	if e := tool(t, c, s, "edit", map[string]any{"path": "a.py", "tag": w["tag"], "ops": "CUT 1*"}); e["ok"] != true {
		t.Fatalf("a block op: %v", e)
	}
	pid := d.Cmd.Process.Pid
	children := childPIDs(pid)
	if len(children) != 1 || !strings.HasSuffix(cmdline(children[0]), "\x00process-spawner\x00") {
		var lines []string
		for _, c := range children {
			lines = append(lines, fmt.Sprintf("%d %q", c, cmdline(c)))
		}
		t.Fatalf("the daemon's children: %v; want the spawner alone", lines)
	}
	workers := workerPIDs(pid)
	if len(workers) == 0 {
		t.Fatal("no parse worker runs after a block op")
	}
	for _, wk := range workers {
		if f := procStat(wk); len(f) < 2 || f[1] != fmt.Sprint(children[0]) {
			t.Errorf("worker %d's parent is not the spawner %d", wk, children[0])
		}
	}
	// What the daemon alone may hold: its sockets and the lock file.
	held := map[string]bool{d.socket + ".lock": true}
	for _, target := range fdTargets(t, pid) {
		if strings.HasPrefix(target, "socket:") {
			held[target] = true
		}
	}
	for _, p := range append(children, workers...) {
		for fd, target := range fdTargets(t, p) {
			if held[target] {
				t.Errorf("pid %d (%q) holds the daemon's %s as descriptor %s", p, cmdline(p), target, fd)
			}
		}
	}
}

// TestE2EALanguageServerIsTheSpawnersChild: a language server is
// started as a parse worker is, by the spawner, in the workspace root,
// and holds nothing of the daemon's address.
func TestE2EALanguageServerIsTheSpawnersChild(t *testing.T) {
	testenv.LanguageServer(t, "gopls")
	d := startDaemon(t, "")
	c := d.client()
	ws := testenv.TempDir(t)
	s := newSession(t, c, ws)
	tool(t, c, s, "write", map[string]any{"path": "go.mod", "content": "module example.com/m\n\ngo 1.22\n"})
	tool(t, c, s, "write", map[string]any{"path": "a.go", "content": "package m\n\nfunc F() int { return 1 }\n"})
	var srv wire.LanguageServer
	testenv.Until(t, time.Minute, "gopls to be ready", func() bool {
		tool(t, c, s, "diagnostics", map[string]any{"path": "a.go"})
		var ls wire.LanguageServers
		mustCall(t, c, "host.languageServers", nil, &ls)
		if len(ls.Servers) == 1 && ls.Servers[0].State == "ready" {
			srv = ls.Servers[0]
			return true
		}
		return false
	})
	spawners := childPIDs(d.Cmd.Process.Pid)
	if len(spawners) != 1 {
		t.Fatalf("the daemon has %d children; want the spawner alone", len(spawners))
	}
	if f := procStat(srv.PID); len(f) < 2 || f[1] != fmt.Sprint(spawners[0]) {
		t.Fatalf("gopls (pid %d, %q) is not the spawner's (%d) child: %v", srv.PID, cmdline(srv.PID), spawners[0], f)
	}
	canon, _ := filepath.EvalSymlinks(ws)
	if cwd, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", srv.PID)); err != nil || cwd != canon {
		t.Errorf("gopls runs in %q (%v); want the workspace root %s", cwd, err, canon)
	}
	held := map[string]bool{d.socket + ".lock": true}
	for _, target := range fdTargets(t, d.Cmd.Process.Pid) {
		if strings.HasPrefix(target, "socket:") {
			held[target] = true
		}
	}
	for fd, target := range fdTargets(t, srv.PID) {
		if held[target] {
			t.Errorf("gopls holds the daemon's %s as descriptor %s", target, fd)
		}
	}
}

// fdTargets maps each descriptor of pid to what it names.
func fdTargets(t *testing.T, pid int) map[string]string {
	t.Helper()
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range entries {
		if target, err := os.Readlink(filepath.Join(dir, e.Name())); err == nil {
			out[e.Name()] = target
		}
	}
	return out
}

func cmdline(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return string(b)
}
