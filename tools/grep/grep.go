// Package grep is the search engine behind the grep tool: it walks a
// directory through the workspace's open roots (workspace.WalkDir), leaves
// out what git would ignore (tools/ignore) and what the glob does not
// select, searches each file with a line matcher on as many goroutines as
// it is given, and applies one search's bounds (results, the answer's
// bytes, file size, the text kept for the caller) in walk order, so the
// result never depends on which goroutine finished first.
//
// It takes plain inputs (a workspace and a resolved path, a Matcher,
// Options) and returns plain data (Result). It must not record anything
// into a session, know the tool's error codes or its wire shape, or open a
// path by its name from "/": every file is opened through workspace.
package grep

import (
	"context"
	"errors"
	"fmt"

	"golang.org/x/sync/semaphore"

	"github.com/hostd-dev/hostd/workspace"
)

// Mode is what a search collects of each file.
type Mode int

const (
	// Content collects the matching lines.
	Content Mode = iota
	// FilesWithMatches collects the files with a match, and stops reading
	// a file at its first.
	FilesWithMatches
	// Count collects the number of matching lines of each file.
	Count
)

// Options are the bounds and choices of one search.
type Options struct {
	Mode Mode
	// Max is the results to show: matches in Content mode, files in the
	// others.
	Max int
	// MaxAnswerBytes bounds the answer that shows the result, as FileCost
	// and MatchCost count it.
	MaxAnswerBytes int64
	// MaxFileBytes: a larger file is not searched.
	MaxFileBytes int64
	// Clip is how a matched line is shown: cut to a length (clipped true),
	// or whole. nil shows every line whole.
	Clip func(line string) (shown string, clipped bool)
	// RetainFileBytes and RetainBytes bound the texts the result keeps
	// (File.Text): a file's up to RetainFileBytes, all of them together up
	// to RetainBytes, the earliest files giving theirs up first.
	RetainFileBytes, RetainBytes int64
	// Threads is how many goroutines search a directory; 0 is one per
	// CPU (GOMAXPROCS).
	Threads int
	// Glob selects the files of a directory search; nil selects all.
	Glob *Glob
}

// Match is one matched line.
type Match struct {
	Line    int
	Text    string // as Options.Clip shows it
	Clipped bool
}

// File is one file with matches, as the result shows it.
type File struct {
	Abs     string // canonical: for a file reached through a symlink, its target's
	Display string // as the model sees it
	Digest  workspace.Digest
	Text    string // the file's text, when kept (HasText; Options.RetainFileBytes)
	HasText bool
	Lines   int
	Bytes   int64
	Count   int     // matching lines shown (Content) or found (Count); 1 or more
	Matches []Match // Content mode: the matches shown, in order
}

// Result is what a search found.
type Result struct {
	Files     []*File // in walk order
	Searched  int     // files read
	Truncated bool    // a bound stopped the search: more results exist
	// OverBytes says the bound that stopped it was MaxAnswerBytes.
	OverBytes bool
}

// SkipReason is why a file was not searched, or not shown.
type SkipReason int

const (
	NotText    SkipReason = iota // NUL bytes, or not UTF-8 after decoding
	NotAFile                     // not a regular file (any more)
	TooLarge                     // over Options.MaxFileBytes
	Unreadable                   // reading it failed, or it shrank under its mapping
)

// Skip is why the file a SearchFile was given is not in its result.
type Skip struct {
	Reason  SkipReason
	Display string
	Size    int64 // TooLarge: the file's size, and the limit
	Limit   int64
	Err     error // Unreadable: what failed; NotText: why, when decoding said
}

func (s *Skip) Error() string {
	switch s.Reason {
	case NotText:
		return s.Display + " is not text"
	case NotAFile:
		return s.Display + " is not a regular file"
	case TooLarge:
		return fmt.Sprintf("%s is %d bytes, over the %d-byte limit", s.Display, s.Size, s.Limit)
	}
	return fmt.Sprintf("cannot read %s: %v", s.Display, s.Err)
}

// errStop ends a walk early; it is not a failure.
var errStop = errors.New("stop walking")

// SearchDir searches the files under the directory p (resolved in ws,
// whose roots bound the symlinks followed) with m. The error is the
// context's when the search was cancelled; the result is then partial.
func SearchDir(ctx context.Context, ws *workspace.Workspace, p workspace.Path, m *Matcher, opt Options) (*Result, error) {
	s := newSearch(ctx, m, opt)
	if ws.Encodings() != nil {
		s.charset = ws.CharsetOf
	}
	err := s.walk(newWalker(ws, opt.Glob, opt.MaxFileBytes), p)
	if errors.Is(err, errStop) {
		err = nil
	}
	return s.result(), err
}

