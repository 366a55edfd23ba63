package blocks

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	sitter "github.com/smacker/go-tree-sitter"
)

// Resolver resolves block locators against one text. It parses the text
// at most once, on the first Resolve, however many block ops the call
// carries; Close releases the tree. A Resolver is safe for concurrent use,
// but resolutions are serialized: it is meant to live for one edit call.
type Resolver struct {
	ctx      context.Context // bounds the parse: the edit call's parse time
	trees    *Trees          // where the tree comes from; nil: parsed from scratch
	path     string
	text     string
	maxBytes int64
	timeout  time.Duration // parseTimeout; tests shorten it
	lang     *Language     // nil: unsupported file type
	numLines int

	// mu guards everything below. The tree is C memory: a Resolve racing
	// Close must not walk a freed tree.
	mu        sync.Mutex
	closed    bool
	parsed    bool
	parses    int    // how many times the text was parsed (tests check it is 1)
	lease     *lease // this resolver's copy of the tree
	tree      *sitter.Tree
	root      *sitter.Node
	fileErr   *UnresolvedError // a decline that applies to every line
	headings  []heading        // markdown only, built with the tree
	lineIndex []int            // start offset of every lineStride-th row, built on first use
}

// NewResolver prepares block resolution for text, the normalized body (LF
// line endings, no BOM) the tagged snapshot holds, of the file at path.
// The path picks the grammar: by well-known file name, then by extension,
// then by a #! line. maxParseBytes is config.Limits.MaxBlockParseBytes; a
// larger text declines every block op. Nothing is parsed until the first
// Resolve. The parse is bounded by parseTimeout alone; an edit call uses
// NewResolverContext.
func NewResolver(path string, text string, maxParseBytes int64) (*Resolver, error) {
	return NewResolverContext(context.Background(), path, text, maxParseBytes)
}

// NewResolverContext is NewResolver with a parse bounded by ctx: past its
// deadline, or once it is cancelled, the parse stops and every block op
// declines with ErrParseTime. An edit call passes one context to all its
// resolvers and syntax checks, whose deadline is the call's parse time.
// The text is parsed from scratch; a parse worker uses Trees.NewResolver,
// which parses each version once, and the daemon parsepool.Workers.NewResolver.
func NewResolverContext(ctx context.Context, path string, text string, maxParseBytes int64) (*Resolver, error) {
	return (*Trees)(nil).NewResolver(ctx, path, text, maxParseBytes)
}

// NewResolver is NewResolverContext with the tree taken from the cache:
// the cached tree of this version of path, else one parsed incrementally
// from the newest cached version of path, else a full parse; the tree is
// then cached for the next call. Close returns it.
func (t *Trees) NewResolver(ctx context.Context, path string, text string, maxParseBytes int64) (*Resolver, error) {
	if maxParseBytes <= 0 {
		return nil, fmt.Errorf("%w: got %d", ErrInvalidLimit, maxParseBytes)
	}
	return &Resolver{
		ctx:      ctx,
		trees:    t,
		path:     path,
		text:     text,
		maxBytes: maxParseBytes,
		timeout:  ParseTimeout,
		lang:     LanguageFor(path, text),
		numLines: CountLines(text),
	}, nil
}

// Language is the grammar name block ops use for this file, "" when the
// file type is unsupported.
func (r *Resolver) Language() string {
	if r.lang == nil {
		return ""
	}
	return r.lang.name
}

// Resolve returns the inclusive 1-based span of the block opening at line.
// start is always line. A decline is an *UnresolvedError.
func (r *Resolver) Resolve(line int) (start, end int, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.resolveLocked(line)
}

// ResolveIn is Resolve with the parse, if this call makes it, bounded by
// ctx instead of the context the resolver was made with: a parse worker
// keeps one resolver across requests, each with its own parse time.
func (r *Resolver) ResolveIn(ctx context.Context, line int) (start, end int, fileWide bool, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ctx = ctx
	start, end, err = r.resolveLocked(line)
	return start, end, r.fileErr != nil, err
}

func (r *Resolver) resolveLocked(line int) (start, end int, err error) {
	if r.closed {
		return 0, 0, ErrClosed
	}
	if r.lang != nil && (line < 1 || line > r.numLines) {
		return 0, 0, Decline(ErrLineRange, line, "line %d is outside the file, which has %d lines", line, r.numLines)
	}
	if ue := r.loadLocked(line); ue != nil {
		return 0, 0, ue
	}
	s, ue := r.resolveRow(line-1, true)
	if ue != nil {
		return 0, 0, ue
	}
	return s.start + 1, s.end + 1, nil
}

