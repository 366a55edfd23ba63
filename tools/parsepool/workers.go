package parsepool

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hostd-dev/hostd/internal/spawn"
	"github.com/hostd-dev/hostd/tools/blocks"
)

// Workers is the daemon's side of parsing: a pool of worker processes,
// each this program started again in its worker mode (ServeWorker), that
// parse, keep the trees (a tree cache each) and answer block ops, syntax
// checks and outlines. Tree-sitter is C code and some of its parses cannot
// be stopped or end the process (an assertion, a grammar's buffer
// overrun): in a worker, a parse past its time is ended by ending the
// worker, and an abort ends only the worker. Either is answered as a
// decline of that file's parse, the worker is replaced, and the daemon
// and every other call go on.
//
// Scheduling. A worker serves one request at a time. A request goes to
// the worker that last parsed its path (which holds its tree) when that
// one is idle, else to any idle worker, else to a new one up to Count,
// else it waits for one. Waiting is not parsing: the call's parse time
// stops while it waits (the time waited is added to it, for this request
// and the call's later ones), and the wait has a bound of its own,
// workerWait, past which the request is declined as busy (ErrParseBusy:
// retriable), not as too slow. A worker that frees up goes to the waiting
// request whose owner has used the workers least of late (a decayed sum
// of the time its requests held one; arrival order among equals), so a
// session whose parses are small is served next, not behind every other
// session's large ones (handOffLocked). While fewer than Count
// run, one more is kept started and idle, so a request seldom waits for a
// process to start. An owner (a session: the Owner function reads it from
// the call's context) runs one request at a time, so one session's texts,
// however slow, hold at most one worker and never make another session's
// parses wait while fewer than Count sessions parse at once. Nothing outlives its call: a request's worker
// is ended when no answer comes within its parse time and killGrace, or
// when its call is cancelled, and the call is answered after that.
//
// A read's version is parsed ahead of its edit by a warm (warm.go), on a
// spare worker only, and a request about a file being warmed waits for
// that tree.
//
// Concurrency: safe for concurrent use. mu guards the slots, the
// affinity map, the owners and the warms; it is a leaf lock, never held
// across a request, a process start or a wait.
type Workers struct {
	cfg     WorkersConfig
	perTree int64 // each worker's tree cache bound
	job     *job  // Windows: the job object every worker runs in
	handles atomic.Uint64

	mu       sync.Mutex
	slots    []*slot
	affinity map[string]place           // the worker that last parsed each path
	owners   map[string]bool            // owners with a request running
	waiters  []*waiter                  // requests waiting for a worker, in arrival order (handOffLocked)
	usage    map[string]usage           // each owner's recent worker time, which orders the waiters
	credits  map[<-chan struct{}]credit // what each call's parse context waited for workers
	seq      uint64                     // numbers the waiters in arrival order
	wake     chan struct{}              // closed and replaced when a slot or an owner frees up
	warms    []warmRequest              // warms waiting for a worker, oldest first (warm.go)
	warmed   map[string]uint64          // the digest of the text last warmed for each path
	warming  bool                       // a warm runs
	closed   bool
	stats    WorkerStats

	// handedTo, when set (tests), hears of every slot taken, with the
	// owner taking it; called under mu.
	handedTo func(owner string)

	// launches counts the workers being started (launch); Close waits
	// for them. Added to only under mu while the pool is open.
	launches sync.WaitGroup
}

// WorkersConfig configures a pool.
type WorkersConfig struct {
	// Command returns the command that starts this program in its worker
	// mode (see SelfCommand); the pool sets its stdio and process
	// attributes.
	Command func() (*exec.Cmd, error)
	// Spawner, when set, starts the workers (Command's program and
	// arguments) in place of this process: the daemon's, which forks
	// nothing once it holds its socket (package spawn).
	Spawner *spawn.Spawner
	// Count is the most workers that run at once
	// (config.Limits.MaxParseWorkers).
	Count int
	// MaxTreeBytes bounds the trees all workers keep together
	// (config.Limits.MaxParseTreeBytes): each worker's cache gets an
	// even share.
	MaxTreeBytes int64
	// MaxMemoryBytes bounds each worker's memory
	// (config.Limits.MaxParseWorkerBytes); 0: no limit.
	MaxMemoryBytes int64
	// Owner names the owner of a call from its context ("" for none: no
	// one-at-a-time rule).
	Owner func(context.Context) string
	// OnEvent, when set, hears of every worker that starts or ends.
	OnEvent func(WorkerEvent)
}

