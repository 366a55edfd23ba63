package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"golang.org/x/sync/semaphore"

	"github.com/hostd-dev/hostd/session"
	"github.com/hostd-dev/hostd/workspace"
)

// Grep is the grep tool (edit-contract §5.2, wire-contract §4 grep): RE2 search
// over a file or a directory tree. Every file it shows gets a [PATH#TAG]
// header and is recorded in the snapshot store: in content mode with its
// matched lines seen, in the other modes with an empty seen set, which
// makes the tag usable for version checks while every anchor still needs
// a read (§4.3).
type Grep struct{}

// Name implements Tool.
func (Grep) Name() string { return "grep" }

// The output modes of wire-contract §4 grep.
const (
	grepContent = "content"
	grepFiles   = "filesWithMatches"
	grepCount   = "count"
)

type grepArgs struct {
	Pattern    *string `json:"pattern"`
	Path       string  `json:"path"`
	Glob       string  `json:"glob"`
	OutputMode string  `json:"outputMode"`
	IgnoreCase bool    `json:"ignoreCase"`
	HeadLimit  *int    `json:"headLimit"`
}

// GrepMatch is one matched line. Text is clipped like a read line; a
// clipped match is not seen.
type GrepMatch struct {
	Path    string `json:"path"`
	Line    int    `json:"line"`
	Text    string `json:"text"`
	Clipped bool   `json:"clipped,omitempty"`
}

// GrepResult is grep's result (wire-contract §4 grep). Files lists every file
// shown, in walk order, in every mode.
type GrepResult struct {
	Result
	Matches       []GrepMatch       `json:"matches,omitempty"`
	Files         []string          `json:"files"`
	Counts        map[string]int    `json:"counts,omitempty"`
	Tags          map[string]string `json:"tags"`
	Truncated     bool              `json:"truncated"`
	FilesSearched int               `json:"filesSearched"`
	Notice        string            `json:"notice,omitempty"`
}

// grepFile is one file with matches, as the result shows it and the store
// records it.
type grepFile struct {
	abs, display string
	digest       workspace.Digest
	text         string // kept for the store while the retention budget allows
	hasText      bool
	lines        int
	bytes        int64
	count        int
	matches      []GrepMatch
}

// grepper carries one grep call. Files are searched by search, on as many
// goroutines as the call may use (grep_parallel.go); everything below m
// and max is the call's running result, which only take changes, one file
// at a time in walk order, so the result never depends on which search
// finished first.
type grepper struct {
	ctx  context.Context
	c    *Call
	m    *lineMatcher
	mode string
	max  int // results to show: matches in content mode, files otherwise

	files     []*grepFile
	shown     int // results so far
	truncated bool
	searched  int
	kept      int64 // bytes of text held for the store
	answer    int64 // bytes the answer holds so far (answerCost), bounded by maxResultBytes
	overBytes bool  // the output byte limit stopped the search

	// reads bounds the bytes of the files being searched at once, when
	// more than one goroutine searches; nil otherwise.
	reads *semaphore.Weighted
}

// Run implements Tool.
func (Grep) Run(ctx context.Context, c *Call) Outcome {
	var a grepArgs
	if e := DecodeArgs(c.Args, &a); e != nil {
		return Failed(e)
	}
	g := &grepper{ctx: ctx, c: c, mode: a.OutputMode, max: c.Limits.MaxGrepMatches}
	if e := g.setup(a); e != nil {
		return Failed(e)
	}
	path := a.Path
	if path == "" {
		path = "."
	}
	p, e := resolveArg(c, path, workspace.Read)
	if e != nil {
		return Failed(e)
	}
	glob, err := newGlob(a.Glob)
	if err != nil {
		return Failed(Errorf(CodeInvalidArgument, "glob %q is malformed: %v; use shell wildcards such as *.go or src/**/*.ts", a.Glob, err))
	}
	info, err := p.Stat()
	switch {
	case errors.Is(err, workspace.ErrOutside):
		return Failed(statError(p, err))
	case errors.Is(err, fs.ErrNotExist):
		return Failed(missing(c, p))
	case err != nil:
		return Failed(Errorf(CodeToolFailed, "cannot search %s: %v; check the path and call again", p.Display, err))
	case info.IsDir():
		w := newWalker(c.State.Workspace, glob, c.Limits.MaxGrepFileBytes)
		err = g.walk(w, p)
	default:
		f, _, e := openRegular(p)
		if e != nil {
			return Failed(e)
		}
		buf := readBuffers.Get().(*[]byte)
		r := g.search(ctx, candidate{named: &p}, workspace.FileOf(f), buf)
		readBuffers.Put(buf)
		f.Close()
		var skip *Error
		skip, err = g.take(&r)
		if skip != nil {
			return Failed(skip)
		}
	}
	switch {
	case ctx.Err() != nil:
		return Failed(Errorf(CodeToolFailed, "grep was cancelled after searching %d files; nothing was recorded: call again with a narrower path or glob", g.searched))
	case err != nil && !errors.Is(err, errStop):
		return Failed(Errorf(CodeToolFailed, "grep failed: %v; call again", err))
	}
	return g.result(a, p)
}