// SearchFile searches the one file p, open as f (through p's root), with
// m. A file that is not searched or not shown for what it is (too large,
// not text) is a Skip.
func SearchFile(ctx context.Context, p workspace.Path, f workspace.File, m *Matcher, opt Options) (*Result, *Skip, error) {
	s := newSearch(ctx, m, opt)
	buf := readBuffers.Get().(*[]byte)
	r := s.search(ctx, candidate{named: &p}, f, buf)
	readBuffers.Put(buf)
	skip, err := s.take(&r)
	if errors.Is(err, errStop) {
		err = nil
	}
	return s.result(), skip, err
}

// search carries one search. Files are searched by search, on as many
// goroutines as Options.Threads says (pool.go); everything below m and opt is
// the running result, which only take changes, one file at a time in walk
// order.
type search struct {
	ctx context.Context
	m   *Matcher
	opt Options

	files     []*File
	shown     int // results so far
	truncated bool
	searched  int
	kept      int64 // bytes of text held for the caller
	answer    int64 // bytes the answer holds so far, bounded by MaxAnswerBytes
	overBytes bool  // the answer's byte bound stopped the search

	// reads bounds the bytes of the files being searched at once, when
	// more than one goroutine searches; nil otherwise.
	reads *semaphore.Weighted
	// charset gives a file found by the walk the encoding the workspace's
	// setting names for it; nil when the workspace has no such setting.
	charset func(abs string) workspace.Charset
}

func newSearch(ctx context.Context, m *Matcher, opt Options) *search {
	return &search{ctx: ctx, m: m, opt: opt}
}

func (s *search) result() *Result {
	return &Result{Files: s.files, Searched: s.searched, Truncated: s.truncated, OverBytes: s.overBytes}
}

// take applies the search's bounds to one searched file, in walk order:
// the results so far, the answer's byte bound and the retention budget.
// It returns errStop once the result is full. For a file that was not
// searched or is not text it returns the reason, which only a named file
// reports.
func (s *search) take(r *fileResult) (skip *Skip, err error) {
	if r.err != nil {
		return nil, r.err
	}
	if r.searched {
		s.searched++
	}
	if r.skip != nil {
		return r.skip, nil
	}
	if r.count == 0 {
		return nil, nil
	}
	gf := r.file
	room := s.opt.Max - s.shown // results this file may still add
	fileCost := FileCost(gf.Display)
	full := func(more int64) bool { return s.answer+more > s.opt.MaxAnswerBytes }
	switch s.opt.Mode {
	case Content:
		// r.matches holds every match any room and byte bound could take
		// (search stops collecting past both), so this stops inside it
		// whenever the file has more.
		for _, m := range r.matches {
			gf.Count++
			if gf.Count > room {
				break
			}
			cost := MatchCost(gf.Display, m.Text)
			if gf.Count == 1 {
				cost += fileCost
			}
			if full(cost) {
				gf.Count--
				s.overBytes = true
				break
			}
			s.answer += cost
			gf.Matches = append(gf.Matches, m)
		}
	default:
		gf.Count = r.count
		// A file listed or counted costs its path in every field.
		if full(fileCost) {
			gf.Count = 0
			s.overBytes = true
		} else {
			s.answer += fileCost
		}
	}
	if gf.Count == 0 {
		if s.overBytes {
			s.truncated = true
			return nil, errStop
		}
		return nil, nil
	}
	if r.notText != nil {
		return r.notText, nil
	}
	if room <= 0 || (s.opt.Mode == Content && gf.Count > room) || s.overBytes {
		s.truncated = true
	}
	if room <= 0 {
		return nil, errStop
	}
	s.keep(gf, r.text, r.hasText)
	s.files = append(s.files, gf)
	if s.opt.Mode == Content {
		s.shown += len(gf.Matches)
	} else {
		s.shown++
	}
	if s.truncated {
		return nil, errStop
	}
	return nil, nil
}

// FileCost bounds what one file adds to the answer, the JSON of the
// grep tool's result included: its [PATH#TAG] header in content, its path
// in files, and its entry in tags (and counts).
func FileCost(display string) int64 { return 4*jsonLen(display) + 64 }

// MatchCost bounds what one match adds: its N:text row in content and
// its {path, line, text, clipped} object in matches, as JSON.
func MatchCost(display, text string) int64 {
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

// keep holds a file's text for the caller while the texts held stay
// within RetainBytes; past that, the earliest files give theirs up, as a
// store bounded the same way would evict them first.
func (s *search) keep(gf *File, text string, hasText bool) {
	if !hasText || int64(len(text)) > s.opt.RetainFileBytes {
		return
	}
	gf.Text, gf.HasText = text, true
	s.kept += int64(len(text))
	for _, old := range s.files {
		if s.kept <= s.opt.RetainBytes {
			break
		}
		if old.HasText {
			s.kept -= int64(len(old.Text))
			old.Text, old.HasText = "", false
		}
	}
}

// clip is how a matched line shows (Options.Clip).
func (s *search) clip(line []byte) (string, bool) {
	if s.opt.Clip == nil {
		return string(line), false
	}
	return s.opt.Clip(string(line))
}
