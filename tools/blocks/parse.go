package blocks

import (
	"context"
	"time"

	sitter "github.com/smacker/go-tree-sitter"
)

// ParseTimeout bounds one parse. Tree-sitter is linear on ordinary input
// and the text is already capped at the parse limit; this is the backstop
// for a pathological input that drives error recovery into a long search,
// for a caller that gives no deadline. An edit call gives one: its parse
// time (config.Limits.MaxParseMs) across every parse it makes.
const ParseTimeout = 10 * time.Second

// Failure is why a text was not parsed.
type Failure uint8

const (
	parsed  Failure = iota
	refused         // the language's guard refused the text (guard.go)
	spent           // the caller's deadline had passed, or ctx was cancelled, before the parse
	timeout         // the parse ran out of time: the deadline or the backstop
)

// readChunk is how much text the parser gets per read. Tree-sitter checks
// its clock only between parse operations, and in error recovery one
// operation can lex the rest of the text once per character it skips
// (an unterminated bash heredoc of 64 KiB took 8.6 s in one operation).
// The parser reads the text through reader in chunks of this size, and
// reader ends the text early once the time is up, so such a lexing loop
// stops within about readChunk² character steps of the deadline.
const readChunk = 4 << 10

// reader hands the parser text in chunks until the deadline or ctx ends
// the parse; from then on the text ends where the chunks served so far
// end, and cut records that the tree is not a parse of the whole text.
//
// The end must stay where the parser has already seen text: a reader that
// answered "end of text" for an offset it had served before left the
// parser's state inconsistent, and the bash scanner then spun forever in
// one operation (a hang found by TestParseTimeHoldsInsideLexing run many
// times). Text served again is the same text, so the parser sees one
// consistent, shorter document.
type reader struct {
	ctx      context.Context
	text     []byte
	deadline time.Time
	served   int // the end of the furthest chunk handed out
	cut      bool
}

func (r *reader) read(offset uint32, _ sitter.Point) []byte {
	off := int(offset)
	if !r.cut && (time.Now().After(r.deadline) || r.ctx.Err() != nil) {
		r.cut = true
	}
	end := min(off+readChunk, len(r.text))
	if r.cut {
		end = min(end, r.served)
	}
	if off >= end {
		return nil
	}
	r.served = max(r.served, end)
	return r.text[off:end]
}

// parse parses text in lang unless its guard refuses it, within
// min(backstop, ctx's deadline), and stops early when ctx is cancelled.
// old, when not nil, is the tree of an earlier text already edited
// (Tree.Edit) to match text: tree-sitter then reparses only what the edit
// touched and reuses the rest. The caller still owns old. On a failure
// the tree is nil; reason is the guard's reason (refused) or the time
// limit the parse had, as text (timeout).
//
// The parse runs on the calling goroutine and returns when the parser
// does. Tree-sitter looks at its clock between parse operations and the
// reader cuts the text once the time is up, which ends nearly every parse
// at its limit; the rest cannot be stopped from inside the process: in
// error recovery a grammar's lexer can rescan, once per character it
// skips, text it was already handed, with no clock read in that loop
// (256 KiB of quotes as Lua took over three minutes with a one-second
// limit). The daemon therefore parses only in worker processes
// (tools/parsepool), and ends a parse that overruns by ending its worker.
func parse(ctx context.Context, lang *Language, text string, old *sitter.Tree, backstop time.Duration) (tree *sitter.Tree, why Failure, reason string) {
	if r := lang.refuse(text); r != "" {
		return nil, refused, r
	}
	limit := backstop
	if d, ok := ctx.Deadline(); ok {
		limit = min(limit, time.Until(d))
	}
	if limit <= 0 || ctx.Err() != nil {
		return nil, spent, ""
	}
	if limit >= time.Millisecond {
		limit = limit.Round(time.Millisecond)
	}
	if h := parseHook; h != nil {
		h(text)
	}
	in := &reader{ctx: ctx, text: []byte(text), deadline: time.Now().Add(limit)}
	p := sitter.NewParser()
	defer p.Close()
	p.SetLanguage(lang.grammar())
	// The operation limit is tree-sitter's own clock, in microseconds;
	// zero would mean none. The reader enforces the same limit inside an
	// operation.
	p.SetOperationLimit(int(max(limit/time.Microsecond, 1)))
	t, err := p.ParseInputCtx(ctx, old, sitter.Input{Read: in.read, Encoding: sitter.InputEncodingUTF8})
	if err != nil || t == nil || in.cut {
		if t != nil {
			t.Close()
		}
		return nil, timeout, limit.String()
	}
	return t, parsed, ""
}

// OutOfTime says the text was not judged for want of parse time: the
// call's had passed before the parse, or the parse ran out of it.
func (f Failure) OutOfTime() bool { return f == spent || f == timeout }

// SpentDecline declines every block op of a text of size bytes in lang
// whose call had no parse time left.
func SpentDecline(lang *Language, size int) *UnresolvedError {
	return failureDecline(lang, size, spent, "")
}
