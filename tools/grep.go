package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/session"
	"github.com/hostd-dev/hostd/tools/grep"
	"github.com/hostd-dev/hostd/workspace"
)

// Grep is the grep tool (edit-contract §5.2, wire-contract §4 grep): RE2 search
// over a file or a directory tree. Every file it shows gets a [PATH#TAG]
// header and is recorded in the snapshot store: in content mode with its
// matched lines seen, in the other modes with an empty seen set, which
// makes the tag usable for version checks while every anchor still needs
// a read (§4.3). The search itself is package grep's; the tool decodes the
// arguments, hands the call's limits to the search, records what it shows
// and renders the answer.
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

// Run implements Tool.
func (Grep) Run(ctx context.Context, c *Call) Outcome {
	var a grepArgs
	if e := DecodeArgs(c.Args, &a); e != nil {
		return Failed(e)
	}
	m, opt, e := grepOptions(c, a)
	if e != nil {
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
	glob, err := grep.ParseGlob(a.Glob)
	if err != nil {
		return Failed(Errorf(wire.ToolInvalidArgument, "glob %q is malformed: %v; use shell wildcards such as *.go or src/**/*.ts", a.Glob, err))
	}
	opt.Glob = glob
	info, err := p.Stat()
	var r *grep.Result
	switch {
	case errors.Is(err, workspace.ErrOutside):
		return Failed(statError(p, err))
	case errors.Is(err, fs.ErrNotExist):
		return Failed(missing(c, p))
	case err != nil:
		return Failed(Errorf(wire.ToolFailed, "cannot search %s: %v; check the path and call again", p.Display, err))
	case info.IsDir():
		r, err = grep.SearchDir(ctx, c.State.Workspace, p, m, opt)
	default:
		f, _, e := openRegular(p)
		if e != nil {
			return Failed(e)
		}
		wf, ferr := workspace.FileOf(f)
		if ferr != nil {
			return Failed(Errorf(wire.ToolFailed, "cannot read %s: %v; call again", p.Display, ferr))
		}
		var skip *grep.Skip
		r, skip, err = grep.SearchFile(ctx, p, wf, m, opt)
		wf.Close()
		if skip != nil {
			return Failed(skipError(p, skip))
		}
	}
	switch {
	case ctx.Err() != nil:
		return Failed(Errorf(wire.ToolFailed, "grep was cancelled after searching %d files; nothing was recorded: call again with a narrower path or glob", r.Searched))
	case err != nil:
		return Failed(Errorf(wire.ToolFailed, "grep failed: %v; call again", err))
	}
	return grepResult(c, a, p, opt, r)
}

// grepOptions checks the arguments and turns them and the call's limits
// into the search's matcher and options.
func grepOptions(c *Call, a grepArgs) (*grep.Matcher, grep.Options, *wire.ToolError) {
	lim := c.Limits
	opt := grep.Options{
		Max:             lim.MaxGrepMatches,
		MaxAnswerBytes:  lim.MaxResultBytes,
		MaxFileBytes:    lim.MaxGrepFileBytes,
		Clip:            func(line string) (string, bool) { return clipLine(line, lim.MaxLineChars) },
		RetainFileBytes: lim.MaxRetainedFileBytes,
		RetainBytes:     lim.MaxRetainedBytesPerSession,
		Threads:         lim.GrepThreads,
	}
	if a.Pattern == nil {
		return nil, opt, Errorf(wire.ToolInvalidArgument, "pattern is required: pass an RE2 regular expression, e.g. {\"pattern\": \"func main\"}")
	}
	switch a.OutputMode {
	case "", grepContent:
		opt.Mode = grep.Content
	case grepFiles:
		opt.Mode = grep.FilesWithMatches
	case grepCount:
		opt.Mode = grep.Count
	default:
		return nil, opt, Errorf(wire.ToolInvalidArgument, "outputMode %q is not one of \"content\", \"filesWithMatches\", \"count\"; omit it for content", a.OutputMode)
	}
	if a.HeadLimit != nil {
		if *a.HeadLimit < 1 {
			return nil, opt, Errorf(wire.ToolInvalidArgument, "headLimit %d must be at least 1; omit it for up to %d results", *a.HeadLimit, lim.MaxGrepMatches)
		}
		opt.Max = min(opt.Max, *a.HeadLimit)
	}
	m, err := grep.Compile(*a.Pattern, a.IgnoreCase)
	if err != nil {
		return nil, opt, Errorf(wire.ToolInvalidArgument, "pattern %q is not a usable RE2 expression: %v; escape metacharacters such as ( [ . * + ? with a backslash (RE2 has no lookaround or backreferences) and match within one line", *a.Pattern, err)
	}
	return m, opt, nil
}

// skipError is the tool error for the file the model named, p, which the
// search skipped.
func skipError(p workspace.Path, s *grep.Skip) *wire.ToolError {
	switch s.Reason {
	case grep.NotText:
		return notText(p, s.Err)
	case grep.NotAFile:
		return Errorf(wire.ToolNotAFile, "%s is not a regular file; grep a regular file or a directory", s.Display)
	case grep.TooLarge:
		return Errorf(wire.ToolFileTooLarge, "%s is %d bytes, over grep's %d-byte limit; read it in windows with read's offset and limit instead", s.Display, s.Size, s.Limit)
	}
	return Errorf(wire.ToolFailed, "cannot read %s: %v; call again", s.Display, s.Err)
}

// grepResult records every file shown, in order, and renders the result.
func grepResult(c *Call, a grepArgs, p workspace.Path, opt grep.Options, gr *grep.Result) *wire.GrepResult {
	r := &wire.GrepResult{Files: []string{}, Tags: map[string]string{}, Truncated: gr.Truncated, FilesSearched: gr.Searched}
	if opt.Mode == grep.Count {
		r.Counts = map[string]int{}
	}
	var b strings.Builder
	for _, gf := range gr.Files {
		var shown []int
		for _, m := range gf.Matches {
			if !m.Clipped {
				shown = append(shown, m.Line)
			}
		}
		seen := seenLines(shown)
		tag := c.State.Store.Record(gf.Abs, session.Snapshot{
			Digest: gf.Digest, Text: gf.Text, HasText: gf.HasText,
			Lines: gf.Lines, Bytes: gf.Bytes, Seen: seen,
		})
		r.Files = append(r.Files, gf.Display)
		r.Tags[gf.Display] = tag
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(tagHeader(gf.Display, tag))
		switch opt.Mode {
		case grep.Content:
			for _, m := range gf.Matches {
				r.Matches = append(r.Matches, wire.GrepMatch{Path: gf.Display, Line: m.Line, Text: m.Text, Clipped: m.Clipped})
				fmt.Fprintf(&b, "\n%d:%s", m.Line, m.Text)
				if m.Clipped {
					b.WriteString(clipMarker(c.Limits.MaxLineChars))
				}
			}
		case grep.Count:
			r.Counts[gf.Display] = gf.Count
			fmt.Fprintf(&b, "\n%d matching %s", gf.Count, plural(gf.Count, "line", "lines"))
		}
	}
	if opt.Mode == grep.Content {
		warmMatched(c, gr.Files)
	}
	r.Notice = grepNotice(c, a, p, opt, gr)
	if r.Notice != "" {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("(" + r.Notice + ")")
	}
	r.Content = b.String()
	return r
}

// grepWarmFiles is how many of a grep's files are warmed: the first few
// with matches shown, the ones the model most likely edits next. A grep
// may list thousands, and the parse workers keep only a few warms
// waiting.
const grepWarmFiles = 4

// warmMatched hands the first grepWarmFiles files whose text the grep kept
// to Parser.Warm, last first: the pool warms the newest waiting first, so the
// first file is parsed first.
func warmMatched(c *Call, files []*grep.File) {
	if c.Parser == nil {
		return
	}
	var kept []*grep.File
	for _, f := range files {
		if f.HasText && len(kept) < grepWarmFiles {
			kept = append(kept, f)
		}
	}
	for i := len(kept) - 1; i >= 0; i-- {
		c.Parser.Warm(kept[i].Abs, kept[i].Text)
	}
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

func grepNotice(c *Call, a grepArgs, p workspace.Path, opt grep.Options, r *grep.Result) string {
	if len(r.Files) == 0 {
		return fmt.Sprintf("no matches for %q in %s (%d %s searched); try ignoreCase, a simpler pattern or a wider path", *a.Pattern, p.Display, r.Searched, plural(r.Searched, "file", "files"))
	}
	if !r.Truncated {
		return ""
	}
	what := "files"
	if opt.Mode == grep.Content {
		what = "matches"
	}
	if r.OverBytes {
		return fmt.Sprintf("stopped at the %d-byte output limit; more matches exist: narrow the pattern, path or glob", c.Limits.MaxResultBytes)
	}
	if a.HeadLimit != nil && *a.HeadLimit == opt.Max {
		return fmt.Sprintf("stopped at headLimit %d %s; more exist: raise headLimit, or narrow the pattern, path or glob", opt.Max, what)
	}
	return fmt.Sprintf("stopped at the limit of %d %s; more exist: narrow the pattern, path or glob", opt.Max, what)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
