package main

import (
	"context"
	"os"
	"runtime/debug"
	"time"
)

// memoryHeadroom is what the memory limit allows beyond what the sessions
// hold: the runtime itself and the transient buffers of calls in flight
// (a read's window, a grep's texts, an edit's copies of one file).
const memoryHeadroom = 48 << 20

// memoryPeriod is how often the limit follows what the sessions hold.
const memoryPeriod = 250 * time.Millisecond

// memoryLimit is the soft limit for a daemon whose sessions hold held
// bytes.
func memoryLimit(held int64) int64 { return held + held/10 + memoryHeadroom }

// governMemory keeps the Go runtime's soft memory limit at what the
// sessions hold plus headroom. By default the collector lets the heap grow
// to twice the live heap before it runs, and a daemon whose live heap is
// gigabytes of retained text would carry as much again in garbage; with
// the limit it collects sooner instead. Past the limit the runtime spends
// at most half the CPU on collection, so a burst of large calls slows down
// rather than fails. An operator's GOMEMLIMIT wins: then this does nothing.
func governMemory(ctx context.Context, held func() int64) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	t := time.NewTicker(memoryPeriod)
	defer t.Stop()
	for {
		debug.SetMemoryLimit(memoryLimit(held()))
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
