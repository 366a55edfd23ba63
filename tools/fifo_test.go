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
	"github.com/hostd-dev/hostd/rpc/wire"
)

// A FIFO with no writer blocks an ordinary open forever. read, grep and
// write must refuse it without opening it that way.
func TestFIFOIsNotAFileAndNeverBlocks(t *testing.T) {
	e := newProdEnv(t, config.DefaultLimits())
	e.put("a.txt", "pipe\n")
	if err := syscall.Mkfifo(filepath.Join(e.root, "pipe"), 0o644); err != nil {
		t.Skipf("cannot make a FIFO here: %v", err)
	}
	// Reading a FIFO with no writer blocks for good: each call answering
	// at all (within the hang guard) is the event that says none opened it.
	within(t, time.Minute, func() {
		e.failure("read", `{"path":"pipe"}`, wire.ToolNotAFile)
		e.failure("grep", `{"pattern":"x","path":"pipe"}`, wire.ToolNotAFile)
		e.failure("write", `{"path":"pipe","content":"x"}`, wire.ToolNotAFile)
		r := e.grep(`{"pattern":"pipe"}`)
		if !slices.Equal(r.Files, []string{"a.txt"}) {
			t.Errorf("grep over a directory with a FIFO: files %v", r.Files)
		}
	})
}
