package rpc

import (
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/internal/budget"
)

// unfinished sends a frame of n bytes on a new connection, all but its
// last byte, and leaves it hanging (issue: 40 connections each holding
// 20 MiB of an unfinished frame grew the daemon to 1.3-1.5 GB).
func (h *harness) unfinished(id, n int) net.Conn {
	h.t.Helper()
	nc, err := net.Dial("unix", h.sock)
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { nc.Close() })
	head := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"host.info","params":{"x":"`, id)
	frame := fmt.Sprintf("Content-Length: %d\r\n\r\n%s%s", n, head, strings.Repeat("a", n-len(head)-1))
	go nc.Write([]byte(frame)) // blocks while the daemon does not read; ends when nc closes
	return nc
}

// Many connections sending large frames at once take turns for the
// daemon's memory budget: what is in flight never exceeds it, the heap
// stays near it, small calls are still served, a frame that finds no room
// in time is answered OVERLOADED, and one larger than the whole budget
// closes its connection.
func TestFramesInFlightStayWithinTheBudget(t *testing.T) {
	const limit = 16 << 20
	conns, frame := stressSize(40, 200), 2<<20
	b := budget.New(limit, 300*time.Millisecond)
	h := newHarness(t, withBudget(b))
	heap := heapAfterGC()

	for i := range conns {
		h.unfinished(i+1, frame)
	}
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		if st := b.Stats(); st.InUseBytes > limit {
			t.Fatalf("in use %d bytes, over the budget of %d", st.InUseBytes, limit)
		}
		time.Sleep(10 * time.Millisecond)
	}
	st := b.Stats()
	grown := int64(heapAfterGC()) - int64(heap)
	t.Logf("%d connections each sending %d MiB: budget %+v, heap grew %d MiB", conns, frame>>20, st, grown>>20)
	if st.PeakBytes > limit || st.InUseBytes < limit-int64(frame) {
		t.Errorf("budget %+v: want it full of unfinished frames, never over %d", st, limit)
	}
	if grown > 2*limit+16<<20 {
		t.Errorf("heap grew %d MiB with a budget of %d MiB", grown>>20, limit>>20)
	}

	// Small calls do not take from the budget: served, not OVERLOADED.
	mustCall(t, h.client(), "host.info", nil, nil)

	// A large call waits, then is refused as retriable, naming its id.
	r := h.raw()
	big := `{"jsonrpc":"2.0","id":"big-1","method":"host.info","params":{"x":"` + strings.Repeat("b", 100<<10) + `"}}`
	r.send(big)
	resp := r.recv()
	if resp.Error == nil || resp.Error.Data.Code != "OVERLOADED" || string(resp.ID) != `"big-1"` || !strings.Contains(resp.Error.Message, "retry") {
		t.Fatalf("want OVERLOADED for big-1, got %+v", resp)
	}
	r.send(`{"jsonrpc":"2.0","id":2,"method":"session.list"}`)
	if resp := r.recv(); resp.Error != nil {
		t.Fatalf("the connection must go on after OVERLOADED: %+v", resp)
	}

	// More than the whole budget can never be served.
	over := h.raw()
	over.write(fmt.Sprintf("Content-Length: %d\r\n\r\n", limit+1))
	if !over.closed() {
		t.Fatal("a frame over the whole budget did not close its connection")
	}
}

func withBudget(b *budget.Budget) harnessOpt {
	return func(o *Options) { o.Budget = b }
}

// A frame under the budget is served, and its bytes are given back once
// it is answered.
func TestAServedFrameGivesItsBudgetBack(t *testing.T) {
	b := budget.New(1<<20, time.Second)
	lim := config.DefaultLimits()
	h := newHarness(t, withBudget(b), func(o *Options) { o.Limits = lim })
	c := h.raw()
	for i := range 20 {
		c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session.list","params":{"x":"%s"}}`, i, strings.Repeat("c", 600<<10)))
		if r := c.recv(); r.Error == nil || r.Error.Data.Code != "INVALID_PARAMS" {
			t.Fatalf("want INVALID_PARAMS for the unknown field, got %+v", r)
		}
	}
	c.send(`{"jsonrpc":"2.0","id":"x","method":"session.list"}`)
	c.recv()
	if st := b.Stats(); st.InUseBytes != 0 || st.Refusals != 0 {
		t.Fatalf("budget after the calls: %+v", st)
	}
}