func (g *grepper) setup(a grepArgs) *Error {
	if a.Pattern == nil {
		return Errorf(CodeInvalidArgument, "pattern is required: pass an RE2 regular expression, e.g. {\"pattern\": \"func main\"}")
	}
	switch g.mode {
	case "":
		g.mode = grepContent
	case grepContent, grepFiles, grepCount:
	default:
		return Errorf(CodeInvalidArgument, "outputMode %q is not one of \"content\", \"filesWithMatches\", \"count\"; omit it for content", g.mode)
	}
	if a.HeadLimit != nil {
		if *a.HeadLimit < 1 {
			return Errorf(CodeInvalidArgument, "headLimit %d must be at least 1; omit it for up to %d results", *a.HeadLimit, g.c.Limits.MaxGrepMatches)
		}
		g.max = min(g.max, *a.HeadLimit)
	}
	m, err := newLineMatcher(*a.Pattern, a.IgnoreCase)
	if err != nil {
		return Errorf(CodeInvalidArgument, "pattern %q is not a usable RE2 expression: %v; escape metacharacters such as ( [ . * + ? with a backslash (RE2 has no lookaround or backreferences) and match within one line", *a.Pattern, err)
	}
	g.m = m
	return nil
}

// take applies the call's bounds to one searched file, in walk order: the
// results so far, the answer's byte bound and the retention budget. It
// returns errStop once the result is full. For a file that was not
// searched or is not text it returns the reason, which only a named file
// reports.
func (g *grepper) take(r *fileResult) (skip *Error, err error) {
	if r.err != nil {
		return nil, r.err
	}
	if r.searched {
		g.searched++
	}
	if r.skip != nil {
		return r.skip, nil
	}
	if r.count == 0 {
		return nil, nil
	}
	lim := g.c.Limits
	gf := r.file
	room := g.max - g.shown // results this file may still add
	fileCost := fileAnswerCost(gf.display)
	full := func(more int64) bool { return g.answer+more > lim.MaxResultBytes }
	switch g.mode {
	case grepContent:
		// r.matches holds every match any room and byte bound could take
		// (search stops collecting past both), so this stops inside it
		// whenever the file has more.
		for _, m := range r.matches {
			gf.count++
			if gf.count > room {
				break
			}
			cost := matchAnswerCost(gf.display, m.Text)
			if gf.count == 1 {
				cost += fileCost
			}
			if full(cost) {
				gf.count--
				g.overBytes = true
				break
			}
			g.answer += cost
			gf.matches = append(gf.matches, m)
		}
	default:
		gf.count = r.count
		// A file listed or counted costs its path in every field.
		if full(fileCost) {
			gf.count = 0
			g.overBytes = true
		} else {
			g.answer += fileCost
		}
	}
	if gf.count == 0 {
		if g.overBytes {
			g.truncated = true
			return nil, errStop
		}
		return nil, nil
	}
	if r.notText != nil {
		return r.notText, nil
	}
	if room <= 0 || (g.mode == grepContent && gf.count > room) || g.overBytes {
		g.truncated = true
	}
	if room <= 0 {
		return nil, errStop
	}
	g.keep(gf, r.text, r.hasText)
	g.files = append(g.files, gf)
	if g.mode == grepContent {
		g.shown += len(gf.matches)
	} else {
		g.shown++
	}
	if g.truncated {
		return nil, errStop
	}
	return nil, nil
}

// fileAnswerCost bounds what one file adds to a grep answer, the JSON of
// the result included: its [PATH#TAG] header in content, its path in
// files, and its entry in tags (and counts).
func fileAnswerCost(display string) int64 { return 4*jsonLen(display) + 64 }

