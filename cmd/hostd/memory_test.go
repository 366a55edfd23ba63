package main

import (
	"context"
	"math"
	"runtime/debug"
	"sync/atomic"
	"testing"
	"time"
)

// The limit follows what the sessions hold, up and down.
func TestGovernMemoryFollowsHeldBytes(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetMemoryLimit(math.MaxInt64)
	var held atomic.Int64
	held.Store(100 << 20)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { governMemory(ctx, held.Load); close(done) }()
	waitLimit(t, memoryLimit(100<<20))
	held.Store(10 << 20)
	waitLimit(t, memoryLimit(10<<20))
	cancel()
	<-done
	if got, want := memoryLimit(1000<<20), int64(1100<<20+memoryHeadroom); got != want {
		t.Fatalf("memoryLimit = %d, want %d", got, want)
	}
}

// An operator's GOMEMLIMIT is left alone.
func TestGovernMemoryRespectsGOMEMLIMIT(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "1GiB")
	defer debug.SetMemoryLimit(math.MaxInt64)
	before := debug.SetMemoryLimit(-1)
	governMemory(context.Background(), func() int64 { return 1 })
	if debug.SetMemoryLimit(-1) != before {
		t.Fatal("the limit changed under GOMEMLIMIT")
	}
}

func waitLimit(t *testing.T, want int64) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for debug.SetMemoryLimit(-1) != want {
		if time.Now().After(deadline) {
			t.Fatalf("limit %d, want %d", debug.SetMemoryLimit(-1), want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