// WorkerEvent is a worker starting or ending, for the daemon's log.
type WorkerEvent struct {
	Started bool
	PID     int
	Took    time.Duration // a start: until the worker was ready
	Limit   string        // a start: the memory limit it runs under
	Path    string        // an end: the file whose request it was serving
	Why     string        // an end: why (procError's text)
}

// WorkerStats counts what the pool did, for tests and benchmarks.
type WorkerStats struct {
	Starts   int           // workers started
	Ended    int           // workers ended: deaths, overruns, cancels
	Overruns int           // of those, ended for running past their time
	Deaths   int           // of those, ended on their own (an abort)
	Warms    int           // warms run (warm.go)
	Running  int           // workers running now
	PIDs     []int         // their process ids
	LastTook time.Duration // the last start, until the worker was ready
}

// slot is one place for a worker; its fields are guarded by Workers.mu.
type slot struct {
	p        *proc // nil: no worker runs here
	gen      uint64
	busy     bool      // a request, or a start, holds the slot
	owner    string    // the owner of the request holding it
	since    time.Time // when that request took it
	warming  string    // the path a warm (warm.go) holding the slot parses
	releases []uint64  // handles to release with the slot's next request
}

// maxAffinity bounds the paths whose worker the pool remembers.
const maxAffinity = 4096

// maxPendingReleases bounds a slot's releases waiting for its next
// request; the worker's own bound (maxWorkerHandles) frees any past it.
const maxPendingReleases = 64

// errClosed is a request to a pool that was closed.
var errClosed = errors.New("blocks: the parse workers are shut down")

// NewWorkers makes a pool. No worker starts until Start or the first
// request.
func NewWorkers(cfg WorkersConfig) (*Workers, error) {
	switch {
	case cfg.Command == nil:
		return nil, errors.New("blocks: NewWorkers needs a Command")
	case cfg.Count <= 0:
		return nil, fmt.Errorf("%w: %d workers", blocks.ErrInvalidLimit, cfg.Count)
	case cfg.MaxTreeBytes/int64(cfg.Count) <= 0:
		return nil, fmt.Errorf("%w: %d tree bytes for %d workers", blocks.ErrInvalidLimit, cfg.MaxTreeBytes, cfg.Count)
	case cfg.MaxMemoryBytes < 0:
		return nil, fmt.Errorf("%w: %d bytes of worker memory", blocks.ErrInvalidLimit, cfg.MaxMemoryBytes)
	}
	j, err := newJob(cfg.MaxMemoryBytes)
	if err != nil {
		return nil, err
	}
	w := &Workers{
		cfg:      cfg,
		perTree:  cfg.MaxTreeBytes / int64(cfg.Count),
		job:      j,
		affinity: map[string]place{},
		owners:   map[string]bool{},
		usage:    map[string]usage{},
		credits:  map[<-chan struct{}]credit{},
		warmed:   map[string]uint64{},
		wake:     make(chan struct{}),
	}
	for range cfg.Count {
		w.slots = append(w.slots, &slot{})
	}
	return w, nil
}

// SelfCommand returns a command that runs this program again with args,
// for WorkersConfig.Command: on Linux through /proc/self/exe, so it is
// the same program even after an upgrade replaced its file.
func SelfCommand(args ...string) (*exec.Cmd, error) {
	path, err := selfPath()
	if err != nil {
		return nil, fmt.Errorf("blocks: finding this program to start parse workers: %w", err)
	}
	cmd := exec.Command(path, args...)
	if name, err := os.Executable(); err == nil {
		cmd.Args[0] = name // what a process list shows, not /proc/self/exe
	}
	return cmd, nil
}

// Start starts one worker in the background, so the first parse does not
// wait for a process to start.
func (w *Workers) Start() {
	w.mu.Lock()
	s := w.slots[0]
	w.mu.Unlock()
	go w.restart(s)
}

