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
