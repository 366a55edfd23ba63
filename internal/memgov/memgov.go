// Package memgov owns the daemon's collector policy: the Go runtime's soft
// memory limit and its collection target (GOGC), which follow what the
// daemon holds live. The daemon runs the governor (Start) for its whole
// life; nothing else in the process sets either.
//
// The policy in one sentence: the heap may grow past what is live by as
// much as a collection costs, and never less than Headroom, before the
// collector runs; and it never exceeds what the daemon's own bounds let
// it hold. Limit says how far; GCPercent makes the collector wait that
// long when the live heap is small, where the runtime's default
// (collect when the heap doubles, and at 4 MiB at the least) would run
// it every few megabytes.
package memgov

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"

	"github.com/hostd-dev/hostd/config"
)

// Headroom is the least the limit allows beyond what is live: room for
// the transient buffers of calls in flight (a read's window, a grep's
// texts, an edit's copies of one file) before the collector has to run.
const Headroom = 48 << 20

// Period is how often the limit follows what is live.
const Period = 250 * time.Millisecond

// MaxGCPercent bounds GCPercent: a live heap of 1 MiB with Headroom above
// it. Past that the limit alone stops the heap.
const MaxGCPercent = 100 * Headroom / minLive

// minLive is the least live heap GCPercent reckons with; before the first
// collection the runtime reports none.
const minLive = 1 << 20

// Reading is what the governor sees each period.
type Reading struct {
	Held  int64 // what sessions hold by design: retained text and registers
	Index int64 // the review store's in-memory index
	Live  int64 // the live heap the last collection marked (/gc/heap/live:bytes)
	Scan  int64 // what a collection has to scan (/gc/scan/total:bytes)

	// Overhead is what the runtime maps besides the heap's spans:
	// goroutine stacks, its metadata, profiling buckets. The soft limit
	// counts it and the heap does not, so the governor sets the runtime's
	// limit this much above the heap's.
	Overhead int64
}

// Limit is the soft limit for a reading, under ceiling.
//
// The limit must sit well above everything live, or the collector runs
// back to back and takes up to half the CPU without freeing anything:
// that is how a full review index, which the limit once ignored, slowed
// every call several times over. Live is the larger of the measured live
// heap and what the daemon knows it holds (the measure is only as fresh as
// the last collection). Above it the limit leaves room proportional to
// what a collection costs, its scan work, like GOGC=100 does, and never
// less than Headroom. Retained text is a few large strings the collector
// marks without scanning, so a heap of text gets the fixed headroom and
// stays close to what it holds, while a heap of small pointerful objects,
// such as the index, gets as much again.
//
// The ceiling, maxRetainedBytes + maxMemoryBytes + the baseline live heap,
// is everything the daemon's own bounds let it hold; the limit never
// exceeds it unless live itself comes within Headroom of it (only
// registers, which have no daemon-wide bound, can take it there), and then
// it is live + Headroom, because a limit at the live heap would burn the
// CPU without freeing anything.
func Limit(r Reading, ceiling int64) int64 {
	live := max(r.Live, r.Held+r.Index)
	scan := max(r.Scan, r.Index)
	limit := min(live+max(scan, Headroom), ceiling)
	return max(limit, live+Headroom)
}

// GCPercent is the collection target set beside limit: the percentage of
// the live heap the heap may grow by before the collector runs, chosen so
// that it grows up to limit. The runtime's default, 100, collects when the
// heap doubles, so a daemon with a few MiB live collects every few MiB
// allocated (every 4 MiB at the least), many times per grep of a large
// tree or per burst of reads, while the limit above it allows Headroom;
// measured over the socket, that cost 16 concurrent sessions' small reads
// about a sixth of their throughput (docs/benchmarks.md). It is never
// under 100, so a live heap larger than its room collects as GOGC=100
// does, and the limit still stops the heap wherever the target would let
// it grow past. Between two readings a live heap that jumps is held by the
// limit, as before.
func GCPercent(r Reading, limit int64) int {
	live := max(r.Live, minLive)
	return int(min(max(100*(limit-live)/live, 100), MaxGCPercent))
}

// Ceiling is the most the limit may be for a daemon whose live heap
// without sessions or calls is baseline.
func Ceiling(lim config.Limits, baseline int64) int64 {
	return lim.MaxRetainedBytes + lim.MaxMemoryBytes + baseline
}

