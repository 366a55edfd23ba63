package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hostd-dev/hostd/internal/testenv"
)

// A session lets go of its workspace's directories when it ends (deleted,
// or switched to another workspace), not when the daemon's garbage
// collector gets to them: on Windows a directory held open cannot be
// deleted or renamed, so a person could not remove a project an ended
// session had used. Here the daemon's descriptors show it.
func TestE2ESessionEndClosesItsRoots(t *testing.T) {
	d := startDaemon(t, "")
	c := d.client()
	pid := d.Cmd.Process.Pid
	proj := make([]string, 2)
	for i := range proj {
		dir, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		proj[i] = dir
	}
	read := func(id string) {
		t.Helper()
		var res map[string]any
		mustCall(t, c, "tools.execute", map[string]any{"sessionId": id, "tool": "read", "args": map[string]any{"path": "a.txt"}}, &res)
		if res["ok"] != true {
			t.Fatalf("read: %v", res)
		}
	}
	want := func(when string, dir string, n int) {
		t.Helper()
		got, ok := testenv.OpenUnder(pid, dir)
		if !ok {
			t.Fatal("/proc lists no descriptors of the daemon")
		}
		if got != n {
			t.Errorf("%s: the daemon has %d descriptors open under %s, want %d", when, got, dir, n)
		}
	}

	mustCall(t, c, "session.create", map[string]any{"workspace": proj[0], "sessionId": "s1"}, nil)
	read("s1")
	want("a live session", proj[0], 1)
	// Re-attaching opens the root to check it and lets go of that copy.
	mustCall(t, c, "session.create", map[string]any{"workspace": proj[0], "sessionId": "s1"}, nil)
	want("after a re-attach", proj[0], 1)

	mustCall(t, c, "session.setWorkspace", map[string]any{"workspace": proj[1], "sessionId": "s1"}, nil)
	want("after a switch away", proj[0], 0)
	read("s1")
	want("after a switch to it", proj[1], 1)

	mustCall(t, c, "session.delete", map[string]any{"sessionId": "s1"}, nil)
	want("after the delete", proj[1], 0)
}
