//go:build unix

package tools

// FIFOs: a file type Windows does not have.

import (
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hostd-dev/hostd/config"
)

// A FIFO put where the walk listed a regular file is never shown: the
// file is stat'ed before anything found in it is recorded.
func TestGrepNeverShowsAFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.txt")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("cannot make a FIFO here: %v", err)
	}
	g := newTestGrepper(t, "needle", config.DefaultLimits())

	// No writer: the open does not block and the read finds nothing.
	if r, _ := searchCounted(t, g, dir, "pipe.txt"); r.count != 0 || r.file != nil {
		t.Errorf("a FIFO without a writer: %d matches, file %v", r.count, r.file)
	}

	// A writer with a matching line pending: the match is not shown.
	w, err := os.OpenFile(fifo, os.O_RDWR, 0) // read-write: never blocks
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.WriteString("a needle\n"); err != nil {
		t.Fatal(err)
	}
	r, _ := searchCounted(t, g, dir, "pipe.txt")
	if r.file != nil || r.skip == nil || r.skip.Code != CodeNotAFile {
		t.Errorf("a FIFO holding a match: file %v, skip %v; want it skipped as %s", r.file, r.skip, CodeNotAFile)
	}
}

// A FIFO with no writer blocks an ordinary open forever. read, grep and
// write must refuse it without opening it that way.
func TestFIFOIsNotAFileAndNeverBlocks(t *testing.T) {
	e := newProdEnv(t, config.DefaultLimits())
	e.put("a.txt", "pipe\n")
	if err := syscall.Mkfifo(filepath.Join(e.root, "pipe"), 0o644); err != nil {
		t.Skipf("cannot make a FIFO here: %v", err)
	}
	start := time.Now()
	within(t, 5*time.Second, func() {
		e.failure("read", `{"path":"pipe"}`, CodeNotAFile)
		e.failure("grep", `{"pattern":"x","path":"pipe"}`, CodeNotAFile)
		e.failure("write", `{"path":"pipe","content":"x"}`, CodeNotAFile)
		r := e.grep(`{"pattern":"pipe"}`)
		if !slices.Equal(r.Files, []string{"a.txt"}) {
			t.Errorf("grep over a directory with a FIFO: files %v", r.Files)
		}
	})
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v", d)
	}
}
