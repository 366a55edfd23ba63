package blocks

import (
	"context"
	"hash/maphash"
	"os"
	"runtime"
	"strconv"
	"sync"
	"time"

	sitter "github.com/smacker/go-tree-sitter"
)

// parseTimeout bounds one parse. Tree-sitter is linear on ordinary input
// and the text is already capped at the parse limit; this is the backstop
// for a pathological input that drives error recovery into a long search,
// for a caller that gives no deadline. An edit call gives one: its parse
// time (config.Limits.MaxParseMs) across every parse it makes.
const parseTimeout = 10 * time.Second

// failure is why a text was not parsed.
type failure uint8

const (
	parsed  failure = iota
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

// A parse that runs past its limit is left to finish on its own. The
// reader's cut stops most overruns within milliseconds, but not all: in
// error recovery a grammar's lexer can rescan, once per character it
// skips, text it was already handed, and no clock is read inside that
// loop. 256 KiB of quotes as Lua took over three minutes with a
// one-second limit, and a long run of '#' as Swift held a parse past two
// minutes (TestParseStress, HOSTD_STRESS=long). A cgo call cannot be
// stopped, so parse waits for it until its limit and overrunGrace have
// passed, then answers timeout while the parse goes on in the background,
// holding what it uses, and frees its tree when it ends. Its thread is
// demoted to the lowest priority, so it runs on what other work leaves
// idle. Two bounds keep that from growing: at most maxOverrunning such
// parses run at once (past that, parse refuses at once, as timed out),
// and the texts that overran are remembered (by language and hash, the
// last maxOverrunMemory of them), so the same text is refused at once
// instead of being parsed again.
const (
	overrunGrace     = 250 * time.Millisecond
	maxOverrunning   = 2
	maxOverrunMemory = 256
)

// overruns is the daemon-wide state of overrunning parses, guarded by mu.
var overruns = struct {
	mu      sync.Mutex
	running int                 // parses left to finish in the background
	texts   map[uint64]struct{} // the texts that overran: overrunKey
	order   []uint64            // texts in the order they overran, for eviction
}{texts: map[uint64]struct{}{}}

var overrunSeed = maphash.MakeSeed()

// overrunKey identifies a text in a language among the texts that
// overran.
func overrunKey(lang *language, text string) uint64 {
	var h maphash.Hash
	h.SetSeed(overrunSeed)
	h.WriteString(lang.name)
	h.WriteByte(0)
	h.WriteString(text)
	return h.Sum64()
}

// overrunRefusal is why parse will not start on the text of key, as the
// time it had, or "".
func overrunRefusal(key uint64) string {
	overruns.mu.Lock()
	defer overruns.mu.Unlock()
	if _, ok := overruns.texts[key]; ok {
		return "its time (this same text overran its parse time before)"
	}
	if overruns.running >= maxOverrunning {
		return "its time (" + strconv.Itoa(overruns.running) + " earlier texts that overran theirs are still being parsed)"
	}
	return ""
}

// overran records that the parse of key was left to finish alone.
func overran(key uint64) {
	overruns.mu.Lock()
	defer overruns.mu.Unlock()
	overruns.running++
	if _, ok := overruns.texts[key]; !ok {
		overruns.texts[key] = struct{}{}
		overruns.order = append(overruns.order, key)
		if len(overruns.order) > maxOverrunMemory {
			delete(overruns.texts, overruns.order[0])
			overruns.order = overruns.order[1:]
		}
	}
}

// overrunEnded records that a parse left to finish alone has ended.
func overrunEnded() {
	overruns.mu.Lock()
	overruns.running--
	overruns.mu.Unlock()
}

// parseThread is the OS thread a parse runs on, demoted when the parse
// is left to finish alone.
type parseThread struct {
	tid      chan int // the thread's id, sent once the parse holds it
	mu       sync.Mutex
	demoted  bool // the thread was demoted: it must not serve anyone else
	released bool // the parse has ended and let the thread go
}

// demote lowers the thread's priority, unless the parse has ended
// meanwhile.
func (t *parseThread) demote() {
	tid := <-t.tid
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.released {
		t.demoted = demote(tid)
	}
}

// run runs parse on a thread of its own, locked to it, and sends what it
// returns to done. The parse keeps its thread so that, if it overruns,
// the thread can be demoted and then end with it instead of serving
// others at that priority. The process's main thread cannot end, so a
// run that finds itself there holds it and runs the parse on another.
func (t *parseThread) run(parse func() parseOutcome, done chan<- parseOutcome) {
	runtime.LockOSThread()
	if tid := threadID(); tid != 0 && tid == os.Getpid() {
		ran := make(chan struct{})
		go func() { t.run(parse, done); close(ran) }()
		<-ran
		runtime.UnlockOSThread()
		return
	}
	defer t.release()
	t.tid <- threadID()
	done <- parse()
}

// release lets the thread go back to the runtime, unless it was demoted:
// then it stays locked, and the runtime ends it with the goroutine.
func (t *parseThread) release() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.released = true
	if !t.demoted {
		runtime.UnlockOSThread()
	}
}

