package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/hostd-dev/hostd/internal/testenv"
	"github.com/hostd-dev/hostd/review"
	"github.com/hostd-dev/hostd/rpc/wire"
)

// stressSize is a stress test's size: ci by default (seconds), long when
// HOSTD_STRESS=long (minutes), and a quarter of ci under the race
// detector, which is many times slower.
func stressSize(ci, long int) int {
	switch {
	case raceEnabled:
		return max(ci/4, 1)
	case os.Getenv("HOSTD_STRESS") == "long":
		return long
	}
	return ci
}

// recorded is a review.recorded payload of about size bytes.
func recorded(i, size int) review.Recorded {
	return review.Recorded{SessionID: "s", ToolCallID: fmt.Sprintf("tc-%d", i), Entries: []review.Entry{{ReviewEntry: wire.ReviewEntry{
		ID: fmt.Sprintf("rv-%d", i), ToolCallID: fmt.Sprintf("tc-%d", i), Tool: "write", Path: "big.txt", Change: "modify",
		Diff: strings.Repeat("+x\n", size/3), At: time.Now(),
	}}}}
}

// stalled opens a connection that sends one request and then never reads
// again, the way a client whose event loop hung would.
func (h *harness) stalled() net.Conn {
	h.t.Helper()
	nc, err := net.Dial("unix", h.sock)
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { nc.Close() })
	body := `{"jsonrpc":"2.0","id":1,"method":"session.list"}`
	fmt.Fprintf(nc, "Content-Length: %d\r\n\r\n%s", len(body), body)
	return nc
}

// watcher is a healthy client that collects every notification.
func (h *harness) watcher(capacity int) (*jsonrpc2.Conn, chan *jsonrpc2.Request) {
	h.t.Helper()
	n := notes{ch: make(chan *jsonrpc2.Request, capacity)}
	nc, err := net.Dial("unix", h.sock)
	if err != nil {
		h.t.Fatal(err)
	}
	c := jsonrpc2.NewConn(context.Background(), jsonrpc2.NewBufferedStream(nc, jsonrpc2.VSCodeObjectCodec{}), n)
	h.t.Cleanup(func() { c.Close() })
	mustCall(h.t, c, "session.list", nil, &struct{}{}) // connected and served
	return c, n.ch
}

func heapAfterGC() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// A client that stops reading neither holds a goroutine or a payload per
// notification nor delays the notifications of a healthy client
// (issue: goroutines 14 -> 613, 390 MB, 58 of 600 delivered).
func TestASlowClientNeitherLeaksNorStarvesOthers(t *testing.T) {
	n := stressSize(300, 3000)
	size := 200 << 10
	if raceEnabled {
		size = 32 << 10
	}
	_, opt := withReview(t)
	h := newHarness(t, opt)
	for range 3 {
		h.stalled()
	}
	_, notes := h.watcher(n)
	time.Sleep(50 * time.Millisecond) // the stalled requests are read
	goroutines, heap := runtime.NumGoroutine(), heapAfterGC()

	for i := range n {
		h.srv.broadcastRecorded(recorded(i, size))
		select {
		case req := <-notes:
			var got wire.ReviewRecorded
			if err := json.Unmarshal(*req.Params, &got); err != nil || got.ToolCallID != fmt.Sprintf("tc-%d", i) {
				t.Fatalf("notification %d: got %s (%v)", i, got.ToolCallID, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("the healthy client got %d of %d notifications; the stalled ones held it up", i, n)
		}
	}
	if g := runtime.NumGoroutine(); g > goroutines+20 {
		t.Errorf("goroutines grew from %d to %d over %d notifications", goroutines, g, n)
	}
	grown := int64(heapAfterGC()) - int64(heap)
	t.Logf("%d notifications of %d KiB, 3 stalled clients: heap grew %d KiB", n, size>>10, grown>>10)
	if grown > 64<<20 {
		t.Errorf("heap grew %d MiB over %d notifications of %d KiB", grown>>20, n, size>>10)
	}

	// What the stalled clients missed is counted, per connection and in all
	// (under the race detector the test is too small to fill a queue).
	var st wire.Stats
	mustCall(t, h.client(), "debug.stats", nil, &st)
	var perConn int64
	for _, q := range st.Connections.Queues {
		perConn += q.DroppedNotifications
		if q.QueuedBytes > maxQueuedBytes+size {
			t.Errorf("connection %d queues %d bytes", q.Conn, q.QueuedBytes)
		}
	}
	t.Logf("dropped %d notifications; queues %+v", st.Connections.DroppedNotifications, st.Connections.Queues)
	if (!raceEnabled && st.Connections.DroppedNotifications == 0) || perConn > st.Connections.DroppedNotifications {
		t.Errorf("dropped notifications: %d in all, %d on open connections", st.Connections.DroppedNotifications, perConn)
	}
}

// A client that sends requests but does not read the answers holds at
// most its share of calls, and is disconnected once one answer waits
// longer than the write timeout; other clients are served throughout.
func TestAClientThatDoesNotReadItsAnswersIsDisconnected(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.WriteTimeout = 300 * time.Millisecond })
	other := h.client()
	mustCall(t, other, "host.info", nil, nil)
	goroutines := runtime.NumGoroutine()

	nc := h.stalled()
	requests := stressSize(400, 4000)
	go func() {
		// rpc.discover answers tens of kilobytes: the socket buffers fill
		// after a few.
		for i := range requests {
			body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"rpc.discover"}`, i+2)
			if _, err := fmt.Fprintf(nc, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
				return // closed by the server
			}
		}
	}()
	var st wire.Stats
	testenv.Until(t, 10*time.Second, "the connection that does not read to be closed", func() bool {
		mustCall(t, other, "debug.stats", nil, &st)
		if g := runtime.NumGoroutine(); g > goroutines+maxInFlightPerConn+20 {
			t.Fatalf("goroutines grew from %d to %d", goroutines, g)
		}
		return st.Connections.SlowClosed == 1
	})
	nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.Copy(io.Discard, nc); errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("the server did not close the connection: %v", err)
	}
	mustCall(t, other, "host.info", nil, nil)
}