// Stats reports the pool's counters.
func (w *Workers) Stats() WorkerStats {
	w.mu.Lock()
	defer w.mu.Unlock()
	st := w.stats
	st.PIDs = nil
	for _, s := range w.slots {
		if s.p != nil {
			st.Running++
			st.PIDs = append(st.PIDs, s.p.pid)
		}
	}
	return st
}

// Close ends every worker and refuses requests from then on; requests
// running get their worker's end as an error. It returns once every
// worker has ended, one that was being started too.
func (w *Workers) Close() {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return
	}
	w.closed = true
	var procs []*proc
	for _, s := range w.slots {
		if s.p != nil {
			procs = append(procs, s.p)
		}
	}
	w.broadcastLocked()
	w.mu.Unlock()
	for _, p := range procs {
		p.end(endedClose)
	}
	// A worker being started now is ended by its launch, which sees the
	// pool closed; wait for that, or a daemon that exits next would leave
	// it running (nothing kills an orphan where the system does not tie
	// it to its parent: under wine, or on Windows before it joins the job).
	w.launches.Wait()
	w.job.close()
}

// errSpent is a request whose call had no parse time left, or whose
// call was cancelled before a worker took it.
var errSpent = errors.New("blocks: no parse time left")

// errBusy is a request that waited workerWait for a worker and got none:
// the pool was busy with other requests.
var errBusy = errors.New("blocks: every parse worker stayed busy")

// workerWait bounds how long a request waits for a worker; tests
// shorten it.
var workerWait = 5 * time.Second

// do sends rq, about path, to a worker and returns its answer. hd, when
// not nil, is the daemon-side object asking: its texts (text, and base
// for a check) go with its first request to each worker, and the worker
// asks for them again if it dropped the handle. The parse time is ctx's
// deadline plus the time the call's requests waited for a worker. The
// error is errSpent (no parse time left, or the call cancelled, before a
// worker took the request), errBusy, errClosed, a start failure, or a
// *procError.
func (w *Workers) do(ctx context.Context, path string, rq *workerRequest, hd *handle, text, base string) (*workerResponse, error) {
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(blocks.ParseTimeout)
	}
	deadline = deadline.Add(w.credit(ctx))
	if errors.Is(ctx.Err(), context.Canceled) || !time.Now().Before(deadline) {
		return nil, errSpent
	}
	owner := ""
	if w.cfg.Owner != nil {
		owner = w.cfg.Owner(ctx)
	}
	s, waited, err := w.acquire(ctx, owner, path)
	if err != nil {
		return nil, err
	}
	if waited > 0 {
		w.addCredit(ctx, waited, deadline)
		deadline = deadline.Add(waited)
	}
	return w.serveOn(ctx, s, owner, deadline, path, rq, hd, text, base)
}

// credit is the time one call's requests waited for workers, added to
// its parse time, and when the entry may go: past the call's deadline
// with every credit and the kill grace, no request of it can use it.
type credit struct {
	waited time.Duration
	until  time.Time
}