// testHookParse, when a test sets it, runs before each parse on the
// parse's own goroutine: it stands for a grammar that does not stop,
// since the real ones do not overrun reliably (256 KiB of quotes as Lua
// took minutes, and once, run beside other parses, 0.7 ms).
var testHookParse func(text string)

// parseOutcome is what a parse's goroutine hands back.
type parseOutcome struct {
	tree *sitter.Tree
	err  error
	cut  bool
}

// parse parses text in lang unless its guard refuses it, within
// min(backstop, ctx's deadline), and stops early when ctx is cancelled.
// old, when not nil, is the tree of an earlier text already edited
// (Tree.Edit) to match text: tree-sitter then reparses only what the edit
// touched and reuses the rest. The caller still owns old. On a failure
// the tree is nil; reason is the guard's reason (refused) or the time
// limit the parse had, as text (timeout).
func parse(ctx context.Context, lang *language, text string, old *sitter.Tree, backstop time.Duration) (tree *sitter.Tree, why failure, reason string) {
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
	key := overrunKey(lang, text)
	if r := overrunRefusal(key); r != "" {
		return nil, timeout, r
	}
	if limit >= time.Millisecond {
		limit = limit.Round(time.Millisecond)
	}
	// The goroutine owns the parser, the reader and its own copy of old,
	// so the caller may go on (and free old) once parse has answered.
	if old != nil {
		old = old.Copy()
	}
	done := make(chan parseOutcome, 1)
	th := &parseThread{tid: make(chan int, 1)}
	in := &reader{ctx: ctx, text: []byte(text), deadline: time.Now().Add(limit)}
	go th.run(func() parseOutcome {
		if h := testHookParse; h != nil {
			h(text)
		}
		p := sitter.NewParser()
		defer p.Close()
		if old != nil {
			defer old.Close()
		}
		p.SetLanguage(lang.grammar())
		// The operation limit is tree-sitter's own clock, in microseconds;
		// zero would mean none. The reader enforces the same limit inside
		// an operation.
		p.SetOperationLimit(int(max(limit/time.Microsecond, 1)))
		t, err := p.ParseInputCtx(ctx, old, sitter.Input{Read: in.read, Encoding: sitter.InputEncodingUTF8})
		return parseOutcome{tree: t, err: err, cut: in.cut}
	}, done)
	wait := time.NewTimer(limit + overrunGrace)
	defer wait.Stop()
	var o parseOutcome
	select {
	case o = <-done:
	case <-wait.C:
		overran(key)
		th.demote()
		go func() {
			if o := <-done; o.tree != nil {
				o.tree.Close()
			}
			overrunEnded()
		}()
		return nil, timeout, limit.String()
	}
	if o.err != nil || o.tree == nil || o.cut {
		if o.tree != nil {
			o.tree.Close()
		}
		return nil, timeout, limit.String()
	}
	return o.tree, parsed, ""
}
