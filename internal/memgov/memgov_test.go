package memgov

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/internal/testenv"
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
		r        Reading
		min, max int64
	}{
		{"idle daemon", Reading{Live: 8 * mib, Scan: 4 * mib}, 56 * mib, 56 * mib},
		{"full review index, few sessions", Reading{Held: 2 * mib, Index: 40 * mib, Live: 60 * mib, Scan: 50 * mib}, 90 * mib, 120 * mib},
		{"index not yet measured by a collection", Reading{Index: 40 * mib, Live: 10 * mib, Scan: 8 * mib}, 88 * mib, 88 * mib},
		{"256 sessions of retained text", Reading{Held: 256 * mib, Index: 13 * mib, Live: 300 * mib, Scan: 30 * mib}, 348 * mib, 348 * mib},
		{"held text not yet collected", Reading{Held: 256 * mib, Live: 40 * mib, Scan: 20 * mib}, 304 * mib, 304 * mib},
		{"capped at the ceiling", Reading{Live: 1000 * mib, Scan: 900 * mib}, ceiling, ceiling},
		{"never pinned at live past the ceiling", Reading{Held: 1390 * mib, Live: 1390 * mib, Scan: 10 * mib}, 1390*mib + Headroom, 1390*mib + Headroom},
	} {
		got := Limit(tc.r, ceiling)
		if got < tc.min || got > tc.max {
			t.Errorf("%s: limit %d MiB, want %d-%d MiB", tc.name, got/mib, tc.min/mib, tc.max/mib)
		}
		if live := max(tc.r.Live, tc.r.Held+tc.r.Index); got < live+Headroom {
			t.Errorf("%s: limit %d MiB within the headroom of live %d MiB", tc.name, got/mib, live/mib)
		}
	}
	if got, want := Ceiling(config.DefaultLimits(), 20*mib), int64(256+1024+20)*mib; got != want {
		t.Errorf("memoryCeiling = %d, want %d", got, want)
	}
}

// The governor follows what the sessions hold, up and down, and puts the
// limit it found back when it stops.
func TestGovernMemoryFollowsHeldBytes(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	t.Setenv("GOGC", "")
	defer debug.SetMemoryLimit(math.MaxInt64)
	before := debug.SetMemoryLimit(-1)
	var held atomic.Int64
	held.Store(400 * mib)
	stop := Start(config.DefaultLimits(), Sources{Held: held.Load, Index: func() int64 { return 0 }})
	waitLimit(t, "at least 400 MiB + headroom", func(l int64) bool { return l >= 400*mib+Headroom })
	held.Store(10 * mib)
	waitLimit(t, "under 400 MiB", func(l int64) bool { return l < 400*mib })
	stop()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("after the governor stopped the limit is %d, want %d as it found it", got, before)
	}
}

// An operator's GOMEMLIMIT is left alone.
func TestGovernMemoryRespectsGOMEMLIMIT(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "1GiB")
	defer debug.SetMemoryLimit(math.MaxInt64)
	before := debug.SetMemoryLimit(-1)
	Start(config.DefaultLimits(), Sources{Held: func() int64 { return 1 }})()
	if debug.SetMemoryLimit(-1) != before {
		t.Fatal("the limit changed under GOMEMLIMIT")
	}
}

func waitLimit(t *testing.T, what string, ok func(int64) bool) {
	t.Helper()
	if !testenv.Poll(5*time.Second, func() bool { return ok(debug.SetMemoryLimit(-1)) }) {
		t.Fatalf("limit %d MiB, want %s", debug.SetMemoryLimit(-1)/mib, what)
	}
}

// indexNode stands for one entry of a full review Index: a small object
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
	t.Setenv("GOGC", "")
	defer debug.SetMemoryLimit(math.MaxInt64)
	indexBytes := int64(96 * mib)
	allocate := int64(stressSize(1024, 8192)) * mib
	if raceEnabled {
		indexBytes, allocate = 32*mib, 256*mib
	}
	index := syntheticIndex(indexBytes)
	runtime.GC()
	live := read(Sources{}, make([]metrics.Sample, len(readingMetrics))).Live

	debug.SetMemoryLimit(math.MaxInt64)
	refCycles, refShare := collectorWork(allocate)

	defer Start(config.DefaultLimits(), Sources{Held: func() int64 { return 2 * mib }, Index: func() int64 { return indexBytes }})()
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

