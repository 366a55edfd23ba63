// Package budget owns the daemon-wide memory budget for bytes in flight:
// frames being read and decoded, and the payloads a write or edit is
// applying. Every per-call bound holds on its own; this is the one count
// that holds their sum, so many connections or many large writes at once
// wait their turn instead of growing the daemon without bound.
//
// A Budget is a weighted semaphore of bytes. A holder that fits waits for
// room (first come, first served) up to the budget's wait bound or its
// context, then gets ErrOverBudget, which callers turn into a retriable
// error. A request larger than the whole budget is refused at once.
// Retained snapshot text is bounded separately (session.Manager), so the
// daemon-wide ceiling is this budget plus that bound.
package budget

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"golang.org/x/sync/semaphore"
)

// ErrOverBudget: the bytes could not be had in time, or never can be. It
// is retriable once other calls finish.
var ErrOverBudget = errors.New("over the daemon's memory budget")

// DefaultWait is how long Acquire waits for room by default.
const DefaultWait = 10 * time.Second

// Budget counts bytes in flight against a limit. It is safe for concurrent
// use. A nil *Budget is unlimited: every method succeeds at once.
type Budget struct {
	limit int64
	wait  time.Duration
	sem   *semaphore.Weighted

	inUse    atomic.Int64
	peak     atomic.Int64
	waits    atomic.Int64
	refusals atomic.Int64
}

// New returns a budget of limit bytes whose Acquire waits at most wait
// (DefaultWait when wait <= 0).
func New(limit int64, wait time.Duration) *Budget {
	if wait <= 0 {
		wait = DefaultWait
	}
	return &Budget{limit: limit, wait: wait, sem: semaphore.NewWeighted(limit)}
}

// Release gives back what one Acquire took. Calling it twice is safe.
type Release func()

// Acquire takes n bytes, waiting while the budget is full, up to the wait
// bound or until ctx ends. what names the holder for the error message
// ("a 31 MiB write"). The returned Release must be called exactly when the
// bytes are no longer held.
func (b *Budget) Acquire(ctx context.Context, n int64, what string) (Release, error) {
	if b == nil || n <= 0 {
		return func() {}, nil
	}
	if n > b.limit {
		b.refusals.Add(1)
		return nil, fmt.Errorf("%w: %s needs %d bytes, more than the whole budget of %d (limits.maxMemoryBytes); send less at once", ErrOverBudget, what, n, b.limit)
	}
	if !b.sem.TryAcquire(n) {
		b.waits.Add(1)
		wctx, cancel := context.WithTimeout(ctx, b.wait)
		err := b.sem.Acquire(wctx, n)
		cancel()
		if err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil {
				return nil, ctxErr
			}
			b.refusals.Add(1)
			return nil, fmt.Errorf("%w: %s waited %s for %d bytes while other calls held %d of %d; retry in a moment", ErrOverBudget, what, b.wait, n, b.inUse.Load(), b.limit)
		}
	}
	b.hold(n)
	var done atomic.Bool
	return func() {
		if done.CompareAndSwap(false, true) {
			b.inUse.Add(-n)
			b.sem.Release(n)
		}
	}, nil
}

func (b *Budget) hold(n int64) {
	cur := b.inUse.Add(n)
	for {
		p := b.peak.Load()
		if cur <= p || b.peak.CompareAndSwap(p, cur) {
			return
		}
	}
}

// Stats is what debug.stats reports of the budget (rpc converts it to
// wire.BudgetStats, the same fields).
type Stats struct {
	LimitBytes int64 `json:"limitBytes"`
	InUseBytes int64 `json:"inUseBytes"`
	PeakBytes  int64 `json:"peakBytes"`
	Waits      int64 `json:"waits"`    // acquisitions that had to wait
	Refusals   int64 `json:"refusals"` // acquisitions refused with ErrOverBudget
}

// Stats returns the current counters.
func (b *Budget) Stats() Stats {
	if b == nil {
		return Stats{}
	}
	return Stats{
		LimitBytes: b.limit,
		InUseBytes: b.inUse.Load(),
		PeakBytes:  b.peak.Load(),
		Waits:      b.waits.Load(),
		Refusals:   b.refusals.Load(),
	}
}

// Limit is the budget's size in bytes.
func (b *Budget) Limit() int64 {
	if b == nil {
		return 0
	}
	return b.limit
}
