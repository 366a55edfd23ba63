//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
