package parsepool

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/hostd-dev/hostd/tools/blocks"
	"github.com/hostd-dev/hostd/tools/syntax"
	"github.com/hostd-dev/hostd/workspace"
)

// The daemon's resolvers, syntax checkers and outlines, answered by the
// parse workers (workers.go). What needs no parse (the grammar a path
// gets, the size limit, the line range) is answered here; the rest is a
// request to a worker. A worker that ends during a request (its parse
// overran, its call was cancelled, or it died) is a decline of the
// file's parse, never an error of the daemon.

// WorkerResolver is Resolver with the parse and the resolution done by a
// worker, which keeps the tree between the resolver's requests. It is
// safe for concurrent use, but resolutions are serialized: it lives for
// one edit call.
type WorkerResolver struct {
	w        *Workers
	ctx      context.Context
	path     string
	text     string
	maxBytes int64
	lang     *blocks.Language
	numLines int
	hd       *handle

	// mu guards the fields below.
	mu      sync.Mutex
	closed  bool
	fileErr *blocks.UnresolvedError // a decline that applies to every line
}

// NewResolver prepares block resolution of text, the normalized body of
// the file at path, by the workers, as Trees.NewResolver does in-process:
// ctx bounds every parse, maxParseBytes is the size limit. Nothing is
// asked until the first Resolve.
func (w *Workers) NewResolver(ctx context.Context, path, text string, maxParseBytes int64) (*WorkerResolver, error) {
	if maxParseBytes <= 0 {
		return nil, fmt.Errorf("%w: got %d", blocks.ErrInvalidLimit, maxParseBytes)
	}
	return &WorkerResolver{w: w, ctx: ctx, path: path, text: text, maxBytes: maxParseBytes,
		lang: blocks.LanguageFor(path, text), numLines: blocks.CountLines(text), hd: w.newHandle()}, nil
}

// Language is the grammar name block ops use for this file, "" when the
// file type is unsupported.
func (r *WorkerResolver) Language() string {
	if r.lang == nil {
		return ""
	}
	return r.lang.Name()
}

// Resolve returns the inclusive 1-based span of the block opening at
// line, as Resolver.Resolve does. A decline is an *UnresolvedError.
func (r *WorkerResolver) Resolve(line int) (start, end int, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.closed:
		return 0, 0, blocks.ErrClosed
	case r.lang == nil:
		return 0, 0, blocks.UnsupportedDecline(r.path, line)
	case line < 1 || line > r.numLines:
		return 0, 0, blocks.Decline(blocks.ErrLineRange, line, "line %d is outside the file, which has %d lines", line, r.numLines)
	case int64(len(r.text)) > r.maxBytes:
		return 0, 0, blocks.TooLargeDecline(r.maxBytes, len(r.text), line)
	case r.fileErr != nil:
		e := *r.fileErr
		e.Line = line
		return 0, 0, &e
	}
	rs, err := r.w.do(r.ctx, r.path, &workerRequest{Op: opResolve, Handle: r.hd.id, Path: r.path, Line: line, MaxBytes: r.maxBytes}, r.hd, r.text, "")
	if err != nil {
		r.fileErr = workerDecline(err, r.path, r.lang, len(r.text))
		e := *r.fileErr
		e.Line = line
		return 0, 0, &e
	}
	if rs.Decline != nil {
		ue := rs.Decline.unresolved()
		if rs.FileWide {
			fe := *ue
			fe.Line = 0
			r.fileErr = &fe
		}
		return 0, 0, ue
	}
	return rs.Start, rs.End, nil
}

// Close releases the worker's tree. It is safe to call more than once.
func (r *WorkerResolver) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.closed {
		r.closed = true
		r.hd.release()
	}
}

