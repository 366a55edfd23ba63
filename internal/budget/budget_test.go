package budget

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/internal/testenv"
)

func TestLargerThanWholeBudgetIsRefusedAtOnce(t *testing.T) {
	// A wait would be an hour long and nothing would end it: the answer
	// (an event) can only come from refusing at once.
	b := New(100, time.Hour)
	if _, err := b.Acquire(context.Background(), 101, "a test"); !errors.Is(err, ErrOverBudget) {
		t.Fatalf("err = %v, want ErrOverBudget", err)
	}
	if s := b.Stats(); s.Refusals != 1 || s.InUseBytes != 0 {
		t.Fatalf("stats %+v", s)
	}
}

func TestWaitsForRoomThenRefuses(t *testing.T) {
	b := New(100, 50*time.Millisecond)
	rel, err := b.Acquire(context.Background(), 80, "first")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Acquire(context.Background(), 30, "second"); !errors.Is(err, ErrOverBudget) {
		t.Fatalf("err = %v, want ErrOverBudget after the wait", err)
	}
	rel()
	rel() // twice is safe
	if s := b.Stats(); s.InUseBytes != 0 || s.PeakBytes != 80 || s.Waits != 1 || s.Refusals != 1 {
		t.Fatalf("stats %+v", s)
	}
}

func TestAWaiterGetsReleasedRoom(t *testing.T) {
	b := New(100, time.Hour)
	rel, err := b.Acquire(context.Background(), 80, "first")
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() {
		r, err := b.Acquire(context.Background(), 30, "second")
		if err == nil {
			r()
		}
		got <- err
	}()
	testenv.Until(t, 10*time.Second, "the second acquire to wait", func() bool { return b.Stats().Waits > 0 })
	rel()
	if err := <-got; err != nil {
		t.Fatalf("a waiter did not get the released room: %v", err)
	}
}

func TestContextEndsTheWait(t *testing.T) {
	b := New(10, time.Hour)
	rel, _ := b.Acquire(context.Background(), 10, "first")
	defer rel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := b.Acquire(ctx, 5, "second"); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestNeverOverTheLimitUnderContention(t *testing.T) {
	const limit = 1000
	b := New(limit, time.Minute)
	var held, over atomic.Int64
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for i := range 200 {
				n := int64(1 + (g*37+i*11)%400)
				rel, err := b.Acquire(context.Background(), n, "worker")
				if err != nil {
					t.Error(err)
					return
				}
				if h := held.Add(n); h > limit {
					over.Add(1)
				}
				held.Add(-n)
				rel()
			}
		})
	}
	wg.Wait()
	if over.Load() != 0 {
		t.Fatalf("held more than the limit %d times", over.Load())
	}
	if s := b.Stats(); s.InUseBytes != 0 || s.PeakBytes > limit {
		t.Fatalf("stats %+v", s)
	}
}

func TestNilBudgetIsUnlimited(t *testing.T) {
	var b *Budget
	rel, err := b.Acquire(context.Background(), 1<<40, "anything")
	if err != nil {
		t.Fatal(err)
	}
	rel()
	if b.Stats() != (Stats{}) || b.Limit() != 0 {
		t.Fatal("nil budget reports counters")
	}
}
