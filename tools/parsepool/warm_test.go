package parsepool

import (
	"context"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/internal/testenv"
	"github.com/hostd-dev/hostd/tools/blocks"
)

// startedWorkers is a pool of count workers with one already running, as
// the daemon's is once it has started.
func startedWorkers(t *testing.T, count int) *Workers {
	t.Helper()
	w := newTestWorkers(t, count, "")
	w.Start()
	testenv.Until(t, 10*time.Second, "a worker to start", func() bool { return w.Stats().Running > 0 })
	return w
}

func settle(t *testing.T, w *Workers) {
	t.Helper()
	if err := w.Settle(withBudget(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
}

func treeStats(t *testing.T, w *Workers) blocks.TreeStats {
	t.Helper()
	st, err := w.TreeStats(withBudget(t, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// warmVersions are two versions of a Go file: the one a session read and
// the one its edit leaves.
func warmVersions() (read, edited string) {
	var b strings.Builder
	b.WriteString("package a\n")
	for i := range 400 {
		b.WriteString("\nfunc f" + strings.Repeat("x", i%7) + "() int {\n\treturn 1\n}\n")
	}
	read = b.String()
	return read, strings.Replace(read, "\treturn 1\n", "\treturn 2\n", 1)
}

// TestWarmLeavesTheTreeForTheEdit: a version warmed after a read is
// parsed once, in the background, and the edit's syntax check then finds
// its tree and parses only the new version, incrementally.
func TestWarmLeavesTheTreeForTheEdit(t *testing.T) {
	w := startedWorkers(t, 3)
	lim := config.DefaultLimits().MaxBlockParseBytes
	read, edited := warmVersions()
	w.Warm("a.go", read, lim, 5*time.Second)
	settle(t, w)
	if st := treeStats(t, w); st.Full != 1 || w.Stats().Warms != 1 {
		t.Fatalf("after the warm: trees %+v, %d warms; want the read version parsed once", st, w.Stats().Warms)
	}
	if _, _, err := w.AddedErrors(withBudget(t, 5*time.Second), "a.go", read, true, edited, nil, nil, lim); err != nil {
		t.Fatal(err)
	}
	if st := treeStats(t, w); st.Full != 1 || st.Incremental != 1 || st.Hits < 1 {
		t.Errorf("after the edit's check: trees %+v; want the warmed tree found and the edit parsed from it", st)
	}
	// The same version again is not sent again; a new one is.
	w.Warm("a.go", read, lim, 5*time.Second)
	settle(t, w)
	if n := w.Stats().Warms; n != 1 {
		t.Errorf("a version warmed already was warmed again: %d warms", n)
	}
	w.Warm("a.go", edited+"\n", lim, 5*time.Second)
	settle(t, w)
	if n := w.Stats().Warms; n != 2 {
		t.Errorf("a new version: %d warms, want 2", n)
	}
}

// TestCheckWaitsForTheWarmOfItsFile: an edit that comes while its file's
// read version is being warmed waits for that tree instead of parsing
// the file again on another worker.
func TestCheckWaitsForTheWarmOfItsFile(t *testing.T) {
	w := startedWorkers(t, 3)
	lim := config.DefaultLimits().MaxBlockParseBytes
	read, edited := warmVersions()
	w.Warm("a.go", read, lim, 5*time.Second) // takes the running worker at once
	if _, _, err := w.AddedErrors(withBudget(t, 5*time.Second), "a.go", read, true, edited, nil, nil, lim); err != nil {
		t.Fatal(err)
	}
	if st := treeStats(t, w); st.Full != 1 || st.Incremental != 1 {
		t.Errorf("trees %+v: want the read version parsed once (by the warm) and the edit from it", st)
	}
}

// TestWarmStaysOutOfTheWay: a warm never takes a pool's last free worker,
// and a file without a grammar or over the parse limit is not warmed.
func TestWarmStaysOutOfTheWay(t *testing.T) {
	lim := config.DefaultLimits().MaxBlockParseBytes
	read, _ := warmVersions()
	one := startedWorkers(t, 1)
	one.Warm("a.go", read, lim, 5*time.Second)
	settle(t, one)
	if n := one.Stats().Warms; n != 0 {
		t.Errorf("a pool of one worker warmed %d times", n)
	}
	w := startedWorkers(t, 3)
	w.Warm("a.txt", read, lim, 5*time.Second)
	w.Warm("a.go", read, int64(len(read)-1), 5*time.Second)
	w.Warm("a.go", "", lim, 5*time.Second)
	settle(t, w)
	if n := w.Stats().Warms; n != 0 {
		t.Errorf("%d warms of texts with no grammar, over the limit or empty", n)
	}
}

// TestSettleReturnsWhenNoWorkerCanWarm: warms queued while no worker can
// take them are left for later, and Settle does not wait for them.
func TestSettleReturnsWhenNoWorkerCanWarm(t *testing.T) {
	w := newTestWorkers(t, 2, "") // no worker started
	read, _ := warmVersions()
	w.Warm("a.go", read, config.DefaultLimits().MaxBlockParseBytes, 5*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := w.Settle(ctx); err != nil {
		t.Fatalf("Settle with a warm no worker can take: %v", err)
	}
}

// TestCloseEndsAWorkerBeingStarted: a pool closed while a worker starts
// (a spare, begun by a warm or a request) returns only once that worker
// has ended, so a daemon that exits right after leaves none running. The
// worker takes 300 ms to start here (a shell sleeps, then runs it).
func TestCloseEndsAWorkerBeingStarted(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the slow start is a shell's sleep")
	}
	began := make(chan *exec.Cmd, 1)
	w := newTestWorkers(t, 2, "", func(c *WorkersConfig) {
		command := c.Command
		c.Command = func() (*exec.Cmd, error) {
			cmd, err := command()
			if err != nil {
				return nil, err
			}
			slow := exec.Command("/bin/sh", append([]string{"-c", `sleep 0.3; exec "$0" "$@"`, cmd.Path}, cmd.Args[1:]...)...)
			slow.Env = cmd.Env
			began <- slow
			return slow, nil
		}
	})
	w.Start()
	cmd := <-began // the launch is under way
	w.Close()
	time.Sleep(100 * time.Millisecond) // a launch Close did not wait for has started its process by now
	if cmd.Process != nil && processAlive(cmd.Process.Pid) {
		t.Errorf("worker %d is still running after Close", cmd.Process.Pid)
	}
}
