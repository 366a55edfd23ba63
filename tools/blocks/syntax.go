package blocks

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
)

// Syntax answers one question for the edit language's boundary repair
// (edit-contract §8.4): does a whole text parse without errors in the
// grammar of one file? It uses the same language table as block
// resolution, so the two never disagree about which files have a grammar.
//
// The grammar is fixed when the Syntax is made, from the file's path and
// its current text (a #! line picks the grammar of an extensionless
// script): every candidate text of one edit is judged by the grammar of
// the file being edited, even a candidate that rewrites its first line.
//
// A Syntax made by NewSyntax holds no tree between calls: each Check
// parses from scratch, answers and frees the tree. One made by
// Trees.NewSyntax parses the file's current text once (or finds it
// cached) and every candidate incrementally, so a repair's checks cost
// little more than one parse: from that tree, or from the tree of the
// last candidate checked when the candidate is nearer to it (two
// candidates that both lack a closer share the reparse of everything
// after it). It keeps that one uncached tree between checks, until the
// next check replaces it or Release frees it. Either is safe for
// concurrent use.
type Syntax struct {
	ctx      context.Context // bounds every parse: the edit call's parse time
	trees    *Trees          // nil: every check parses from scratch
	path     string
	base     string    // the file's current text, which candidates are parsed from
	lang     *Language // nil: no grammar for this file type
	maxBytes int64
	spent    atomic.Bool // a check was cut short by ctx

	// mu guards last, the tree of the last text checked other than base
	// (not cached, owned by the Syntax), nil when there is none. A check
	// takes it out while it parses, so no two parses share it.
	mu   sync.Mutex
	last *lease
}

// NewSyntax prepares syntax checks for the file at path whose current
// normalized text is text. maxParseBytes is
// config.Limits.MaxBlockParseBytes: a text over it is not parsed (Check
// reports it unsupported), the same bound block ops use. Each parse is
// bounded by parseTimeout alone; an edit call uses NewSyntaxContext.
func NewSyntax(path, text string, maxParseBytes int64) (*Syntax, error) {
	return NewSyntaxContext(context.Background(), path, text, maxParseBytes)
}

// NewSyntaxContext is NewSyntax with every parse bounded by ctx: past its
// deadline, or once it is cancelled, Check answers unsupported and Spent
// reports true.
func NewSyntaxContext(ctx context.Context, path, text string, maxParseBytes int64) (*Syntax, error) {
	return (*Trees)(nil).NewSyntax(ctx, path, text, maxParseBytes)
}

// NewSyntax is NewSyntaxContext with its parses served by the cache: the
// current text's tree is taken from it (or parsed, incrementally from the
// path's newest cached version when there is one, and cached), and every
// other text Check is asked about is parsed incrementally from that tree
// and not cached, since all but one candidate are thrown away.
func (t *Trees) NewSyntax(ctx context.Context, path, text string, maxParseBytes int64) (*Syntax, error) {
	if maxParseBytes <= 0 {
		return nil, fmt.Errorf("%w: got %d", ErrInvalidLimit, maxParseBytes)
	}
	return &Syntax{ctx: ctx, trees: t, path: path, base: text, lang: LanguageFor(path, text), maxBytes: maxParseBytes}, nil
}

// Language is the grammar name, "" when the file type has none.
func (s *Syntax) Language() string {
	if s == nil || s.lang == nil {
		return ""
	}
	return s.lang.name
}

// Check reports whether text parses without ERROR or MISSING nodes.
// supported is false when there is no grammar for the file type, when
// text is over the parse limit or has a shape the grammar cannot parse
// safely (guard.go), and when the parse did not finish within its bound:
// in each case nothing is known about the text, and the caller must not
// act on clean. A nil *Syntax has no grammar.
func (s *Syntax) Check(text string) (supported, clean bool) {
	if s == nil {
		return false, false
	}
	supported, clean, _ = s.CheckIn(s.ctx, text)
	return supported, clean
}

// CheckIn is Check with the parse bounded by ctx, and why a text was not
// judged: a parse worker keeps one Syntax across requests, each with its
// own parse time. why is parsed when the text was judged or was not
// parsed at all (no grammar, over the limit).
func (s *Syntax) CheckIn(ctx context.Context, text string) (supported, clean bool, why Failure) {
	if s.lang == nil || int64(len(text)) > s.maxBytes {
		return false, false, parsed
	}
	rq := request{path: s.path, lang: s.lang, text: text, keep: text == s.base, backstop: ParseTimeout}
	if int64(len(s.base)) <= s.maxBytes {
		rq.base, rq.hasBase = s.base, true
	}
	if s.trees != nil {
		rq.near = s.swapLast(nil)
	}
	l, why, _ := s.trees.get(ctx, rq)
	if why == spent || why == timeout {
		s.spent.Store(true)
	}
	if l == nil {
		s.keepLast(rq.near)
		return false, false, why
	}
	clean = !l.tree.RootNode().HasError()
	if s.trees != nil && l.e == nil && text != s.base {
		s.keepLast(l)
		rq.near.release()
	} else {
		l.release()
		s.keepLast(rq.near)
	}
	return true, clean, parsed
}

// swapLast makes l the tree kept between checks and returns the one it
// replaces, now the caller's.
func (s *Syntax) swapLast(l *lease) *lease {
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.last
	s.last = l
	return old
}

// keepLast makes l the tree kept between checks, freeing the one a
// concurrent check may have kept meanwhile.
func (s *Syntax) keepLast(l *lease) {
	if l == nil {
		return
	}
	s.swapLast(l).release()
}

// Release frees the tree the Syntax keeps between checks. The Syntax
// stays usable: the next check parses from the current text's tree.
// Boundary repair calls it when its search is done.
func (s *Syntax) Release() {
	if s != nil {
		s.swapLast(nil).release()
	}
}

// Spent reports whether a Check answered unsupported because it ran out
// of the caller's parse time, rather than for want of a grammar: boundary
// repair then says in its warning that it could not finish.
func (s *Syntax) Spent() bool { return s != nil && s.spent.Load() }

// Check is NewSyntax(path, text, maxParseBytes).Check(text): whether the
// text of the file at path parses cleanly. A non-positive limit, like an
// unsupported file type, reports supported=false.
func Check(path, text string, maxParseBytes int64) (supported, clean bool) {
	s, err := NewSyntax(path, text, maxParseBytes)
	if err != nil {
		return false, false
	}
	return s.Check(text)
}

// Base is the file's current text, which candidates are parsed from.
func (s *Syntax) Base() string { return s.base }