// credit is what ctx's requests have waited for workers so far.
func (w *Workers) credit(ctx context.Context) time.Duration {
	done := ctx.Done()
	if done == nil {
		return 0
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.credits[done].waited
}

// addCredit adds waited to ctx's credit; deadline is its parse time's end
// before it. Entries past their use are dropped here, so the map holds
// the calls of the last few seconds.
func (w *Workers) addCredit(ctx context.Context, waited time.Duration, deadline time.Time) {
	done := ctx.Done()
	if done == nil {
		return
	}
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	for k, c := range w.credits {
		if now.After(c.until) {
			delete(w.credits, k)
		}
	}
	c := w.credits[done]
	c.waited += waited
	c.until = deadline.Add(waited + killGrace + time.Second)
	w.credits[done] = c
}

// serveOn is do's request on slot s, which the caller took for owner:
// the slot is released when it returns.
func (w *Workers) serveOn(ctx context.Context, s *slot, owner string, deadline time.Time, path string, rq *workerRequest, hd *handle, text, base string) (*workerResponse, error) {
	p, gen, took, err := w.ready(s)
	if err != nil {
		w.release(s, owner)
		return nil, err
	}
	// Starting a worker is not parsing: the time it took is added to
	// this request's (a call's later requests find the worker running).
	deadline = deadline.Add(took)
	limit := time.Until(deadline)
	if limit <= 0 || errors.Is(ctx.Err(), context.Canceled) {
		w.release(s, owner)
		return nil, errSpent
	}
	rq.Limit = limit
	rq.Release = w.takeReleases(s)
	// A worker that holds the handle's state has its texts already: a
	// resolver's text, a checker's base (a checker's candidate is new
	// each time).
	fill := func(all bool) {
		if rq.Op == opErrors {
			return // the caller filled it: both texts go every time
		}
		rq.Text, rq.HasText = text, all || rq.Op != opResolve
		rq.Base, rq.HasBase = "", false
		if rq.Op == opCheck {
			if all {
				rq.Base, rq.HasBase = base, true
			}
			rq.Delta, rq.Prefix, rq.Suffix, rq.Text = true, 0, 0, text
			if len(text) >= minDeltaBytes {
				rq.Prefix, rq.Suffix, rq.Text = blocks.Delta(base, text)
			}
		}
		if !rq.HasText {
			rq.Text = ""
		}
	}
	fill(hd == nil || !hd.heldBy(s, gen))
	rs, err := p.exchange(ctx, rq, limit)
	if err == nil && rs.NeedText {
		fill(true)
		rq.Release, rq.Limit = nil, max(time.Until(deadline), time.Millisecond)
		rs, err = p.exchange(ctx, rq, rq.Limit)
	}
	if err != nil {
		w.ended(s, p, path, err)
		w.release(s, owner)
		go w.restart(s)
		return nil, err
	}
	if hd != nil {
		hd.held(s, gen)
	}
	w.mu.Lock()
	if len(w.affinity) >= maxAffinity {
		clear(w.affinity) // a hint only: the next parse of each path is elsewhere
	}
	w.affinity[path] = place{s, gen}
	w.mu.Unlock()
	w.release(s, owner)
	return rs, nil
}

// waiter is a request waiting for a worker. handOffLocked gives it a
// slot (nil: the pool closed) on ready, and takes it out of the queue.
type waiter struct {
	owner string
	path  string
	seq   uint64
	ready chan *slot // buffered: the hand-off never blocks
}

// acquire takes a slot for a request of owner about path, waiting while
// the owner has a request running or no slot is free, until a slot is
// handed to it, ctx is cancelled (errSpent) or workerWait passes
// (errBusy). The parse time's deadline passing does not end the wait:
// waiting is not parsing. waited is how long it waited.
func (w *Workers) acquire(ctx context.Context, owner, path string) (s *slot, waited time.Duration, err error) {
	start := time.Now()
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil, 0, errClosed
	}
	if owner == "" || !w.owners[owner] {
		if s := w.pickLocked(path); s != nil {
			w.takeLocked(s, owner)
			w.mu.Unlock()
			return s, 0, nil
		}
	}
	w.seq++
	wt := &waiter{owner: owner, path: path, seq: w.seq, ready: make(chan *slot, 1)}
	w.waiters = append(w.waiters, wt)
	w.mu.Unlock()
	timeout := time.NewTimer(workerWait)
	defer timeout.Stop()
	done := ctx.Done()
	for {
		select {
		case s := <-wt.ready:
			if s == nil {
				return nil, 0, errClosed
			}
			return s, time.Since(start), nil
		case <-done:
			if !errors.Is(ctx.Err(), context.Canceled) {
				done = nil // the parse time's deadline: it does not count here
				continue
			}
			return nil, 0, w.leave(wt, errSpent)
		case <-timeout.C:
			return nil, 0, w.leave(wt, errBusy)
		}
	}
}

// leave takes wt out of the queue and returns why; a slot handed to it
// meanwhile is released.
func (w *Workers) leave(wt *waiter, why error) error {
	w.mu.Lock()
	for i, o := range w.waiters {
		if o == wt {
			w.waiters = append(w.waiters[:i], w.waiters[i+1:]...)
			w.mu.Unlock()
			return why
		}
	}
	w.mu.Unlock()
	if s := <-wt.ready; s != nil {
		w.release(s, wt.owner)
	}
	return why
}

