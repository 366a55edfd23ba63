//go:build unix

package grep

// FIFOs: a file type Windows does not have.

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/internal/testenv"
)

// A FIFO put where the walk listed a regular file is never shown: the
// file is stat'ed before anything found in it is recorded.
func TestGrepNeverShowsAFIFO(t *testing.T) {
	dir := testenv.TempDir(t)
	fifo := filepath.Join(dir, "pipe.txt")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("cannot make a FIFO here: %v", err)
	}
	g := newTestSearch(t, "needle", config.DefaultLimits())

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
	if r.file != nil || r.skip == nil || r.skip.Reason != NotAFile {
		t.Errorf("a FIFO holding a match: file %v, skip %v; want it skipped as not a file", r.file, r.skip)
	}
}
