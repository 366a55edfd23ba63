package main

import (
	"context"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/config"
)

const mib = 1 << 20

// The limit sits above everything live by what a collection costs: a heap
// of small pointerful objects (a full review index) gets at least half as
// much again, a heap of retained text the fixed headroom; the ceiling
// caps it, and never pins it at the live heap.
func TestMemoryLimit(t *testing.T) {
	const ceiling = 1400 * mib
	for _, tc := range []struct {
		name     string
		r        memoryReading
		min, max int64
	}{
		{"idle daemon", memoryReading{live: 8 * mib, scan: 4 * mib}, 56 * mib, 56 * mib},
		{"full review index, few sessions", memoryReading{held: 2 * mib, index: 40 * mib, live: 60 * mib, scan: 50 * mib}, 90 * mib, 120 * mib},
		{"index not yet measured by a collection", memoryReading{index: 40 * mib, live: 10 * mib, scan: 8 * mib}, 88 * mib, 88 * mib},
		{"256 sessions of retained text", memoryReading{held: 256 * mib, index: 13 * mib, live: 300 * mib, scan: 30 * mib}, 348 * mib, 348 * mib},
		{"held text not yet collected", memoryReading{held: 256 * mib, live: 40 * mib, scan: 20 * mib}, 304 * mib, 304 * mib},
		{"capped at the ceiling", memoryReading{live: 1000 * mib, scan: 900 * mib}, ceiling, ceiling},
		{"never pinned at live past the ceiling", memoryReading{held: 1390 * mib, live: 1390 * mib, scan: 10 * mib}, 1390*mib + memoryHeadroom, 1390*mib + memoryHeadroom},
	} {
		got := memoryLimit(tc.r, ceiling)
		if got < tc.min || got > tc.max {
			t.Errorf("%s: limit %d MiB, want %d-%d MiB", tc.name, got/mib, tc.min/mib, tc.max/mib)
		}
		if live := max(tc.r.live, tc.r.held+tc.r.index); got < live+memoryHeadroom {
			t.Errorf("%s: limit %d MiB within the headroom of live %d MiB", tc.name, got/mib, live/mib)
		}
	}
	if got, want := memoryCeiling(config.DefaultLimits(), 20*mib), int64(256+1024+20)*mib; got != want {
		t.Errorf("memoryCeiling = %d, want %d", got, want)
	}
}

// The governor follows what the sessions hold, up and down.
func TestGovernMemoryFollowsHeldBytes(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetMemoryLimit(math.MaxInt64)
	var held atomic.Int64
	held.Store(400 * mib)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		governMemory(ctx, config.DefaultLimits(), memorySources{held: held.Load, index: func() int64 { return 0 }})
		close(done)
	}()
	waitLimit(t, "at least 400 MiB + headroom", func(l int64) bool { return l >= 400*mib+memoryHeadroom })
	held.Store(10 * mib)
	waitLimit(t, "under 400 MiB", func(l int64) bool { return l < 400*mib })
	cancel()
	<-done
}

// An operator's GOMEMLIMIT is left alone.
func TestGovernMemoryRespectsGOMEMLIMIT(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "1GiB")
	defer debug.SetMemoryLimit(math.MaxInt64)
	before := debug.SetMemoryLimit(-1)
	governMemory(context.Background(), config.DefaultLimits(), memorySources{held: func() int64 { return 1 }})
	if debug.SetMemoryLimit(-1) != before {
		t.Fatal("the limit changed under GOMEMLIMIT")
	}
}

