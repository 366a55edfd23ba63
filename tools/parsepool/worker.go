package parsepool

import (
	"bufio"
	"container/list"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/hostd-dev/hostd/tools/blocks"
)

// This file is the worker's side: ServeWorker runs in a process the
// daemon started (workers.go) and answers its requests with tools/blocks'
// in-process API (Trees, Resolver, Syntax, OutlineLines) over one tree
// cache of its own. Nothing here runs in the daemon.

// maxWorkerHandles bounds the resolvers and syntax checkers a worker
// keeps between requests (each may hold a tree). The daemon releases a
// handle when its object is closed; past the bound the least recently
// used is dropped, which costs its next request a re-send of its text.
const maxWorkerHandles = 8

// workerExitOverrun is the status a worker exits with when a request
// outlives its time and the grace the daemon gives it: the daemon ends
// the worker first, and this is the backstop for a daemon that is gone.
const workerExitOverrun = 3

// ServeWorker is a parse worker: it reads its configuration and then
// requests from in, answers each on out, and returns nil when in ends
// (the daemon closed its end or died). The daemon's side is Workers; a
// program serves the worker mode by calling this with its stdin and
// stdout, and nothing else may write to out.
//
// Before its first parse the worker limits its own memory where the
// platform lets a process do that (limitMemory). A request runs within
// the parse time the daemon gave it; one still running killGrace past
// that ends the process (the daemon ends it too, whichever comes first),
// so a parse that cannot be stopped never outlives its call.
func ServeWorker(in io.Reader, out io.Writer) error {
	dec := gob.NewDecoder(bufio.NewReaderSize(in, 64<<10))
	bw := bufio.NewWriterSize(out, 64<<10)
	enc := gob.NewEncoder(bw)
	send := func(v any) error {
		if err := enc.Encode(v); err != nil {
			return err
		}
		return bw.Flush()
	}
	var cfg workerConfig
	if err := dec.Decode(&cfg); err != nil {
		if errors.Is(err, io.EOF) {
			return nil
		}
		return fmt.Errorf("reading the configuration: %w", err)
	}
	hello := workerHello{Protocol: workerProtocol, PID: os.Getpid()}
	trees, err := blocks.NewTrees(cfg.MaxTreeBytes)
	if err == nil && cfg.MaxMemoryBytes > 0 {
		hello.Limit, err = limitMemory(cfg.MaxMemoryBytes)
	}
	if err != nil {
		hello.Err = err.Error()
		_ = send(hello)
		return err
	}
	if err := send(hello); err != nil {
		return err
	}
	w := &worker{trees: trees, handles: map[uint64]*list.Element{}}
	for {
		var rq workerRequest
		if err := dec.Decode(&rq); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("reading a request: %w", err)
		}
		w.release(rq.Release)
		overrun := time.AfterFunc(rq.Limit+2*killGrace, func() {
			fmt.Fprintf(os.Stderr, "parse worker: a request on %s ran past its %v and the grace after it; ending\n", rq.Path, rq.Limit)
			os.Exit(workerExitOverrun)
		})
		rs := w.serve(&rq)
		overrun.Stop()
		if err := send(rs); err != nil {
			return err
		}
	}
}

// worker is one worker process's state. Requests come one at a time, so
// it needs no lock.
type worker struct {
	trees   *blocks.Trees
	handles map[uint64]*list.Element // of lru; Value is *workerHandle
	lru     list.List                // most recently used at the front
}

// workerHandle is what the worker keeps for one daemon-side object.
type workerHandle struct {
	id  uint64
	res *blocks.Resolver
	syn *blocks.Syntax
}

func (h *workerHandle) close() {
	if h.res != nil {
		h.res.Close()
	}
	h.syn.Release()
}

// handle returns the state kept for id, nil when there is none.
func (w *worker) handle(id uint64) *workerHandle {
	e, ok := w.handles[id]
	if !ok {
		return nil
	}
	w.lru.MoveToFront(e)
	return e.Value.(*workerHandle)
}

// keep stores h, dropping the least recently used handle past the bound.
func (w *worker) keep(h *workerHandle) {
	w.handles[h.id] = w.lru.PushFront(h)
	for w.lru.Len() > maxWorkerHandles {
		old := w.lru.Back()
		w.drop(old.Value.(*workerHandle).id)
	}
}

