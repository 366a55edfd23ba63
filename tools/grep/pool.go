package grep

import (
	"context"
	"iter"
	"runtime"
	"sync"

	"golang.org/x/sync/semaphore"

	"github.com/hostd-dev/hostd/workspace"
)

// A directory search on more than one goroutine runs as a pool of
// Options.Threads workers (GOMAXPROCS when 0), the calling goroutine one
// of them. A worker claims the next batch of files from the walk,
// which runs as a coroutine that whichever worker claims advances, so the
// walk's order is the order of the claims; searches the batch with the
// lock let go; and hands the results back. Whoever hands back the oldest
// batch not yet taken takes it, and every batch after it that is back,
// applying the search's bounds in walk order, so the answer is the one a
// single goroutine would give, whichever search finishes first. No
// goroutine waits on another while both have files to search: a worker
// waits only when the window below is full, or for the lock.
//
// What is in flight is bounded: at most grepInFlight files are claimed and
// not yet taken, whatever the number of workers; each open file keeps its
// directory open until it is opened (dirRef), and the bytes read at once
// stay within grepReadBudget plus unbudgetedRead per worker. A file taken
// later holds its matches (at most about MaxAnswerBytes) and, when it
// matched, its text if small enough to retain (RetainFileBytes), so the
// results waiting for take hold at most grepInFlight times their sum:
// 160 MiB with the daemon's defaults, reached only when every file is a
// 2 MiB file that matches. Once take has what the search can show, or the
// search is cancelled, the walk and the workers stop and every claimed
// file is let go before SearchDir returns.

// grepInFlight bounds the files claimed by the workers and not yet taken.
// The walk hands them over in batches (grepBatchSize), so that a tree of
// small files costs a claim per batch, not per file.
const grepInFlight = 64

// grepBatchSize is the batch for n workers: up to 16 files, and small
// enough that every worker has two batches in the window.
func grepBatchSize(n int) int { return max(1, min(16, grepInFlight/(2*n))) }

// grepReadBudget bounds the bytes of the files searched at once, with at
// least one file of the largest size grep reads always allowed.
func grepReadBudget(limit int64) int64 { return max(32<<20, readWeight(limit, limit)) }

// grepThreads is how many goroutines one search runs on.
func grepThreads(configured int) int {
	if configured > 0 {
		return configured
	}
	return runtime.GOMAXPROCS(0)
}

// walk searches the directory p with w, on one goroutine or on a pool.
func (s *search) walk(w *walker, p workspace.Path) error {
	n := grepThreads(s.opt.Threads)
	if n == 1 {
		buf := readBuffers.Get().(*[]byte)
		defer readBuffers.Put(buf)
		w.ctx = s.ctx
		w.visit = func(cd candidate) error {
			r := s.search(s.ctx, cd, nil, buf)
			_, err := s.take(&r)
			return err
		}
		return w.walk(p.Dir(), p.Abs, p.Display)
	}

	// ctx stops the walk and the searches once take is done or the search
	// is cancelled.
	ctx, cancel := context.WithCancel(s.ctx)
	defer cancel()
	s.reads = semaphore.NewWeighted(grepReadBudget(s.opt.MaxFileBytes))
	batchSize := grepBatchSize(n)
	var walkErr error
	batches := func(yield func([]candidate) bool) {
		var batch []candidate
		w.ctx = ctx
		w.visit = func(cd candidate) error {
			batch = append(batch, cd)
			if len(batch) < batchSize {
				return nil
			}
			b := batch
			batch = nil
			// The coroutine runs only when a worker asks for a batch, so
			// b is that worker's, whatever yield returns; false means the
			// pool has stopped and wants no more.
			if !yield(b) {
				return errStop
			}
			return nil
		}
		walkErr = w.walk(p.Dir(), p.Abs, p.Display)
		if walkErr == nil && len(batch) > 0 {
			yield(batch)
			batch = nil
		}
		letGoAll(batch) // the walk failed with these not yet offered
	}
	next, stop := iter.Pull(batches)
	pool := &pool{s: s, ctx: ctx, cancel: cancel, next: next, batchSize: batchSize, done: map[int][]fileResult{}}
	pool.cond.L = &pool.mu
	var workers sync.WaitGroup
	for range n - 1 {
		workers.Go(pool.work)
	}
	pool.work()
	workers.Wait()
	stop() // lets go of the files the walk holds, when take stopped it early
	err := pool.err
	if err == nil {
		err = walkErr
	}
	return err
}

func letGoAll(cds []candidate) {
	for _, cd := range cds {
		cd.letGo()
	}
}

// testHookClaimed, set only by tests, is told the files in flight after
// every claim, with the pool's lock held.
var testHookClaimed func(inFlight int)

// pool is the state the workers of one directory search share.
type pool struct {
	s         *search
	ctx       context.Context // the searches', cancelled once take is done
	cancel    context.CancelFunc
	batchSize int

	// mu guards everything below, and the walk: next is called, and the
	// walk's coroutine runs, with mu held. take runs with mu held.
	mu   sync.Mutex
	cond sync.Cond // signalled when a batch is taken, the walk ends or take stops
	// next claims the walk's next batch; false once the walk is over.
	next     func() ([]candidate, bool)
	walked   bool                 // next has returned false
	claimed  int                  // batches claimed so far, numbered from 0 in walk order
	taken    int                  // batches taken so far: the next to take is number taken
	inFlight int                  // files claimed and not yet taken, at most grepInFlight
	done     map[int][]fileResult // batches searched and not yet taken, by number
	err      error                // what stopped take: errStop, a failure or cancellation
}

// work claims and searches batches until the walk is over or take stops,
// taking every batch it finds ready in order.
func (p *pool) work() {
	buf := readBuffers.Get().(*[]byte)
	defer readBuffers.Put(buf)
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.err == nil && !p.walked {
		if p.inFlight+p.batchSize > grepInFlight {
			p.cond.Wait() // the window is full: the oldest batch is still being searched
			continue
		}
		cds, ok := p.next()
		if !ok {
			p.walked = true
			p.cond.Broadcast()
			break
		}
		seq := p.claimed
		p.claimed++
		p.inFlight += len(cds)
		if testHookClaimed != nil {
			testHookClaimed(p.inFlight)
		}
		p.mu.Unlock()
		rs := make([]fileResult, len(cds))
		for i, cd := range cds {
			rs[i] = p.s.search(p.ctx, cd, nil, buf)
		}
		p.mu.Lock()
		p.done[seq] = rs
		p.takeReadyLocked()
	}
}

// takeReadyLocked takes the batches that are back, in order, from the
// oldest not yet taken; a batch still being searched stops it, and its
// worker takes it and those after it when it hands it back.
func (p *pool) takeReadyLocked() {
	for p.err == nil {
		rs, ok := p.done[p.taken]
		if !ok {
			break
		}
		delete(p.done, p.taken)
		p.taken++
		p.inFlight -= len(rs)
		for i := range rs {
			err := p.s.ctx.Err()
			if err == nil {
				_, err = p.s.take(&rs[i])
			}
			if err != nil {
				p.err = err
				p.cancel()
				break
			}
		}
	}
	p.cond.Broadcast()
}