// matchAnswerCost bounds what one match adds: its N:text row in content
// and its {path, line, text, clipped} object in matches, as JSON.
func matchAnswerCost(display, text string) int64 {
	return jsonLen(display) + 2*jsonLen(text) + 72
}

// jsonLen is the length of s as a JSON string's contents, escaped as
// encoding/json escapes it.
func jsonLen(s string) int64 {
	n := int64(len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
			n++
		case c < 0x20 || c == '<' || c == '>' || c == '&':
			n += 5
		}
	}
	return n
}

// keep holds a file's text for the store while the texts held stay within
// what the store can retain for a session; past that, the earliest files
// give theirs up, as the store itself would evict them first.
func (g *grepper) keep(gf *grepFile, text string, hasText bool) {
	lim := g.c.Limits
	if !hasText || int64(len(text)) > lim.MaxRetainedFileBytes {
		return
	}
	gf.text, gf.hasText = text, true
	g.kept += int64(len(text))
	for _, old := range g.files {
		if g.kept <= lim.MaxRetainedBytesPerSession {
			break
		}
		if old.hasText {
			g.kept -= int64(len(old.text))
			old.text, old.hasText = "", false
		}
	}
}

// result records every file shown, in order, and renders the result.
func (g *grepper) result(a grepArgs, p workspace.Path) *GrepResult {
	r := &GrepResult{Files: []string{}, Tags: map[string]string{}, Truncated: g.truncated, FilesSearched: g.searched}
	if g.mode == grepCount {
		r.Counts = map[string]int{}
	}
	var b strings.Builder
	for _, gf := range g.files {
		var shown []int
		for _, m := range gf.matches {
			if !m.Clipped {
				shown = append(shown, m.Line)
			}
		}
		seen := seenLines(shown)
		tag := g.c.State.Store.Record(gf.abs, session.Snapshot{
			Digest: gf.digest, Text: gf.text, HasText: gf.hasText,
			Lines: gf.lines, Bytes: gf.bytes, Seen: seen,
		})
		r.Files = append(r.Files, gf.display)
		r.Tags[gf.display] = tag
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(tagHeader(gf.display, tag))
		switch g.mode {
		case grepContent:
			r.Matches = append(r.Matches, gf.matches...)
			for _, m := range gf.matches {
				fmt.Fprintf(&b, "\n%d:%s", m.Line, m.Text)
				if m.Clipped {
					b.WriteString(clipMarker(g.c.Limits.MaxLineChars))
				}
			}
		case grepCount:
			r.Counts[gf.display] = gf.count
			fmt.Fprintf(&b, "\n%d matching %s", gf.count, plural(gf.count, "line", "lines"))
		}
	}
	r.Notice = g.notice(a, p)
	if r.Notice != "" {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("(" + r.Notice + ")")
	}
	r.Content = b.String()
	return r
}

// seenLines is the set of the ascending line numbers ns, built by halves so
// that thousands of scattered matches cost n log n, not n squared.
func seenLines(ns []int) session.LineSet {
	switch len(ns) {
	case 0:
		return session.Empty()
	case 1:
		return session.Span(ns[0], ns[0])
	}
	return seenLines(ns[:len(ns)/2]).Union(seenLines(ns[len(ns)/2:]))
}

func (g *grepper) notice(a grepArgs, p workspace.Path) string {
	if len(g.files) == 0 {
		return fmt.Sprintf("no matches for %q in %s (%d %s searched); try ignoreCase, a simpler pattern or a wider path", *a.Pattern, p.Display, g.searched, plural(g.searched, "file", "files"))
	}
	if !g.truncated {
		return ""
	}
	what := "files"
	if g.mode == grepContent {
		what = "matches"
	}
	if g.overBytes {
		return fmt.Sprintf("stopped at the %d-byte output limit; more matches exist: narrow the pattern, path or glob", g.c.Limits.MaxResultBytes)
	}
	if a.HeadLimit != nil && *a.HeadLimit == g.max {
		return fmt.Sprintf("stopped at headLimit %d %s; more exist: raise headLimit, or narrow the pattern, path or glob", g.max, what)
	}
	return fmt.Sprintf("stopped at the limit of %d %s; more exist: narrow the pattern, path or glob", g.max, what)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
