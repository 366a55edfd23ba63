//go:build unix

package tools

// FIFOs: a file type Windows does not have.

import (
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/config"
)

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
