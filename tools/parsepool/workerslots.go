package parsepool

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/hostd-dev/hostd/tools/blocks"
)

// The pool's bookkeeping beside its requests: starting, replacing and
// recording the end of workers, the handles that name a daemon-side
// resolver or checker in the workers, and the tree counters gathered from
// every worker.

// ready returns the slot's worker, starting one if none runs, and how
// long the start took (0 when one was running). The caller holds the
// slot.
func (w *Workers) ready(s *slot) (*proc, uint64, time.Duration, error) {
	w.mu.Lock()
	p, gen := s.p, s.gen
	w.mu.Unlock()
	if p != nil && p.exitStatus() != "" {
		// It died while idle (ended by hand, the system's OOM killer): no
		// request of its own to decline; start another for this one.
		w.ended(s, p, "", &procError{exit: p.exitStatus(), stderr: firstLine(p.stderr.String())})
		p.end(endedNot)
		p = nil
	}
	if p != nil {
		return p, gen, 0, nil
	}
	start := time.Now()
	p, gen, err := w.launch(s)
	return p, gen, time.Since(start), err
}

// launch starts a worker in s, which the caller holds. Close waits for
// every launch under way, so no worker outlives a closed pool.
func (w *Workers) launch(s *slot) (*proc, uint64, error) {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil, 0, errClosed
	}
	w.launches.Add(1)
	w.mu.Unlock()
	defer w.launches.Done()
	cmd, err := w.cfg.Command()
	if err != nil {
		return nil, 0, err
	}
	start := time.Now()
	p, err := startProc(cmd, w.cfg.Spawner, workerConfig{MaxTreeBytes: w.perTree, MaxMemoryBytes: w.cfg.MaxMemoryBytes}, w.job)
	if err != nil {
		return nil, 0, fmt.Errorf("blocks: starting a parse worker: %w", err)
	}
	took := time.Since(start)
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		p.end(endedClose)
		return nil, 0, errClosed
	}
	s.p = p
	s.gen++
	s.releases = nil
	gen := s.gen
	w.stats.Starts++
	w.stats.LastTook = took
	w.mu.Unlock()
	if w.cfg.OnEvent != nil {
		w.cfg.OnEvent(WorkerEvent{Started: true, PID: p.pid, Took: took, Limit: p.limit})
	}
	return p, gen, nil
}

// restart starts a worker in s in the background, unless the slot is
// taken, has one, or the pool is closed: an ended worker is replaced
// before the next request needs it.
func (w *Workers) restart(s *slot) {
	w.mu.Lock()
	if w.closed || s.busy || s.p != nil {
		w.mu.Unlock()
		return
	}
	s.busy = true
	w.mu.Unlock()
	_, _, err := w.launch(s)
	w.mu.Lock()
	s.busy = false
	w.broadcastLocked()
	w.drainWarmsLocked()
	w.mu.Unlock()
	if err != nil && !errors.Is(err, errClosed) && w.cfg.OnEvent != nil {
		w.cfg.OnEvent(WorkerEvent{Why: err.Error()})
	}
}

// ended records that s's worker p ended while serving a request about
// path.
func (w *Workers) ended(s *slot, p *proc, path string, err error) {
	var pe *procError
	errors.As(err, &pe)
	w.mu.Lock()
	if s.p == p {
		s.p = nil
		s.releases = nil
	}
	w.stats.Ended++
	switch {
	case pe == nil:
	case pe.ended == endedTime:
		w.stats.Overruns++
	case pe.ended == endedNot:
		w.stats.Deaths++
	}
	w.mu.Unlock()
	if w.cfg.OnEvent != nil {
		w.cfg.OnEvent(WorkerEvent{PID: p.pid, Path: path, Why: err.Error()})
	}
}

// takeReleases hands the slot's pending releases to its next request.
func (w *Workers) takeReleases(s *slot) []uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	r := s.releases
	s.releases = nil
	return r
}

// handle is a daemon-side resolver's or checker's name in the workers,
// and which workers hold its state.
type handle struct {
	id uint64
	w  *Workers

	mu     sync.Mutex
	places []place // guarded by mu
}

// place is one worker: a slot and the generation of its process.
type place struct {
	s   *slot
	gen uint64
}

func (w *Workers) newHandle() *handle { return &handle{id: w.handles.Add(1), w: w} }

func (h *handle) heldBy(s *slot, gen uint64) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, p := range h.places {
		if p.s == s && p.gen == gen {
			return true
		}
	}
	return false
}

func (h *handle) held(s *slot, gen uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for i, p := range h.places {
		if p.s == s {
			h.places[i].gen = gen
			return
		}
	}
	h.places = append(h.places, place{s, gen})
}

// release tells every worker still holding the handle's state to free it,
// with its next request.
func (h *handle) release() {
	h.mu.Lock()
	places := h.places
	h.places = nil
	h.mu.Unlock()
	w := h.w
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, p := range places {
		if p.s.gen == p.gen && p.s.p != nil && len(p.s.releases) < maxPendingReleases {
			p.s.releases = append(p.s.releases, h.id)
		}
	}
}

// TreeStats adds up the tree caches of the workers running now, as
// Trees.Stats counts them (for tests and benchmarks). A worker that is
// busy is waited for, within ctx.
func (w *Workers) TreeStats(ctx context.Context) (blocks.TreeStats, error) {
	w.mu.Lock()
	var slots []*slot
	for _, s := range w.slots {
		if s.p != nil {
			slots = append(slots, s)
		}
	}
	w.mu.Unlock()
	var sum blocks.TreeStats
	for _, s := range slots {
		rs, err := w.ask(ctx, s, &workerRequest{Op: opStats})
		if err != nil {
			return sum, err
		}
		st := rs.Trees
		sum.Hits += st.Hits
		sum.Incremental += st.Incremental
		sum.Near += st.Near
		sum.Full += st.Full
		sum.Evicted += st.Evicted
		sum.Bytes += st.Bytes
		sum.Cached += st.Cached
	}
	return sum, nil
}

// ask sends rq to the worker of slot s, waiting for the slot within ctx;
// a slot whose worker has ended answers zero.
func (w *Workers) ask(ctx context.Context, s *slot, rq *workerRequest) (*workerResponse, error) {
	w.mu.Lock()
	for s.busy && !w.closed {
		wake := w.wake
		w.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		w.mu.Lock()
	}
	if w.closed || s.p == nil {
		w.mu.Unlock()
		return &workerResponse{}, nil
	}
	s.busy = true
	p := s.p
	w.mu.Unlock()
	rq.Limit = blocks.ParseTimeout
	rs, err := p.exchange(ctx, rq, rq.Limit)
	if err != nil {
		w.ended(s, p, "", err)
	}
	w.release(s, "")
	return rs, err
}