// The target lets the heap grow from the live heap to the limit, never
// past it by its own measure, and is never under the runtime's default.
func TestGCPercent(t *testing.T) {
	const ceiling = 1400 * mib
	for _, tc := range []struct {
		name string
		r    Reading
		want int
	}{
		{"idle daemon", Reading{Live: 8 * mib, Scan: 4 * mib}, 600},
		{"before the first collection", Reading{}, 4700},
		{"live heap as large as the headroom", Reading{Live: 48 * mib, Scan: 4 * mib}, 100},
		{"full review index", Reading{Held: 2 * mib, Index: 40 * mib, Live: 60 * mib, Scan: 50 * mib}, 100},
		{"256 sessions of retained text", Reading{Held: 256 * mib, Index: 13 * mib, Live: 300 * mib, Scan: 30 * mib}, 100},
		{"held text not yet collected", Reading{Held: 256 * mib, Live: 40 * mib, Scan: 20 * mib}, 660},
		{"capped at the ceiling", Reading{Live: 1000 * mib, Scan: 900 * mib}, 100},
	} {
		limit := Limit(tc.r, ceiling)
		got := GCPercent(tc.r, limit)
		if got != tc.want {
			t.Errorf("%s: GCPercent = %d, want %d (limit %d MiB)", tc.name, got, tc.want, limit/mib)
		}
		if got < 100 || got > MaxGCPercent {
			t.Errorf("%s: GCPercent = %d, outside 100-%d", tc.name, got, MaxGCPercent)
		}
		if live := max(tc.r.Live, minLive); got > 100 && live+live*int64(got)/100 > limit {
			t.Errorf("%s: GCPercent %d lets a live heap of %d MiB grow past the limit of %d MiB", tc.name, got, live/mib, limit/mib)
		}
	}
}

// gcSettings are the runtime's collection target and soft limit as it
// reports them.
func gcSettings() (percent, limit int64) {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/gomemlimit:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64()), int64(s[1].Value.Uint64())
}

// heapGoal is the heap size at which the runtime next collects.
func heapGoal() int64 {
	s := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// The finding: with a few MiB live the runtime's default target collected
// every 4 MiB allocated, though the limit allowed 48 MiB more; the
// daemon's calls in flight (a grep's texts, reads, an edit's copies) paid
// for a collection every few calls. Governed, a small heap collects about
// once per Headroom allocated. The same workload under the default target
// is measured in the same run and logged beside it. When the governor
// stops, the target it found is back.
func TestGovernorLetsASmallHeapReachTheHeadroom(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	t.Setenv("GOGC", "")
	allocate := int64(stressSize(512, 4096)) * mib
	// What earlier tests freed but the runtime has not yet returned counts
	// against the limit as if it were heap; return it first.
	debug.FreeOSMemory()
	percent0, _ := gcSettings()
	refCycles, refShare := collectorWork(allocate)

	debug.FreeOSMemory() // and what the reference run freed
	stop := Start(config.DefaultLimits(), Sources{})
	percent, limit := gcSettings()
	goal := heapGoal()
	cycles, share := collectorWork(allocate)
	stop()

	t.Logf("heap goal %d MiB with the governor", goal/mib)
	t.Logf("%d MiB allocated with %d MiB alive at once: governed (GOGC %d, limit %d MiB) %d cycles, collector %.0f%% of the CPU used; GOGC %d alone %d cycles, %.0f%%",
		allocate/mib, 1, percent, limit/mib, cycles, 100*share, percent0, refCycles, 100*refShare)
	// How many collections the work takes depends on how much CPU the
	// collector gets while it runs, which a loaded machine varies both
	// ways; the goal the runtime sets for the next one does not.
	if goal < Headroom*3/4 {
		t.Errorf("the heap goal is %d MiB (%d collections, one per %d MiB allocated; default target: %d): the small heap does not reach the headroom of %d MiB",
			goal/mib, cycles, allocate/int64(max(cycles, 1))/mib, refCycles, Headroom/mib)
	}
	if p, _ := gcSettings(); p != percent0 {
		t.Errorf("after the governor stopped the target is %d, want %d as it found it", p, percent0)
	}
}

// An operator's GOGC is left alone; the limit is still governed.
func TestGovernRespectsGOGC(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	t.Setenv("GOGC", "150")
	defer debug.SetGCPercent(debug.SetGCPercent(150))
	_, limit0 := gcSettings()
	stop := Start(config.DefaultLimits(), Sources{})
	p, limit := gcSettings()
	stop()
	if limit == limit0 {
		t.Errorf("the limit was not set under GOGC=150")
	}
	if p != 150 {
		t.Errorf("the collection target is %d under GOGC=150", p)
	}
}

// Current reports what the governor set, and GOGC=off as -1.
func TestCurrent(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	t.Setenv("GOGC", "")
	stop := Start(config.DefaultLimits(), Sources{})
	c := Current()
	stop()
	if c.GCPercent <= 100 || c.LimitBytes < Headroom || c.LimitBytes > Ceiling(config.DefaultLimits(), c.LiveBytes+Headroom) || c.Collections == 0 {
		t.Errorf("governed: %+v, want a target over 100 and a limit of at least %d MiB", c, Headroom/mib)
	}
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	if c := Current(); c.GCPercent != -1 {
		t.Errorf("with the collector off Current reports a target of %d, want -1", c.GCPercent)
	}
}
