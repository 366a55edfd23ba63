package parsepool

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/tools/blocks"
)

// The tests below decide on events: a worker is held by a parse that
// never ends (the spin hook) until its call is cancelled, requests are
// known to wait by the queue's length, and the order of service is what
// the pool reports as it hands each slot over.

// queued is the owners of the requests waiting for a worker, in arrival
// order.
func (w *Workers) queued() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for _, wt := range w.waiters {
		out = append(out, wt.owner)
	}
	return out
}

// hold keeps the pool's one worker in a parse that never ends, for owner,
// until the returned function cancels its call (which ends the worker).
func hold(t *testing.T, w *Workers, owner string) (release func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(withOwner(context.Background(), owner))
	done := make(chan struct{})
	go func() {
		defer close(done)
		r, _ := w.NewResolver(ctx, "held.lua", "x = 1 -- SPIN-FOREVER\n", defaultLimit)
		_, _, _ = r.Resolve(1)
		r.Close()
	}()
	waitFor(t, "the holder to take the worker", func() bool { return w.Stats().Starts > 0 && w.busyOwner(owner) })
	return func() { cancel(); <-done }
}

func (w *Workers) busyOwner(owner string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, s := range w.slots {
		if s.busy && s.owner == owner {
			return true
		}
	}
	return false
}

// resolveAsync starts a block op of owner with the parse time budget and
// reports its error on the channel it returns.
func resolveAsync(w *Workers, owner, name string, budget time.Duration) (<-chan error, context.Context) {
	ctx, cancel := context.WithTimeout(withOwner(context.Background(), owner), budget)
	out := make(chan error, 1)
	go func() {
		defer cancel()
		r, _ := w.NewResolver(ctx, name, "function f() {\n  return 1;\n}\n", defaultLimit)
		s, e, err := r.Resolve(1)
		if err == nil && (s != 1 || e != 3) {
			err = errors.New("the wrong block")
		}
		r.Close()
		out <- err
	}()
	return out, ctx
}

// TestAWaitForAWorkerIsNotParseTime: a block op whose parse time runs
// out while every worker is busy is served once one frees up, not
// declined: its time counts from when a worker takes it.
func TestAWaitForAWorkerIsNotParseTime(t *testing.T) {
	w := newTestWorkers(t, 1, "spin:SPIN-FOREVER")
	release := hold(t, w, "holder")
	errc, ctx := resolveAsync(w, "bystander", "small.js", 100*time.Millisecond)
	waitFor(t, "the block op to wait", func() bool { return len(w.queued()) == 1 })
	<-ctx.Done() // its parse time's deadline passes while it waits
	release()
	if err := <-errc; err != nil {
		t.Fatalf("the block op that waited past its parse time for a worker: %v", err)
	}
}

// TestAFreedWorkerGoesToTheLeastServedOwner: owners that have used the
// worker wait for it before an owner that has not; when it frees up, the
// newcomer is served first, not last.
func TestAFreedWorkerGoesToTheLeastServedOwner(t *testing.T) {
	w := newTestWorkers(t, 1, "spin:SPIN-FOREVER")
	heavy := []string{"heavy1", "heavy2", "heavy3"}
	for _, h := range heavy { // each has used the worker
		errc, _ := resolveAsync(w, h, h+"-warm.js", time.Minute)
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	}
	release := hold(t, w, "holder")
	var order []string // guarded by w.mu
	w.mu.Lock()
	w.handedTo = func(owner string) { order = append(order, owner) }
	w.mu.Unlock()
	var errs []<-chan error
	for i, h := range append(heavy, "bystander") {
		errc, _ := resolveAsync(w, h, h+".js", time.Minute)
		errs = append(errs, errc)
		waitFor(t, h+" to wait", func() bool { return len(w.queued()) == i+1 })
	}
	release()
	for _, errc := range errs {
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	}
	w.mu.Lock()
	got := slices.Clone(order)
	w.mu.Unlock()
	if len(got) < 4 || got[0] != "bystander" {
		t.Fatalf("the freed worker went to %v in turn; want the bystander, who came last but had used it least, first", got)
	}
}

// TestABusyPoolDeclinesAsBusy: a request that waits workerWait for a
// worker is declined as busy (retriable), not as a slow parse.
func TestABusyPoolDeclinesAsBusy(t *testing.T) {
	w := newTestWorkers(t, 1, "spin:SPIN-FOREVER")
	old := workerWait
	workerWait = 200 * time.Millisecond
	defer func() { workerWait = old }()
	release := hold(t, w, "holder")
	defer release()
	errc, _ := resolveAsync(w, "bystander", "small.js", time.Minute)
	err := <-errc
	if !errors.Is(err, blocks.ErrParseBusy) || errors.Is(err, blocks.ErrParseTime) || !strings.Contains(err.Error(), "a moment later") {
		t.Fatalf("a request the busy pool could not take: %v; want ErrParseBusy saying to call again", err)
	}
	if q := w.queued(); len(q) != 0 {
		t.Errorf("the declined request still waits: %v", q)
	}
}
