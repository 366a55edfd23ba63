package parsepool

import (
	"context"
	"hash/maphash"
	"time"

	"github.com/hostd-dev/hostd/tools/blocks"
)

// Warming: a version of a file a session was just shown is parsed in the
// background, so the edit that usually follows finds its tree in a worker
// and parses only the new version, incrementally (its syntax feedback,
// edit-contract §5.6, and its block ops). A model takes seconds to write
// an edit; the parse of what it read takes milliseconds, and without a
// warm it is paid inside the edit call.
//
// A warm is best effort and never in anyone's way: one runs at a time in
// the pool, only on a worker that is running and idle while another slot
// stays free for the calls' own requests, and a request about the path a
// worker is warming waits for that tree instead of parsing the file again
// beside it. Warms that find no such worker wait in a short queue for one
// to be released, the newest first, and the oldest are dropped past it.

// maxPendingWarms bounds the warms waiting for a worker: a model that
// reads many files edits one of the last it read.
const maxPendingWarms = 4

// warmRequest is one version to warm.
type warmRequest struct {
	path, text string
	sum        uint64 // text's digest (warmSeed)
	maxBytes   int64
	limit      time.Duration
}

// warmSeed keys the digests of warmed texts.
var warmSeed = maphash.MakeSeed()

// Warm asks for text, the version of path a session was just shown, to be
// parsed by a worker and its tree kept, within limit (the parse time of a
// call). It returns at once. Nothing is done in a pool of one worker, for
// a file without a grammar, an empty text or one over maxParseBytes, for
// the version the pool warmed last for path on a worker still running,
// or in a closed pool.
func (w *Workers) Warm(path, text string, maxParseBytes int64, limit time.Duration) {
	if len(w.slots) < 2 || text == "" || int64(len(text)) > maxParseBytes || limit <= 0 || blocks.LanguageFor(path, text) == nil {
		return // a pool of one has no worker to spare
	}
	sum := maphash.String(warmSeed, text)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	if a, ok := w.affinity[path]; ok && a.s.gen == a.gen && a.s.p != nil && w.warmed[path] == sum {
		return
	}
	for i, q := range w.warms {
		if q.path == path {
			w.warms = append(w.warms[:i], w.warms[i+1:]...)
			break
		}
	}
	w.warms = append(w.warms, warmRequest{path: path, text: text, sum: sum, maxBytes: maxParseBytes, limit: limit})
	if len(w.warms) > maxPendingWarms {
		w.warms = w.warms[1:]
	}
	w.drainWarmsLocked()
}

// drainWarmsLocked starts the newest pending warm when none runs and a
// worker can take it (warmSlotLocked); the warm starts the next when it
// ends. Called with mu held.
func (w *Workers) drainWarmsLocked() {
	if w.warming || w.closed || len(w.warms) == 0 {
		return
	}
	q := w.warms[len(w.warms)-1]
	s := w.warmSlotLocked(q.path)
	if s == nil {
		return
	}
	w.warms = w.warms[:len(w.warms)-1]
	w.warming = true
	s.busy, s.warming = true, q.path
	if len(w.affinity) >= maxAffinity {
		clear(w.affinity)
	}
	if len(w.warmed) >= maxAffinity {
		clear(w.warmed)
	}
	w.affinity[q.path] = place{s, s.gen}
	w.warmed[q.path] = q.sum
	if spare := w.spareLocked(); spare != nil {
		go w.restart(spare)
	}
	go w.warm(s, q)
}

// warmSlotLocked picks the worker a warm of path may take: running and
// idle, the one that last parsed path when it is (its tree is the base of
// an incremental parse), and never the last free slot.
func (w *Workers) warmSlotLocked(path string) *slot {
	free := 0
	var pick *slot
	for _, s := range w.slots {
		if s.busy {
			continue
		}
		free++
		if s.p != nil && pick == nil {
			pick = s
		}
	}
	if a, ok := w.affinity[path]; ok && !a.s.busy && a.s.p != nil && a.s.gen == a.gen {
		pick = a.s
	}
	if free < 2 {
		return nil
	}
	return pick
}

// warm runs one warm on s, which drainWarmsLocked took, then the next.
func (w *Workers) warm(s *slot, q warmRequest) {
	ctx, cancel := context.WithTimeout(context.Background(), q.limit)
	defer cancel()
	rq := &workerRequest{Op: opWarm, Path: q.path, MaxBytes: q.maxBytes}
	// A warm that fails (a worker that ends on this text) is left at
	// that: the worker was replaced, and the edit's own parse of the
	// file answers for itself.
	_, _ = w.serveOn(ctx, s, "", time.Now().Add(q.limit), q.path, rq, nil, q.text, "")
	w.mu.Lock()
	w.warming = false
	w.stats.Warms++
	w.broadcastLocked()
	w.drainWarmsLocked()
	w.mu.Unlock()
}

// Settle waits, within ctx, until no warm runs and none waits that a
// worker could take: for tests and benchmarks that measure an edit made
// after the model's turn, not in the middle of the parse its read
// started. Warms that no worker can take (a pool of one, none started)
// are left waiting.
func (w *Workers) Settle(ctx context.Context) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for !w.closed && (w.warming || len(w.warms) > 0) {
		if !w.warming {
			w.drainWarmsLocked()
			if !w.warming && !w.anyBusyLocked() {
				return nil // nothing will free a worker for them
			}
		}
		wake := w.wake
		w.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			w.mu.Lock()
			return ctx.Err()
		}
		w.mu.Lock()
	}
	return nil
}

// anyBusyLocked says a slot is held: its release may let a warm start.
func (w *Workers) anyBusyLocked() bool {
	for _, s := range w.slots {
		if s.busy {
			return true
		}
	}
	return false
}