func waitLimit(t *testing.T, what string, ok func(int64) bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !ok(debug.SetMemoryLimit(-1)) {
		if time.Now().After(deadline) {
			t.Fatalf("limit %d MiB, want %s", debug.SetMemoryLimit(-1)/mib, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// indexNode stands for one entry of a full review index: a small object
// full of pointers, which every collection has to scan.
type indexNode struct {
	next *indexNode
	strs [4]string
	n    [4]int64
}

// syntheticIndex builds about size bytes of indexNodes and keeps them live.
func syntheticIndex(size int64) []*indexNode {
	per := int64(160) // the node, its slot, and its four short strings
	out := make([]*indexNode, size/per)
	for i := range out {
		out[i] = &indexNode{strs: [4]string{string(rune('a' + i%26)), "bb" + string(rune('a'+i%26))}, n: [4]int64{int64(i)}}
		if i > 0 {
			out[i].next = out[i-1]
		}
	}
	return out
}

// The finding: with the review index full the heap sat at the soft limit
// and most of the CPU went to the collector. With a large live index the
// governor's limit stays well above the live heap, so while calls allocate
// the collector runs about once per half the live heap allocated, not back
// to back. The same workload with no limit (GOGC alone) is measured in
// the same run and logged beside it, with the collector's CPU share.
func TestGovernorDoesNotThrashWithAFullIndex(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetMemoryLimit(math.MaxInt64)
	indexBytes := int64(96 * mib)
	allocate := int64(stressSize(1024, 8192)) * mib
	if raceEnabled {
		indexBytes, allocate = 32*mib, 256*mib
	}
	index := syntheticIndex(indexBytes)
	runtime.GC()
	live := int64(readMemory(memorySources{}, []metrics.Sample{{Name: memoryMetrics[0]}, {Name: memoryMetrics[1]}}).live)

	debug.SetMemoryLimit(math.MaxInt64)
	refCycles, refShare := collectorWork(allocate)

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		governMemory(ctx, config.DefaultLimits(), memorySources{held: func() int64 { return 2 * mib }, index: func() int64 { return indexBytes }})
		close(done)
	}()
	defer func() { cancel(); <-done }()
	waitLimit(t, "set", func(l int64) bool { return l != math.MaxInt64 })
	limit := debug.SetMemoryLimit(-1)
	cycles, share := collectorWork(allocate)
	runtime.KeepAlive(index)

	t.Logf("index %d MiB, live heap %d MiB, limit %d MiB; %d MiB allocated: governed %d cycles, collector %.0f%% of the CPU used; GOGC alone %d cycles, %.0f%%",
		indexBytes/mib, live/mib, limit/mib, allocate/mib, cycles, 100*share, refCycles, 100*refShare)
	if limit < live*3/2 {
		t.Errorf("limit %d MiB is under 1.5 x the live heap of %d MiB", limit/mib, live/mib)
	}
	// GOGC would collect about once per live heap allocated; back to back
	// is many times that.
	if perCycle := allocate / int64(max(cycles, 1)); perCycle < live/2 {
		t.Errorf("%d collections, one per %d MiB allocated with %d MiB live (GOGC alone: %d): the collector runs back to back",
			cycles, perCycle/mib, live/mib, refCycles)
	}
}

// collectorWork allocates like calls in flight do, 8 KiB at a time with
// 1 MiB alive at once, and reports the collections it caused and the
// collector's share of the CPU the process used meanwhile.
func collectorWork(allocate int64) (cycles uint64, share float64) {
	samples := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}, {Name: "/cpu/classes/gc/total:cpu-seconds"},
		{Name: "/cpu/classes/total:cpu-seconds"}, {Name: "/cpu/classes/idle:cpu-seconds"}}
	metrics.Read(samples)
	cycles0, gc0, total0, idle0 := samples[0].Value.Uint64(), samples[1].Value.Float64(), samples[2].Value.Float64(), samples[3].Value.Float64()
	var ring [128][]byte
	for i := int64(0); i < allocate/(8<<10); i++ {
		ring[i%128] = make([]byte, 8<<10)
	}
	runtime.KeepAlive(ring)
	metrics.Read(samples)
	used := (samples[2].Value.Float64() - total0) - (samples[3].Value.Float64() - idle0)
	return samples[0].Value.Uint64() - cycles0, (samples[1].Value.Float64() - gc0) / used
}

// stressSize is the CI size of a workload, or the long one when
// HOSTD_STRESS=long.
func stressSize(ci, long int) int {
	if os.Getenv("HOSTD_STRESS") == "long" {
		return long
	}
	return ci
}
