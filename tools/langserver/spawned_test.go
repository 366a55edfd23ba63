//go:build linux

package langserver

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/internal/spawn"
	"github.com/hostd-dev/hostd/internal/testenv"
)

// fakeSpawned is fake with the servers started through a process
// spawner of this test binary, as the daemon starts them.
func fakeSpawned(t *testing.T, mode string, opt Options) (*Manager, *spawn.Spawner) {
	t.Helper()
	t.Setenv(fakeEnv, mode) // the spawner's children inherit its environment
	sp, err := spawn.Start(os.Args[0], spawn.Command)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sp.Close)
	opt.Spawner = sp
	m := fake(t, mode, opt)
	return m, sp
}

func parentOf(t *testing.T, pid int) string {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	fields := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	return fields[1]
}

// A server started through the spawner is its child, runs in the
// workspace root, and answers as one started by the daemon does.
func TestServerThroughTheSpawner(t *testing.T) {
	m, sp := fakeSpawned(t, "ok", Options{})
	root := testenv.TempDir(t)
	p := filepath.Join(root, "a.go")
	if _, a, err := change(t, m, root, p, "", false, "one\nERR two\n"); err != nil || !slices.Equal(lines(a), []int{2}) {
		t.Fatalf("after %v err %v; want an error at line 2", a, err)
	}
	st := status(t, m)
	if st.State != StateReady || st.PID == 0 {
		t.Fatalf("status %+v", st)
	}
	if ppid := parentOf(t, st.PID); ppid != fmt.Sprint(sp.PID()) {
		t.Errorf("the server's parent is %s, not the spawner %d", ppid, sp.PID())
	}
	canon, _ := filepath.EvalSymlinks(root)
	if cwd, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", st.PID)); err != nil || cwd != canon {
		t.Errorf("the server runs in %q (%v), not the workspace root %s", cwd, err, canon)
	}
	m.Close()
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", st.PID)); err == nil && parentOf(t, st.PID) == fmt.Sprint(sp.PID()) {
		t.Errorf("the server %d still runs after the manager closed", st.PID)
	}
}

// A server started through the spawner that crashes is restarted, and
// failed after its restarts, with its last words on stderr.
func TestCrashingServerThroughTheSpawner(t *testing.T) {
	m, _ := fakeSpawned(t, "crash", Options{MaxRestarts: 1})
	root := testenv.TempDir(t)
	p := filepath.Join(root, "a.go")
	for i := range 3 {
		if _, _, err := change(t, m, root, p, "", false, "x\n"); err == nil {
			t.Fatalf("change %d: no error from a server that crashes", i)
		}
	}
	st := status(t, m)
	if st.State != StateFailed || st.Restarts != 1 || !strings.Contains(st.LastError, "crashed on a document") {
		t.Fatalf("status %+v: want failed after 1 restart, naming the crash", st)
	}
}