// Sources are what the governor asks of the daemon each period; nil
// counts as nothing held.
type Sources struct {
	Held  func() int64 // session.Manager.HeldBytes
	Index func() int64 // review.Store.IndexBytes
}

var readingMetrics = []string{"/gc/heap/live:bytes", "/gc/scan/total:bytes",
	"/memory/classes/total:bytes", "/memory/classes/heap/objects:bytes", "/memory/classes/heap/unused:bytes",
	"/memory/classes/heap/free:bytes", "/memory/classes/heap/released:bytes"}

// read takes a reading of the runtime, into samples, and of src.
func read(src Sources, samples []metrics.Sample) Reading {
	for i, name := range readingMetrics {
		samples[i].Name = name
	}
	metrics.Read(samples)
	r := Reading{Live: sampleBytes(samples[0]), Scan: sampleBytes(samples[1])}
	heap := int64(0)
	for _, s := range samples[3:] {
		heap += sampleBytes(s)
	}
	r.Overhead = max(sampleBytes(samples[2])-heap, 0)
	if src.Held != nil {
		r.Held = src.Held()
	}
	if src.Index != nil {
		r.Index = src.Index()
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

// Start starts the governor and returns once it has set the limit and
// the target for the first time; stop ends it and waits until it has.
//
// The governor keeps the Go runtime's soft memory limit above everything
// live by as much as a collection costs (Limit), under the ceiling the
// daemon's bounds set, and the collection target at the one that lets
// the heap reach that limit (GCPercent), re-reading every Period; stopped,
// it puts back the limit and target it found. The baseline of the ceiling
// is the live heap measured once at start, after a collection.
//
// An operator's settings win: with GOMEMLIMIT set it does nothing, and
// with GOGC set it leaves the target alone and governs the limit.
func Start(lim config.Limits, src Sources) (stop func()) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	g := &governor{src: src, target: os.Getenv("GOGC") == "", samples: make([]metrics.Sample, len(readingMetrics))}
	runtime.GC()
	g.ceiling = Ceiling(lim, read(Sources{}, g.samples).Live)
	g.limit0 = debug.SetMemoryLimit(-1)
	g.percent0 = g.set()
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(Period)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				g.set()
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(quit)
			<-done
			debug.SetMemoryLimit(g.limit0)
			if g.target {
				debug.SetGCPercent(g.percent0)
			}
		})
	}
}

// governor is one Start's state; only its goroutine uses it after Start
// returns.
type governor struct {
	src      Sources
	target   bool // set the collection target (no GOGC from the operator)
	samples  []metrics.Sample
	ceiling  int64
	limit0   int64 // the limit found at start
	percent0 int   // the target found at start, when target
}

// set takes a reading and sets the limit and, when it governs it, the
// target; it returns the target that was in force before.
func (g *governor) set() (percent int) {
	r := read(g.src, g.samples)
	limit := Limit(r, g.ceiling)
	debug.SetMemoryLimit(limit + r.Overhead)
	if !g.target {
		return 0
	}
	return debug.SetGCPercent(GCPercent(r, limit))
}

// Collector is the collector's state as the runtime reports it, for a
// person inspecting the daemon (debug.stats, which sends it as
// wire.Collector, the same fields).
type Collector struct {
	LimitBytes  int64  `json:"limitBytes"`  // the soft memory limit in force (the governor's, or GOMEMLIMIT)
	GCPercent   int64  `json:"gcPercent"`   // the collection target in force (the governor's, or GOGC); -1 is off
	LiveBytes   int64  `json:"liveBytes"`   // the live heap the last collection marked
	Collections uint64 `json:"collections"` // collections since the daemon started
}

// Current reads the collector's state.
func Current() Collector {
	s := []metrics.Sample{{Name: "/gc/gomemlimit:bytes"}, {Name: "/gc/gogc:percent"}, {Name: "/gc/heap/live:bytes"}, {Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	c := Collector{LimitBytes: sampleBytes(s[0]), LiveBytes: sampleBytes(s[2])}
	if s[1].Value.Kind() == metrics.KindUint64 {
		// The runtime reports GOGC=off, -1, as an unsigned number.
		c.GCPercent = int64(int32(s[1].Value.Uint64()))
	}
	if s[3].Value.Kind() == metrics.KindUint64 {
		c.Collections = s[3].Value.Uint64()
	}
	return c
}
