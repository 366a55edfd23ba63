package main

import (
	"context"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"time"

	"github.com/hostd-dev/hostd/config"
)

// memoryHeadroom is the least the memory limit allows beyond what is
// live: room for the transient buffers of calls in flight (a read's
// window, a grep's texts, an edit's copies of one file) before the
// collector has to run.
const memoryHeadroom = 48 << 20

// memoryPeriod is how often the limit follows what is live.
const memoryPeriod = 250 * time.Millisecond

// memoryReading is what the governor sees each period.
type memoryReading struct {
	held  int64 // what sessions hold by design: retained text and registers
	index int64 // the review store's in-memory index
	live  int64 // the live heap the last collection marked (/gc/heap/live:bytes)
	scan  int64 // what a collection has to scan (/gc/scan/total:bytes)
}

// memoryLimit is the soft limit for a reading, under ceiling.
//
// The limit must sit well above everything live, or the collector runs
// back to back and takes up to half the CPU without freeing anything:
// that is how a full review index, which the limit once ignored, slowed
// every call several times over. Live is the larger of the measured live
// heap and what the daemon knows it holds (the measure is only as fresh as
// the last collection). Above it the limit leaves room proportional to
// what a collection costs, its scan work, like GOGC=100 does, and never
// less than memoryHeadroom. Retained text is a few large strings the
// collector marks without scanning, so a heap of text gets the fixed
// headroom and stays close to what it holds, while a heap of small
// pointerful objects, such as the index, gets as much again.
//
// The ceiling, maxRetainedBytes + maxMemoryBytes + the baseline live heap,
// is everything the daemon's own bounds let it hold; the limit never
// exceeds it unless live itself comes within memoryHeadroom of it (only
// registers, which have no daemon-wide bound, can take it there), and then
// it is live + memoryHeadroom, because a limit at the live heap would burn
// the CPU without freeing anything.
func memoryLimit(r memoryReading, ceiling int64) int64 {
	live := max(r.live, r.held+r.index)
	scan := max(r.scan, r.index)
	limit := min(live+max(scan, memoryHeadroom), ceiling)
	return max(limit, live+memoryHeadroom)
}

// memoryCeiling is the most the limit may be for a daemon whose live heap
// without sessions or calls is baseline.
func memoryCeiling(lim config.Limits, baseline int64) int64 {
	return lim.MaxRetainedBytes + lim.MaxMemoryBytes + baseline
}

// memorySources are what the governor asks of the daemon each period.
type memorySources struct {
	held  func() int64 // session.Manager.HeldBytes
	index func() int64 // review.Store.IndexBytes
}

var memoryMetrics = []string{"/gc/heap/live:bytes", "/gc/scan/total:bytes"}

func readMemory(src memorySources, samples []metrics.Sample) memoryReading {
	metrics.Read(samples)
	r := memoryReading{live: sampleBytes(samples[0]), scan: sampleBytes(samples[1])}
	if src.held != nil {
		r.held = src.held()
	}
	if src.index != nil {
		r.index = src.index()
	}
	return r
}

// sampleBytes is a byte metric's value, or 0 from a runtime that lacks it.
func sampleBytes(s metrics.Sample) int64 {
	if s.Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s.Value.Uint64())
}

// governMemory keeps the Go runtime's soft memory limit above everything
// live by as much as a collection costs (memoryLimit), under the ceiling
// the daemon's bounds set. By default the collector lets the heap grow to
// twice the live heap before it runs, whatever that is; the limit keeps a
// heap of retained text close to what it holds and caps the heap at what
// the bounds allow, without making the collector run more often than
// GOGC would for a heap of small objects. The baseline of the ceiling is
// the live heap measured once at start, after a collection. An operator's
// GOMEMLIMIT wins: then this does nothing.
func governMemory(ctx context.Context, lim config.Limits, src memorySources) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	samples := make([]metrics.Sample, len(memoryMetrics))
	for i, name := range memoryMetrics {
		samples[i].Name = name
	}
	runtime.GC()
	ceiling := memoryCeiling(lim, readMemory(memorySources{}, samples).live)
	t := time.NewTicker(memoryPeriod)
	defer t.Stop()
	for {
		debug.SetMemoryLimit(memoryLimit(readMemory(src, samples), ceiling))
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
