package blocks

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hostd-dev/hostd/internal/spawn"
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
// else it waits for one within its parse time. While fewer than Count
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
	affinity map[string]place  // the worker that last parsed each path
	owners   map[string]bool   // owners with a request running
	wake     chan struct{}     // closed and replaced when a slot or an owner frees up
	warms    []warmRequest     // warms waiting for a worker, oldest first (warm.go)
	warmed   map[string]uint64 // the digest of the text last warmed for each path
	warming  bool              // a warm runs
	closed   bool
	stats    WorkerStats

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
	busy     bool     // a request, or a start, holds the slot
	warming  string   // the path a warm (warm.go) holding the slot parses
	releases []uint64 // handles to release with the slot's next request
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
		return nil, fmt.Errorf("%w: %d workers", ErrInvalidLimit, cfg.Count)
	case cfg.MaxTreeBytes/int64(cfg.Count) <= 0:
		return nil, fmt.Errorf("%w: %d tree bytes for %d workers", ErrInvalidLimit, cfg.MaxTreeBytes, cfg.Count)
	case cfg.MaxMemoryBytes < 0:
		return nil, fmt.Errorf("%w: %d bytes of worker memory", ErrInvalidLimit, cfg.MaxMemoryBytes)
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

// errSpent is a request whose call had no parse time left.
var errSpent = errors.New("blocks: no parse time left")

// do sends rq, about path, to a worker and returns its answer. hd, when
// not nil, is the daemon-side object asking: its texts (text, and base
// for a check) go with its first request to each worker, and the worker
// asks for them again if it dropped the handle. The error is errSpent
// (ctx's deadline passed, or it was cancelled, before a worker took the
// request), errClosed, a start failure, or a *procError.
func (w *Workers) do(ctx context.Context, path string, rq *workerRequest, hd *handle, text, base string) (*workerResponse, error) {
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(parseTimeout)
	}
	if ctx.Err() != nil || !time.Now().Before(deadline) {
		return nil, errSpent
	}
	owner := ""
	if w.cfg.Owner != nil {
		owner = w.cfg.Owner(ctx)
	}
	s, err := w.acquire(ctx, deadline, owner, path)
	if err != nil {
		return nil, err
	}
	return w.serveOn(ctx, s, owner, deadline, path, rq, hd, text, base)
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
				rq.Prefix, rq.Suffix, rq.Text = delta(base, text)
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

// acquire takes a slot for a request of owner about path, waiting (until
// ctx ends or the deadline passes) while the owner has a request running
// or no slot is free.
func (w *Workers) acquire(ctx context.Context, deadline time.Time, owner, path string) (*slot, error) {
	timeout := time.NewTimer(time.Until(deadline))
	defer timeout.Stop()
	w.mu.Lock()
	for {
		if w.closed {
			w.mu.Unlock()
			return nil, errClosed
		}
		if owner == "" || !w.owners[owner] {
			if s := w.pickLocked(path); s != nil {
				s.busy = true
				if owner != "" {
					w.owners[owner] = true
				}
				spare := w.spareLocked()
				w.mu.Unlock()
				if spare != nil {
					go w.restart(spare)
				}
				return s, nil
			}
		}
		wake := w.wake
		w.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return nil, errSpent
		case <-timeout.C:
			return nil, errSpent
		}
		w.mu.Lock()
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
	s.busy, s.warming = false, ""
	if owner != "" {
		delete(w.owners, owner)
	}
	w.broadcastLocked()
	w.drainWarmsLocked()
	w.mu.Unlock()
}

func (w *Workers) broadcastLocked() {
	close(w.wake)
	w.wake = make(chan struct{})
}