func (w *worker) drop(id uint64) {
	if e, ok := w.handles[id]; ok {
		delete(w.handles, id)
		w.lru.Remove(e)
		e.Value.(*workerHandle).close()
	}
}

func (w *worker) release(ids []uint64) {
	for _, id := range ids {
		w.drop(id)
	}
}

// serve answers one request within its time.
func (w *worker) serve(rq *workerRequest) *workerResponse {
	ctx, cancel := context.WithTimeout(context.Background(), rq.Limit)
	defer cancel()
	switch rq.Op {
	case opResolve:
		return w.resolve(ctx, rq)
	case opCheck:
		return w.check(ctx, rq)
	case opOutline:
		decls, err := w.trees.OutlineLines(ctx, rq.Path, rq.Text, rq.MaxBytes, rq.From, rq.To)
		return &workerResponse{Decls: decls, Decline: toWire(err)}
	case opStats:
		return &workerResponse{Trees: w.trees.Stats()}
	case opErrors:
		return w.errors(ctx, rq)
	case opWarm:
		return &workerResponse{Decline: toWire(w.trees.Keep(ctx, rq.Path, rq.Text, rq.MaxBytes))}
	}
	return &workerResponse{Decline: toWire(fmt.Errorf("parse worker: unknown request %d", rq.Op))}
}

func (w *worker) resolve(ctx context.Context, rq *workerRequest) *workerResponse {
	h := w.handle(rq.Handle)
	if h == nil || h.res == nil {
		if !rq.HasText {
			return &workerResponse{NeedText: true}
		}
		r, err := w.trees.NewResolver(ctx, rq.Path, rq.Text, rq.MaxBytes)
		if err != nil {
			return &workerResponse{Decline: toWire(err)}
		}
		w.drop(rq.Handle)
		h = &workerHandle{id: rq.Handle, res: r}
		w.keep(h)
	}
	start, end, fileWide, err := h.res.ResolveIn(ctx, rq.Line)
	return &workerResponse{Start: start, End: end, Decline: toWire(err), FileWide: fileWide}
}

func (w *worker) check(ctx context.Context, rq *workerRequest) *workerResponse {
	h := w.handle(rq.Handle)
	if h == nil || h.syn == nil {
		if !rq.HasBase {
			return &workerResponse{NeedText: true}
		}
		s, err := w.trees.NewSyntax(ctx, rq.Path, rq.Base, rq.MaxBytes)
		if err != nil {
			return &workerResponse{Decline: toWire(err)}
		}
		w.drop(rq.Handle)
		h = &workerHandle{id: rq.Handle, syn: s}
		w.keep(h)
	}
	text := rq.Text
	if rq.Delta {
		base := h.syn.Base()
		if rq.Prefix < 0 || rq.Suffix < 0 || rq.Prefix+rq.Suffix > len(base) {
			return &workerResponse{Decline: toWire(fmt.Errorf("parse worker: a delta of %d+%d bytes on a %d-byte base", rq.Prefix, rq.Suffix, len(base)))}
		}
		text = base[:rq.Prefix] + rq.Text + base[len(base)-rq.Suffix:]
	}
	sup, clean, why := h.syn.CheckIn(ctx, text)
	return &workerResponse{Supported: sup, Clean: clean, Why: why}
}

func (w *worker) errors(ctx context.Context, rq *workerRequest) *workerResponse {
	text := rq.Text
	if rq.Delta {
		if !rq.HasBase || rq.Prefix < 0 || rq.Suffix < 0 || rq.Prefix+rq.Suffix > len(rq.Base) {
			return &workerResponse{Decline: toWire(fmt.Errorf("parse worker: a delta of %d+%d bytes on a %d-byte base", rq.Prefix, rq.Suffix, len(rq.Base)))}
		}
		text = rq.Base[:rq.Prefix] + rq.Text + rq.Base[len(rq.Base)-rq.Suffix:]
	}
	added, old, err := w.trees.AddedErrors(ctx, rq.Path, rq.Base, rq.HasBase, text, rq.Copies, rq.Known, rq.MaxBytes)
	return &workerResponse{Errors: added, Old: old, Decline: toWire(err)}
}
