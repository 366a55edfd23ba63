package blocks

import (
	"container/list"
	"context"
	"fmt"
	"sync"
	"time"

	sitter "github.com/smacker/go-tree-sitter"
)

// treeBytesPerToken is what a cached tree is charged per token of its
// text (treeTokens), above the text itself. Tree-sitter keeps a tree in
// C memory that the daemon cannot ask about, and counting its nodes
// would cost a walk of the whole tree, so the charge is an estimate from
// the text, set above what was measured (BenchmarkTreeMemory: the growth
// of the resident set while 10 trees are held, in a fresh process per
// text). Per token that was 96 bytes (JSON), 129 (TypeScript), 159
// (Python), 259 (Markdown) and 161-258 for the densest texts ("0," and
// "a;" repeated, "*a*" lines); per byte of text it ranges from 30x (real
// TypeScript) to 258x, so a charge per byte would either miss dense
// texts or charge ordinary code many times over. A tree derived from
// another by an incremental parse shares most of its nodes with it, and
// is charged in full all the same.
const treeBytesPerToken = 288

// maxTreeVersionsPerPath is how many versions of one file keep their
// trees. The newest is the base the next version is parsed from; one
// more serves an edit whose tag names the version before.
const maxTreeVersionsPerPath = 2

// treeCost is what a tree of text is charged: the tree and its text,
// which the cache keeps to recognise the version and to diff the next
// one against.
func treeCost(text string) int64 {
	return int64(len(text)) + treeBytesPerToken*int64(treeTokens(text))
}

// treeTokens counts what a grammar's leaves roughly are: every run of
// word bytes (letters, digits, _, and any byte of a multi-byte
// character) and every other byte but spaces, tabs and CRs. It is an
// upper bound of the leaves in every grammar measured, not a lexer.
func treeTokens(text string) int {
	n, inWord := 0, false
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c >= 0x80:
			if !inWord {
				n++
			}
			inWord = true
		case c == ' ', c == '\t', c == '\r':
			inWord = false
		default:
			n++
			inWord = false
		}
	}
	return n
}

// Trees keeps the parse trees of recent file versions for one parse
// worker (the daemon's pool gives each worker its share of the bound and
// routes a path to the worker that parsed it), so a version is parsed
// once however many calls and block ops ask about it, and a new version of a file is parsed incrementally from
// the tree of the one before: tree-sitter reparses only the region the
// edit changed (editsBetween) and reuses the rest.
//
// A version is its path, its grammar and its text, compared byte for
// byte (no digest can collide). Bound: the estimated bytes (treeCost) of
// every tree not yet freed stay within maxBytes
// (config.Limits.MaxParseTreeBytes): past it the least recently used
// trees are evicted, and a path keeps at most maxTreeVersionsPerPath
// versions. A tree larger than the whole bound is used once and never
// cached. The estimate of a tree stays counted until the tree is freed,
// which is when it is evicted and no caller holds it any more: a cached
// tree never outlives its accounting.
//
// Concurrency: safe for concurrent use. Tree-sitter trees are not safe to
// walk from two goroutines (nor is the Go binding's node cache), so the
// cache's own tree is never walked: each caller gets a copy
// (ts_tree_copy, which shares the nodes by reference count) and a lease
// that frees the copy and returns the tree's count. mu is a leaf lock,
// held for map and list work, text compares and tree copies, never
// across a parse or while a tree is freed.
//
// A nil *Trees caches nothing: every request is a parse from scratch.
type Trees struct {
	maxBytes int64

	// mu guards everything below.
	mu     sync.Mutex
	bytes  int64               // treeCost of every entry not yet freed, cached or lent
	byPath map[string][]*entry // cached entries of each path, newest first
	lru    list.List           // cached entries, most recently used at the front
	stats  TreeStats
}

// TreeStats counts how requests for a tree were served, for tests and
// benchmarks.
type TreeStats struct {
	Hits        int   // the version's tree was cached
	Incremental int   // parsed from an earlier version's tree
	Near        int   // of those, parsed from a repair's last candidate's tree (Syntax)
	Full        int   // parsed from scratch
	Evicted     int   // trees evicted
	Bytes       int64 // treeCost of every tree not yet freed
	Cached      int   // trees cached now
}

// entry is one version's tree.
type entry struct {
	path   string
	lang   *Language
	text   string
	tree   *sitter.Tree // the cache's copy: only ever copied, never walked
	cost   int64
	lent   int  // leases not yet released
	cached bool // in byPath and lru; false once evicted
	elem   *list.Element
}

// NewTrees makes a cache of trees within maxBytes (estimated, treeCost).
func NewTrees(maxBytes int64) (*Trees, error) {
	if maxBytes <= 0 {
		return nil, fmt.Errorf("%w: got %d", ErrInvalidLimit, maxBytes)
	}
	return &Trees{maxBytes: maxBytes, byPath: map[string][]*entry{}}, nil
}