// workerDecline is the file-wide decline of a request that a worker did
// not answer (workers.do's errors).
func workerDecline(err error, path string, lang *blocks.Language, size int) *blocks.UnresolvedError {
	var pe *procError
	switch {
	case errors.Is(err, errSpent):
		return blocks.SpentDecline(lang, size)
	case errors.Is(err, errBusy):
		return blocks.Decline(blocks.ErrParseBusy, 0, "every parse worker stayed busy with other sessions' parses for %v, so %s was not parsed as %s and block ops are declined; nothing is wrong with the file, and the same call a moment later may well be served; %s",
			workerWait, filepath.Base(path), lang.Name(), blocks.PlainOps)
	case errors.As(err, &pe) && pe.ended == endedTime:
		return blocks.Decline(blocks.ErrParseTime, 0, "the file (%d bytes) could not be parsed as %s within its parse time, so the parse was ended and block ops are declined; %s",
			size, lang.Name(), blocks.PlainOps)
	case errors.As(err, &pe) && pe.ended == endedCancel:
		return blocks.SpentDecline(lang, size)
	case errors.As(err, &pe) && pe.ended == endedNot:
		return blocks.Decline(blocks.ErrParserFailed, 0, "the parser process ended while parsing %s as %s (%s: a failure in the grammar, or the parser's memory limit), so block ops are declined for this file; %s",
			filepath.Base(path), lang.Name(), pe.exit, blocks.PlainOps)
	}
	return blocks.Decline(blocks.ErrParserFailed, 0, "the file %s could not be parsed as %s: %v, so block ops are declined; %s",
		filepath.Base(path), lang.Name(), err, blocks.PlainOps)
}

// WorkerSyntax is Syntax with every check done by a worker, which parses
// each candidate from the file's cached tree or the last candidate's.
// It is safe for concurrent use.
type WorkerSyntax struct {
	w        *Workers
	ctx      context.Context
	path     string
	base     string
	lang     *blocks.Language
	maxBytes int64
	hd       *handle

	spent       atomic.Bool
	unavailable atomic.Pointer[string]
}

// NewSyntax prepares syntax checks of candidates for the file at path
// whose current text is text, as Trees.NewSyntax does in-process.
func (w *Workers) NewSyntax(ctx context.Context, path, text string, maxParseBytes int64) (*WorkerSyntax, error) {
	if maxParseBytes <= 0 {
		return nil, fmt.Errorf("%w: got %d", blocks.ErrInvalidLimit, maxParseBytes)
	}
	return &WorkerSyntax{w: w, ctx: ctx, path: path, base: text, lang: blocks.LanguageFor(path, text), maxBytes: maxParseBytes, hd: w.newHandle()}, nil
}

// Language is the grammar name, "" when the file type has none.
func (s *WorkerSyntax) Language() string {
	if s == nil || s.lang == nil {
		return ""
	}
	return s.lang.Name()
}

// Check reports whether text parses without ERROR or MISSING nodes, as
// Syntax.Check does. supported is false when nothing is known about the
// text: no grammar, over the limit, refused by its guard, out of parse
// time (Spent), or the worker ended during the check (Unavailable says
// why). A nil *WorkerSyntax has no grammar.
func (s *WorkerSyntax) Check(text string) (supported, clean bool) {
	if s == nil || s.lang == nil || int64(len(text)) > s.maxBytes {
		return false, false
	}
	rs, err := s.w.do(s.ctx, s.path, &workerRequest{Op: opCheck, Handle: s.hd.id, Path: s.path, MaxBytes: s.maxBytes}, s.hd, text, s.base)
	if err != nil {
		ue := workerDecline(err, s.path, s.lang, len(text))
		if errors.Is(ue, blocks.ErrParseTime) {
			s.spent.Store(true)
		}
		why := strings.Replace(ue.Reason, "block ops are declined for this file", "the syntax check could not be made", 1)
		why = strings.Replace(why, "block ops are declined", "the syntax check could not be made", 1)
		why, _, _ = strings.Cut(why, "; "+blocks.PlainOps)
		s.unavailable.Store(&why)
		return false, false
	}
	if rs.Why.OutOfTime() {
		s.spent.Store(true)
	}
	return rs.Supported, rs.Clean
}

// Spent reports whether a check answered unsupported because it ran out
// of the call's parse time (or its worker was ended for that).
func (s *WorkerSyntax) Spent() bool { return s != nil && s.spent.Load() }

