package filelock

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

func TestExcludesPerPath(t *testing.T) {
	var tb Table
	var counter [3]int
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for i := range 300 {
				n := (g + i) % 3
				p := fmt.Sprintf("/f%d", n)
				unlock, err := tb.Lock(context.Background(), p)
				if err != nil {
					t.Error(err)
					return
				}
				v := counter[n] // unsynchronized but for the lock: -race catches a broken one
				counter[n] = v + 1
				unlock()
			}
		})
	}
	wg.Wait()
	if total := counter[0] + counter[1] + counter[2]; total != 16*300 {
		t.Fatalf("lost increments: %d of %d", total, 16*300)
	}
	if tb.Len() != 0 {
		t.Fatalf("%d entries left after every unlock", tb.Len())
	}
}

// On a case-insensitive filesystem a new file named New.go and one named
// new.go are one file: the spellings a folding filesystem takes for one
// name exclude each other, and a call naming two of them takes one lock.
func TestSpellingsOfOneNameShareALock(t *testing.T) {
	var tb Table
	for _, pair := range [][2]string{
		{"/ws/New.go", "/ws/new.go"},
		{"/WS/src/A.TXT", "/ws/SRC/a.txt"},
		{"/ws/caf\u00e9.go", "/ws/cafe\u0301.go"},
		{"/ws/CAF\u00c9.go", "/ws/cafe\u0301.go"},
		{"/ws/\u017fun", "/ws/SUN"},
	} {
		unlock, err := tb.Lock(context.Background(), pair[0])
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		if second, err := tb.Lock(ctx, pair[1]); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%+q was locked while %+q was held", pair[1], pair[0])
			if err == nil {
				second()
			}
		}
		cancel()
		unlock()
		both, err := tb.Lock(context.Background(), pair[0], pair[1])
		if err != nil {
			t.Fatal(err)
		}
		if tb.Len() != 1 {
			t.Errorf("locking %+q and %+q took %d locks, want 1", pair[0], pair[1], tb.Len())
		}
		both()
	}
	unlock, err := tb.Lock(context.Background(), "/ws/a.go")
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	other, err := tb.Lock(ctx, "/ws/b.go")
	if err != nil {
		t.Fatalf("a.go's lock holds b.go: %v", err)
	}
	other()
}

func TestPairsInOppositeOrderDoNotDeadlock(t *testing.T) {
	var tb Table
	var wg sync.WaitGroup
	done := make(chan struct{})
	for g := range 8 {
		wg.Go(func() {
			for range 500 {
				a, b := "/a", "/b"
				if g%2 == 1 {
					a, b = b, a
				}
				unlock, err := tb.Lock(context.Background(), a, b, a)
				if err != nil {
					t.Error(err)
					return
				}
				unlock()
			}
		})
	}
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("deadlock: MV-shaped lock pairs in opposite orders never finished")
	}
}

func TestContextEndsTheWaitAndReleasesWhatWasTaken(t *testing.T) {
	var tb Table
	unlockB, _ := tb.Lock(context.Background(), "/b")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := tb.Lock(ctx, "/a", "/b"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want DeadlineExceeded", err)
	}
	// /a must have been released when the wait for /b gave up.
	unlockA, err := tb.Lock(context.Background(), "/a")
	if err != nil {
		t.Fatal(err)
	}
	unlockA()
	unlockB()
	unlockB() // twice is harmless
	if tb.Len() != 0 {
		t.Fatalf("%d entries left", tb.Len())
	}
}