// loadLocked makes sure the text has a clean tree, or returns the decline
// that applies to the whole file, for line.
func (r *Resolver) loadLocked(line int) *UnresolvedError {
	if r.lang == nil {
		return UnsupportedDecline(r.path, line)
	}
	if int64(len(r.text)) > r.maxBytes {
		return TooLargeDecline(r.maxBytes, len(r.text), line)
	}
	if err := r.parseLocked(); err != nil {
		e := *err
		e.Line = line
		return &e
	}
	return nil
}

// Close releases the syntax tree. It is safe to call more than once.
func (r *Resolver) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	r.lease.release()
	r.lease, r.tree, r.root, r.headings = nil, nil, nil, nil
}

// UnsupportedDecline declines every block op of a file type without a
// grammar.
func UnsupportedDecline(path string, line int) *UnresolvedError {
	kind := filepath.Ext(path)
	if kind == "" {
		kind = filepath.Base(path)
	}
	return Decline(ErrUnsupported, line,
		"block ops (N*, >N*) are unavailable for %q files: there is no grammar for that file type (block ops cover %s); %s",
		kind, strings.Join(Languages(), ", "), PlainOps)
}

// TooLargeDecline declines every block op of a text of size bytes, over
// the parse limit max.
func TooLargeDecline(max int64, size, line int) *UnresolvedError {
	return Decline(ErrTooLarge, line,
		"block ops are declined for files over %d bytes (this one has %d), because parsing it would cost too much; %s",
		max, size, PlainOps)
}

// failureDecline declines every block op of a text of size bytes that
// was not parsed in lang: why and reason are parse's.
func failureDecline(lang *Language, size int, why Failure, reason string) *UnresolvedError {
	switch why {
	case refused:
		return Decline(ErrUnsafe, 0, "block ops are declined for this file: %s; %s", reason, PlainOps)
	case spent:
		return Decline(ErrParseTime, 0,
			"this edit call has already spent its parse time, so the file was not parsed as %s and block ops are declined; %s",
			lang.name, PlainOps)
	}
	return Decline(ErrParseTime, 0, "the file (%d bytes) could not be parsed as %s within %s, so block ops are declined; %s",
		size, lang.name, reason, PlainOps)
}

// parseLocked parses the text once. A failure is remembered and returned
// for every later line, since it is a property of the file.
func (r *Resolver) parseLocked() *UnresolvedError {
	if r.parsed {
		return r.fileErr
	}
	r.parsed = true
	r.parses++
	l, why, reason := r.trees.get(r.ctx, request{path: r.path, lang: r.lang, text: r.text, keep: true, backstop: r.timeout})
	if why != parsed {
		r.fileErr = failureDecline(r.lang, len(r.text), why, reason)
		return r.fileErr
	}
	root := l.tree.RootNode()
	if root.HasError() {
		at := firstError(root)
		l.release()
		r.fileErr = Decline(ErrNotClean, 0,
			"the file does not parse cleanly as %s (first syntax error at line %d), so no block span can be trusted; %s",
			r.lang.name, at+1, PlainOps)
		return r.fileErr
	}
	r.lease, r.tree, r.root = l, l.tree, root
	if r.lang.markdown {
		r.headings = collectHeadings(root)
	}
	return nil
}

// firstError finds the row of the first ERROR or MISSING node.
func firstError(n *sitter.Node) int {
	for !n.IsError() && !n.IsMissing() {
		var next *sitter.Node
		eachChild(n, func(c *sitter.Node) bool {
			if c.HasError() {
				next = c
				return false
			}
			return true
		})
		if next == nil {
			break
		}
		n = next
	}
	return int(n.StartPoint().Row)
}

// CountLines counts addressable lines the way workspace.Lines does: a
// terminal newline ends the last line and is not a line itself.
func CountLines(text string) int {
	if text == "" {
		return 0
	}
	n := strings.Count(text, "\n")
	if !strings.HasSuffix(text, "\n") {
		n++
	}
	return n
}

// lineStride is how many lines apart the line index records a start
// offset: lineBounds scans at most this many lines, and the index costs
// one int per stride (at most 512 KiB for a 4 MiB text of empty lines).
const lineStride = 64

// lineBounds returns the byte range of 0-based row, without its newline.
func (r *Resolver) lineBounds(row int) (start, end int) {
	if r.lineIndex == nil {
		for off := 0; ; {
			r.lineIndex = append(r.lineIndex, off)
			for i := 0; i < lineStride && off < len(r.text); i++ {
				nl := strings.IndexByte(r.text[off:], '\n')
				if nl < 0 {
					off = len(r.text)
					break
				}
				off += nl + 1
			}
			if off >= len(r.text) {
				break
			}
		}
	}
	start = r.lineIndex[min(row/lineStride, len(r.lineIndex)-1)]
	for i := row / lineStride * lineStride; i < row; i++ {
		start += strings.IndexByte(r.text[start:], '\n') + 1
	}
	end = len(r.text)
	if nl := strings.IndexByte(r.text[start:], '\n'); nl >= 0 {
		end = start + nl
	}
	return start, end
}