// Unavailable is why the last check that could not be made failed ("" when
// none failed): its worker ended (overran its time, died, could not
// start) or the call had no parse time left. A check that is unavailable
// answered supported=false: the text is neither clean nor broken.
func (s *WorkerSyntax) Unavailable() string {
	if s == nil {
		return ""
	}
	if p := s.unavailable.Load(); p != nil {
		return *p
	}
	return ""
}

// Release frees what the workers keep for this checker (the last
// candidate's tree). The checker stays usable.
func (s *WorkerSyntax) Release() {
	if s != nil {
		s.hd.release()
	}
}

// OutlineLines is Trees.OutlineLines answered by a worker.
func (w *Workers) OutlineLines(ctx context.Context, path, text string, maxParseBytes int64, from, to int) ([]syntax.Decl, error) {
	if maxParseBytes <= 0 {
		return nil, fmt.Errorf("%w: got %d", blocks.ErrInvalidLimit, maxParseBytes)
	}
	lang := blocks.LanguageFor(path, text)
	if lang == nil || int64(len(text)) > maxParseBytes {
		// No parse: the in-process answer is the same and costs nothing.
		return (*blocks.Trees)(nil).OutlineLines(ctx, path, text, maxParseBytes, from, to)
	}
	rs, err := w.do(ctx, path, &workerRequest{Op: opOutline, Path: path, MaxBytes: maxParseBytes, From: from, To: to}, nil, text, "")
	if err != nil {
		ue := workerDecline(err, path, lang, len(text))
		return nil, &blocks.OutlineError{Kind: ue.Kind, Reason: blocks.OutlineReason(ue)}
	}
	if rs.Decline != nil {
		return nil, rs.Decline.outline()
	}
	return rs.Decls, nil
}

// AddedErrors is Trees.AddedErrors answered by a worker: the one that
// holds the file's tree when it is free, which then parses only what the
// change touched. Both texts go with the request (the new one as what
// differs from the old), so any worker can answer. What needs no parse
// (no grammar, over the limit) is answered here. A worker that ends
// during the request (it overran, died, or could not start) is an error
// that unwraps to ErrParseTime or ErrParserFailed: the check was not
// made.
func (w *Workers) AddedErrors(ctx context.Context, path, before string, hadBefore bool, after string, copies []workspace.Copy, known []syntax.ErrorRegion, maxParseBytes int64) (added, old []syntax.ErrorRegion, err error) {
	if maxParseBytes <= 0 {
		return nil, nil, fmt.Errorf("%w: got %d", blocks.ErrInvalidLimit, maxParseBytes)
	}
	lang := blocks.LanguageFor(path, after)
	if hadBefore {
		lang = blocks.LanguageFor(path, before)
	}
	if lang == nil || lang.EveryTextParses() || int64(len(after)) > maxParseBytes || hadBefore && int64(len(before)) > maxParseBytes {
		// No parse: the in-process answer is the same and costs nothing.
		return (*blocks.Trees)(nil).AddedErrors(ctx, path, before, hadBefore, after, copies, known, maxParseBytes)
	}
	rq := &workerRequest{Op: opErrors, Path: path, MaxBytes: maxParseBytes, Copies: copies, Known: known, Text: after, HasText: true}
	if hadBefore {
		rq.Base, rq.HasBase = before, true
		if len(after) >= minDeltaBytes {
			rq.Delta = true
			rq.Prefix, rq.Suffix, rq.Text = blocks.Delta(before, after)
		}
	}
	rs, err := w.do(ctx, path, rq, nil, after, before)
	if err != nil {
		ue := workerDecline(err, path, lang, len(after))
		why := strings.Replace(ue.Reason, "block ops are declined for this file", "the syntax check could not be made", 1)
		why = strings.Replace(why, "block ops are declined", "the syntax check could not be made", 1)
		why, _, _ = strings.Cut(why, "; "+blocks.PlainOps)
		return nil, nil, &declineError{reason: why, kind: ue.Kind}
	}
	if rs.Decline != nil {
		return nil, nil, rs.Decline.plain()
	}
	return rs.Errors, rs.Old, nil
}
