package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/internal/budget"
	"github.com/hostd-dev/hostd/rpc/wire"
)

// Concurrent large writes wait for room in the daemon-wide budget rather
// than all holding their payloads at once: the bytes held never pass the
// budget, and every write lands.
func TestLargeWritesShareTheMemoryBudget(t *testing.T) {
	const size = 1 << 20
	b := budget.New(payloadFactor*size*3/2, time.Minute) // room for one at a time
	e := newProdEnv(t, config.DefaultLimits())
	e.x = NewExecutor(Options{Sessions: e.m, Limits: e.lim, Tools: Builtin(), Budget: b})
	content := strings.Repeat(strings.Repeat("z", 63)+"\n", size/64)
	var wg sync.WaitGroup
	for i := range 6 {
		s, err := e.m.Create("", e.s.State().Workspace)
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() { // one session each: a session's own calls never overlap
			raw, _ := json.Marshal(map[string]any{"path": fmt.Sprintf("big%d.txt", i), "content": content})
			out, err := e.x.Execute(context.Background(), Request{SessionID: s.ID, Tool: "write", Args: raw})
			if err != nil || !out.Base().OK {
				t.Errorf("write %d: %v %v", i, err, out)
			}
		})
	}
	wg.Wait()
	s := b.Stats()
	if s.PeakBytes > s.LimitBytes || s.InUseBytes != 0 {
		t.Fatalf("budget %+v: held past the limit or leaked", s)
	}
	if s.Waits == 0 {
		t.Fatalf("budget %+v: no write ever waited, the test proved nothing", s)
	}
}

// Past the budget's wait bound a write is refused with the retriable
// HOST_BUSY and writes nothing; a file the budget could never hold is
// FILE_TOO_LARGE, which no retry fixes.
func TestOverBudgetIsHostBusy(t *testing.T) {
	b := budget.New(payloadFactor*4096, 20*time.Millisecond)
	e := newProdEnv(t, config.DefaultLimits())
	e.x = NewExecutor(Options{Sessions: e.m, Limits: e.lim, Tools: Builtin(), Budget: b})
	hold, err := b.Acquire(context.Background(), payloadFactor*4096, "another call")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(map[string]any{"path": "a.txt", "content": "hello\n"})
	out, _ := e.x.Execute(context.Background(), Request{SessionID: e.s.ID, Tool: "write", Args: raw})
	r := out.Base()
	if r.OK || r.Error.Code != wire.ToolHostBusy || !r.Error.Retriable {
		t.Fatalf("got ok=%v %+v, want retriable HOST_BUSY", r.OK, r.Error)
	}
	if _, err := os.Lstat(filepath.Join(e.root, "a.txt")); err == nil {
		t.Fatal("a refused write created the file")
	}
	hold()
	e.write(map[string]any{"path": "a.txt", "content": "hello\n"})
	e.failure("write", map[string]any{"path": "b.txt", "content": strings.Repeat("x", 8192)}, wire.ToolFileTooLarge)
}
