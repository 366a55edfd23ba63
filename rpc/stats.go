package rpc

import (
	"slices"
	"sync"
	"time"

	"github.com/hostd-dev/hostd/rpc/wire"
)

// latencyWindow is how many recent calls of one method the percentiles
// are computed over.
const latencyWindow = 1024

// unknownMethod is the one bucket that counts calls of methods hostd does
// not have, so a client inventing names cannot grow the table.
const unknownMethod = "(unknown)"

// callStats counts calls per method and keeps a window of recent
// latencies for each.
//
// Bound: one entry per method of the table plus unknownMethod, fixed at
// construction, each holding latencyWindow samples. Concurrency: the map
// is read-only after construction; each entry has its own lock, so calls
// of different methods never contend.
type callStats struct {
	methods map[string]*methodStats
}

type methodStats struct {
	mu      sync.Mutex
	count   uint64                // guarded by mu
	errors  uint64                // guarded by mu
	samples [latencyWindow]uint32 // guarded by mu; microseconds, a ring
}

func newCallStats(names []string) *callStats {
	c := &callStats{methods: make(map[string]*methodStats, len(names)+1)}
	for _, n := range append(names, unknownMethod) {
		c.methods[n] = &methodStats{}
	}
	return c
}

// observe records one finished call.
func (c *callStats) observe(method string, d time.Duration, failed bool) {
	m, ok := c.methods[method]
	if !ok {
		m = c.methods[unknownMethod]
	}
	us := min(d.Microseconds(), int64(^uint32(0)))
	m.mu.Lock()
	m.samples[m.count%latencyWindow] = uint32(max(us, 0))
	m.count++
	if failed {
		m.errors++
	}
	m.mu.Unlock()
}

// snapshot returns the figures of every method called at least once.
func (c *callStats) snapshot() map[string]wire.CallStats {
	out := make(map[string]wire.CallStats)
	for name, m := range c.methods {
		m.mu.Lock()
		n := int(min(m.count, latencyWindow))
		s := wire.CallStats{Count: m.count, Errors: m.errors}
		recent := slices.Clone(m.samples[:n])
		m.mu.Unlock()
		if n == 0 {
			continue
		}
		slices.Sort(recent)
		s.P50Us = int64(percentile(recent, 50))
		s.P99Us = int64(percentile(recent, 99))
		out[name] = s
	}
	return out
}

// percentile is the nearest-rank percentile of sorted, non-empty samples.
func percentile(sorted []uint32, p int) uint32 {
	rank := (p*len(sorted) + 99) / 100 // ceil(p/100 * n)
	return sorted[max(rank, 1)-1]
}