// takeLocked gives free slot s to a request of owner, and starts a spare
// worker when s was the last one running free.
func (w *Workers) takeLocked(s *slot, owner string) {
	s.busy, s.owner, s.since = true, owner, time.Now()
	if owner != "" {
		w.owners[owner] = true
	}
	if w.handedTo != nil {
		w.handedTo(owner)
	}
	if spare := w.spareLocked(); spare != nil {
		go w.restart(spare)
	}
}

// handOffLocked gives free slots to waiting requests: each time to the
// one whose owner has used the workers least of late (ties: the first to
// come), among those whose owner has no request running and for which
// a slot is free (pickLocked). When the pool has closed every waiter is
// answered nil.
func (w *Workers) handOffLocked() {
	if w.closed {
		for _, wt := range w.waiters {
			wt.ready <- nil
		}
		w.waiters = nil
		return
	}
	now := time.Now()
	for len(w.waiters) > 0 {
		best, bestSlot, bestUse := -1, (*slot)(nil), 0.0
		for i, wt := range w.waiters {
			if wt.owner != "" && w.owners[wt.owner] {
				continue
			}
			s := w.pickLocked(wt.path)
			if s == nil {
				continue
			}
			use := w.usage[wt.owner].at(now)
			if best < 0 || use < bestUse {
				best, bestSlot, bestUse = i, s, use
			}
		}
		if best < 0 {
			return
		}
		wt := w.waiters[best]
		w.waiters = append(w.waiters[:best], w.waiters[best+1:]...)
		w.takeLocked(bestSlot, wt.owner)
		wt.ready <- bestSlot
	}
}

// usage is an owner's recent worker time: seconds of worker held,
// decaying by half every usageHalfLife.
type usage struct {
	sec float64
	at0 time.Time
}

// usageHalfLife is how fast an owner's worker time is forgotten.
const usageHalfLife = 2 * time.Second

// at is the usage as of now.
func (u usage) at(now time.Time) float64 {
	if u.sec == 0 {
		return 0
	}
	return u.sec * math.Exp2(-now.Sub(u.at0).Seconds()/usageHalfLife.Seconds())
}

// recordUseLocked adds a request's hold of a worker to its owner's usage
// and drops owners whose usage has faded.
func (w *Workers) recordUseLocked(owner string, since time.Time) {
	if owner == "" || since.IsZero() {
		return
	}
	now := time.Now()
	w.usage[owner] = usage{sec: w.usage[owner].at(now) + now.Sub(since).Seconds(), at0: now}
	if len(w.usage) > 256 {
		for o, u := range w.usage {
			if !w.owners[o] && u.at(now) < 1e-3 {
				delete(w.usage, o)
			}
		}
	}
}

// pickLocked chooses a free slot for path: the one holding path's tree,
// else any with a worker running, else an empty one; nil when all are
// busy, or when a worker is warming path (warm.go): the request waits
// for that tree rather than parse the file again beside it.
func (w *Workers) pickLocked(path string) *slot {
	if a, ok := w.affinity[path]; ok && a.s.p != nil && a.s.gen == a.gen {
		switch {
		case !a.s.busy:
			return a.s
		case a.s.warming == path:
			return nil
		}
	}
	var empty *slot
	for _, s := range w.slots {
		switch {
		case s.busy:
		case s.p != nil:
			return s
		case empty == nil:
			empty = s
		}
	}
	return empty
}

// spareLocked returns an empty slot to start a worker in when none that
// runs is free, so the next request (most often another session's: the
// owner of this one waits for it) need not wait for a process to start;
// nil when one is free or every slot is taken.
func (w *Workers) spareLocked() *slot {
	var empty *slot
	for _, s := range w.slots {
		switch {
		case s.busy:
		case s.p != nil:
			return nil
		case empty == nil:
			empty = s
		}
	}
	return empty
}

// release frees a slot taken by acquire.
func (w *Workers) release(s *slot, owner string) {
	w.mu.Lock()
	w.recordUseLocked(owner, s.since)
	s.busy, s.warming, s.owner, s.since = false, "", "", time.Time{}
	if owner != "" {
		delete(w.owners, owner)
	}
	w.broadcastLocked()
	w.drainWarmsLocked()
	w.mu.Unlock()
}

func (w *Workers) broadcastLocked() {
	w.handOffLocked()
	close(w.wake)
	w.wake = make(chan struct{})
}