// Stats reports the cache's counters and what it holds now.
func (t *Trees) Stats() TreeStats {
	if t == nil {
		return TreeStats{}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.stats
	s.Bytes, s.Cached = t.bytes, t.lru.Len()
	return s
}

// lease is one caller's copy of a tree. release frees the copy and, for a
// cached tree, returns its count.
type lease struct {
	tree *sitter.Tree
	text string
	t    *Trees
	e    *entry // nil: a tree no cache holds, owned by the lease alone
}

func (l *lease) release() {
	if l == nil || l.tree == nil {
		return
	}
	l.tree.Close()
	l.tree = nil
	if l.e == nil {
		return
	}
	l.t.mu.Lock()
	l.e.lent--
	last := !l.e.cached && l.e.lent == 0
	l.t.mu.Unlock()
	if last {
		// No one can lend an evicted entry: it is this lease's to free.
		l.t.free([]*entry{l.e})
	}
}

// request says which tree is wanted and how to get it.
type request struct {
	path string
	lang *Language
	text string
	// base is the text to parse from: its tree is taken from the cache,
	// or parsed and cached first, and text is parsed incrementally from
	// it. Without one (or when it is text itself), text is parsed from
	// the path's newest cached tree in the same grammar, if any.
	base    string
	hasBase bool
	// near, when not nil, is another tree the caller holds (a repair's
	// last candidate), parsed from instead of base's when its text is
	// nearer to text (nearer). get copies it and leaves it to the caller.
	near *lease
	// keep caches the tree of text.
	keep     bool
	backstop time.Duration
}

// get returns a lease on the tree of rq.text, from the cache, an
// incremental parse or a full one; on a failure the lease is nil and why
// and reason are parse's.
func (t *Trees) get(ctx context.Context, rq request) (*lease, Failure, string) {
	if t == nil {
		tree, why, reason := parse(ctx, rq.lang, rq.text, nil, rq.backstop)
		if tree == nil {
			return nil, why, reason
		}
		return &lease{tree: tree, text: rq.text}, parsed, ""
	}
	if l := t.lend(rq); l != nil {
		return l, parsed, ""
	}
	if rq.near != nil && rq.near.text == rq.text && !rq.keep {
		return &lease{tree: rq.near.tree.Copy(), text: rq.text}, parsed, ""
	}
	var from *lease
	fromNear := false
	switch {
	case rq.lang.fromScratch:
		// Parsed in full, with no tree to parse from (languages.go).
	case rq.near != nil && (!rq.hasBase || nearer(rq.near.text, rq.base, rq.text)):
		// A repair's candidates differ from one another in a few lines;
		// one that removes what the last one removed, or breaks what it
		// broke, reuses more of its tree than of the base's. Either
		// gives the answer a full parse gives (in every grammar not
		// parsed from scratch), so only the time differs.
		from, fromNear = &lease{tree: rq.near.tree.Copy(), text: rq.near.text}, true
	case rq.hasBase && rq.base != rq.text:
		// A base that cannot be parsed leaves a parse from scratch.
		from, _, _ = t.get(ctx, request{path: rq.path, lang: rq.lang, text: rq.base, keep: true, backstop: rq.backstop})
	default:
		from = t.lendNewest(rq.path, rq.lang)
	}
	var old *sitter.Tree
	if from != nil {
		defer from.release()
		if edits := editsBetween(from.text, rq.text); len(edits) > 0 {
			old = from.tree // the lease's own copy: editing it touches no one else's
			for _, e := range edits {
				editTree(old, e)
			}
		}
	}
	tree, why, reason := parse(ctx, rq.lang, rq.text, old, rq.backstop)
	if tree == nil {
		return nil, why, reason
	}
	var cost int64
	if rq.keep {
		cost = treeCost(rq.text) // a pass over the text: not under mu
	}
	t.mu.Lock()
	if old != nil {
		t.stats.Incremental++
		if fromNear {
			t.stats.Near++
		}
	} else {
		t.stats.Full++
	}
	if !rq.keep {
		t.mu.Unlock()
		return &lease{tree: tree, text: rq.text}, parsed, ""
	}
	l, evicted := t.insertLocked(rq, tree, cost)
	t.mu.Unlock()
	t.free(evicted)
	return l, parsed, ""
}

// lend returns a lease on the cached tree of rq's version, nil when there
// is none.
func (t *Trees) lend(rq request) *lease {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, e := range t.byPath[rq.path] {
		if e.lang == rq.lang && e.text == rq.text {
			t.stats.Hits++
			return t.lendLocked(e)
		}
	}
	return nil
}

// lendNewest returns a lease on the newest cached tree of path in lang,
// nil when there is none.
func (t *Trees) lendNewest(path string, lang *Language) *lease {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, e := range t.byPath[path] {
		if e.lang == lang {
			return t.lendLocked(e)
		}
	}
	return nil
}

func (t *Trees) lendLocked(e *entry) *lease {
	e.lent++
	t.lru.MoveToFront(e.elem)
	return &lease{tree: e.tree.Copy(), text: e.text, t: t, e: e}
}

// insertLocked caches tree, which costs cost, as rq's version and lends
// it. A version cached meanwhile by another call wins, and tree is
// freed. It returns the evicted entries no lease holds, for the caller
// to free once it has unlocked mu.
func (t *Trees) insertLocked(rq request, tree *sitter.Tree, cost int64) (*lease, []*entry) {
	entries := t.byPath[rq.path]
	for _, e := range entries {
		if e.lang == rq.lang && e.text == rq.text {
			return t.lendLocked(e), []*entry{{tree: tree}}
		}
	}
	if cost > t.maxBytes {
		return &lease{tree: tree, text: rq.text}, nil
	}
	e := &entry{path: rq.path, lang: rq.lang, text: rq.text, tree: tree, cost: cost, cached: true}
	e.elem = t.lru.PushFront(e)
	t.byPath[rq.path] = append([]*entry{e}, entries...)
	t.bytes += cost
	var evicted []*entry
	if old := t.byPath[rq.path]; len(old) > maxTreeVersionsPerPath {
		for _, x := range old[maxTreeVersionsPerPath:] {
			evicted = t.evictLocked(x, evicted)
		}
	}
	// The entries in evicted are freed once mu is unlocked, and stop
	// counting then; the bound counts them as gone.
	for t.bytes-costOf(evicted) > t.maxBytes {
		last := t.lru.Back()
		if last == nil || last.Value.(*entry) == e {
			// What is left over the bound is lent out and freed when
			// its callers are done.
			break
		}
		evicted = t.evictLocked(last.Value.(*entry), evicted)
	}
	return t.lendLocked(e), evicted
}

// evictLocked drops e from the cache. Its tree is freed by the last lease
// on it, or, when no lease holds it, by the caller: evictLocked appends
// it to free. Freeing a large tree walks all of it, so it is done with mu
// unlocked, and the tree stays counted until it is done.
func (t *Trees) evictLocked(e *entry, free []*entry) []*entry {
	if !e.cached {
		return free
	}
	e.cached = false
	t.stats.Evicted++
	t.lru.Remove(e.elem)
	entries := t.byPath[e.path]
	for i, x := range entries {
		if x == e {
			entries = append(entries[:i:i], entries[i+1:]...)
			break
		}
	}
	if len(entries) == 0 {
		delete(t.byPath, e.path)
	} else {
		t.byPath[e.path] = entries
	}
	if e.lent == 0 {
		free = append(free, e)
	}
	return free
}

func costOf(entries []*entry) int64 {
	var sum int64
	for _, e := range entries {
		sum += e.cost
	}
	return sum
}

// free frees the trees of evicted entries no lease holds, then stops
// counting them. mu must not be held.
func (t *Trees) free(entries []*entry) {
	if len(entries) == 0 {
		return
	}
	var freed int64
	for _, e := range entries {
		e.tree.Close()
		e.tree = nil
		freed += e.cost
	}
	t.mu.Lock()
	t.bytes -= freed
	t.mu.Unlock()
}

// Close evicts every tree; trees still lent are freed by their last
// lease. The cache stays usable.
func (t *Trees) Close() {
	if t == nil {
		return
	}
	t.mu.Lock()
	var evicted []*entry
	for t.lru.Len() > 0 {
		evicted = t.evictLocked(t.lru.Front().Value.(*entry), evicted)
	}
	t.mu.Unlock()
	t.free(evicted)
}

// Keep parses text, the version of path a session was shown, and keeps
// its tree (incrementally from the path's newest cached tree, when there
// is one): a worker's half of parsepool.Workers.Warm. The error is a decline's, as
// for AddedErrors.
func (t *Trees) Keep(ctx context.Context, path, text string, maxParseBytes int64) error {
	lang := LanguageFor(path, text)
	switch {
	case lang == nil:
		return fmt.Errorf("%w: %s", ErrUnsupported, path)
	case int64(len(text)) > maxParseBytes:
		return fmt.Errorf("%w: over %d bytes", ErrTooLarge, maxParseBytes)
	}
	l, why, reason := t.get(ctx, request{path: path, lang: lang, text: text, keep: true, backstop: ParseTimeout})
	if l == nil {
		return feedbackFailure(why, reason)
	}
	l.release()
	return nil
}
