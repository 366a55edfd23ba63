package tools

import (
	"context"
	"runtime"
	"sync"

	"golang.org/x/sync/semaphore"

	"github.com/hostd-dev/hostd/workspace"
)

// A directory grep runs as a pipeline: one goroutine walks the tree and
// offers its files in walk order; up to limits.grepThreads goroutines
// (GOMAXPROCS when 0) open, read and search them; the calling goroutine
// takes their results back in walk order and applies the call's bounds,
// so the answer is the one a single goroutine would give, whichever
// search finishes first.
//
// What is in flight is bounded: at most grepInFlight files are offered and
// not yet taken, whatever the number of searchers; each open file keeps its
// directory's descriptor until it is opened (dirRef), and the bytes read
// at once stay within grepReadBudget plus unbudgetedRead per searcher. A
// file taken later holds its matches (at most about maxResultBytes) and,
// when it matched, its text if small enough to retain
// (maxRetainedFileBytes), so the results waiting for take hold at most
// grepInFlight times their sum: 160 MiB with the defaults, reached only
// when every file is a 2 MiB file that matches. Once take has what the
// call can show, or the call is cancelled, the walk and the searchers stop
// and the pipeline is drained before grep returns.

// grepInFlight bounds the files offered to the searchers and not yet
// taken. The walk hands them over in batches (grepBatchSize), so that a
// tree of small files costs a channel send per batch, not per file.
const grepInFlight = 64

// grepBatchSize is the batch for n searchers: up to 16 files, and small
// enough that every searcher has two batches in the window.
func grepBatchSize(n int) int { return max(1, min(16, grepInFlight/(2*n))) }

// grepReadBudget bounds the bytes of the files searched at once, with at
// least one file of the largest size grep reads always allowed.
func grepReadBudget(limit int64) int64 { return max(32<<20, readWeight(limit, limit)) }

// grepThreads is how many goroutines search for one call.
func grepThreads(configured int) int {
	if configured > 0 {
		return configured
	}
	return runtime.GOMAXPROCS(0)
}

// grepJob is a batch of files offered by the walk, in walk order; done
// receives their results, in the same order.
type grepJob struct {
	cds  []candidate
	done chan []*fileResult
}

// walk greps the directory p with w, on one goroutine or on a pipeline.
func (g *grepper) walk(w *walker, p workspace.Path) error {
	n := grepThreads(g.c.Limits.GrepThreads)
	if n == 1 {
		var buf []byte
		w.ctx = g.ctx
		w.visit = func(cd candidate) error {
			_, err := g.take(g.search(g.ctx, cd, nil, &buf))
			return err
		}
		return w.walk(p.Dir(), p.Abs, p.Display)
	}

	// ctx stops the walk and the searchers once take is done or the call
	// is cancelled.
	ctx, cancel := context.WithCancel(g.ctx)
	defer cancel()
	g.reads = semaphore.NewWeighted(grepReadBudget(g.c.Limits.MaxGrepFileBytes))
	jobs := make(chan *grepJob)
	// A job waits in order from its offer until take starts on it; with
	// the one take holds, that is grepInFlight files at most.
	batchSize := grepBatchSize(n)
	order := make(chan *grepJob, max(1, grepInFlight/batchSize-1))

	var searchers sync.WaitGroup
	for range n {
		searchers.Go(func() {
			var buf []byte
			for j := range jobs {
				rs := make([]*fileResult, len(j.cds))
				for i, cd := range j.cds {
					rs[i] = g.search(ctx, cd, nil, &buf)
				}
				j.done <- rs
			}
		})
	}
	var walkErr error
	go func() {
		defer close(order)
		defer close(jobs)
		var batch []candidate
		// flush sends the batch to take's queue first: its room bounds the
		// files in flight, and a job in it always reaches a searcher.
		flush := func() error {
			j := &grepJob{cds: batch, done: make(chan []*fileResult, 1)}
			batch = nil
			select {
			case order <- j:
			case <-ctx.Done():
				for _, cd := range j.cds {
					cd.letGo()
				}
				return ctx.Err()
			}
			jobs <- j
			return nil
		}
		w.ctx = ctx
		w.visit = func(cd candidate) error {
			batch = append(batch, cd)
			if len(batch) < batchSize {
				return nil
			}
			return flush()
		}
		walkErr = w.walk(p.Dir(), p.Abs, p.Display)
		if walkErr == nil && len(batch) > 0 {
			walkErr = flush()
		}
		for _, cd := range batch {
			cd.letGo() // the walk failed with these not yet offered
		}
	}()

	var err error
	for j := range order {
		if err != nil {
			continue // draining: the searchers finish what they hold
		}
		for _, r := range <-j.done {
			if err = g.ctx.Err(); err == nil {
				_, err = g.take(r)
			}
			if err != nil {
				cancel()
				break
			}
		}
	}
	searchers.Wait()
	if err == nil {
		err = walkErr
	}
	return err
}
