package tools

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"slices"
	"unicode/utf8"

	"github.com/hostd-dev/hostd/workspace"
)

// fileResult is what searching one file found, before the call's bounds
// are applied: take applies them, in walk order.
type fileResult struct {
	err      error  // the call was cancelled before the file was searched
	searched bool   // the file was read: it counts in filesSearched
	skip     *Error // it could not be searched, or is not text (NUL bytes, undecodable)
	count    int    // matching lines: all in count mode, the first in files mode, len(matches) in content mode
	// matches holds, in content mode, the file's first matches: every one
	// that a call with room for maxGrepMatches results and an empty answer
	// could take, and the one past that, so take knows more exist.
	matches []GrepMatch
	notText *Error    // set when the matches are in bytes that are not UTF-8
	file    *grepFile // set when count > 0; its digest and lines when the file is text
	text    string    // the file's text for the store, when small enough to retain
	hasText bool
}

// bigReadBuffer is the largest read buffer a search goroutine keeps
// between files; a larger one, grown for a large file, is dropped after it.
const bigReadBuffer = 1 << 20

// search reads and searches one file. It is safe to run on many goroutines
// at once: it reads the grepper's pattern, mode and limits and writes only
// its result and *buf, the caller's read buffer. f is the open file when
// the model named it; a file found by the walk is opened here, through the
// directory it was listed in, never following a link and never blocking.
// A file that cannot be opened is passed over: it is not searched.
func (g *grepper) search(ctx context.Context, cd candidate, f *os.File, buf *[]byte) *fileResult {
	if err := ctx.Err(); err != nil {
		if f == nil {
			cd.letGo()
		}
		return &fileResult{err: err}
	}
	if f == nil {
		var err error
		if f, err = cd.openOnce(); err != nil {
			return &fileResult{}
		}
		defer f.Close()
	}
	lim := g.c.Limits
	p := workspace.Path{Abs: cd.abs, Display: cd.display}
	info, serr := f.Stat()
	if serr != nil || !info.Mode().IsRegular() {
		return &fileResult{skip: Errorf(CodeNotAFile, "%s is not a regular file; grep a regular file or a directory", cd.display)}
	}
	if info.Size() > lim.MaxGrepFileBytes {
		return &fileResult{skip: tooLargeForGrep(cd.display, info.Size(), lim.MaxGrepFileBytes)}
	}
	if g.reads != nil {
		// The bytes being searched at once stay within the call's read
		// budget however many goroutines search.
		n := readWeight(info.Size(), lim.MaxGrepFileBytes)
		if err := g.reads.Acquire(ctx, n); err != nil {
			return &fileResult{err: err}
		}
		defer g.reads.Release(n)
	}
	raw, rerr := readBounded(f, *buf, info.Size(), lim.MaxGrepFileBytes)
	if cap(raw) <= bigReadBuffer {
		*buf = raw[:0]
	} else {
		*buf = nil
	}
	if errors.Is(rerr, errTooLarge) {
		return &fileResult{skip: tooLargeForGrep(cd.display, int64(len(raw)), lim.MaxGrepFileBytes)}
	} else if rerr != nil {
		return &fileResult{skip: Errorf(CodeToolFailed, "cannot read %s: %v; call again", cd.display, rerr)}
	}
	r := &fileResult{searched: true}
	if bytes.IndexByte(raw[:min(len(raw), workspace.NULScanBytes)], 0) >= 0 {
		r.skip = notText(p)
		return r
	}

	// Most files need no normalization, and most files do not match: search
	// the bytes as they are and decode only what will be shown.
	body, text, decoded := raw, "", false
	if bytes.HasPrefix(raw, []byte("\xEF\xBB\xBF")) || bytes.IndexByte(raw, '\r') >= 0 {
		t, derr := workspace.Decode(raw)
		if derr != nil {
			r.skip = notText(p)
			return r
		}
		body, text, decoded = []byte(t.Body), t.Body, true
	}
	var cost int64 // what the matches collected would add to an empty answer
	g.m.each(body, func(n int, line []byte) bool {
		r.count++
		switch g.mode {
		case grepFiles:
			return false
		case grepContent:
			shown, clipped := clipLine(string(line), lim.MaxLineChars)
			r.matches = append(r.matches, GrepMatch{Path: cd.display, Line: n, Text: shown, Clipped: clipped})
			cost += matchAnswerCost(cd.display, shown)
			if r.count == 1 {
				cost += fileAnswerCost(cd.display)
			}
			return r.count <= g.max && cost <= lim.MaxResultBytes
		}
		return true
	})
	if r.count == 0 {
		return r
	}
	gf := &grepFile{abs: cd.abs, display: cd.display, bytes: int64(len(raw))}
	r.file = gf
	if !decoded && !utf8.Valid(raw) {
		r.notText = notText(p)
		return r
	}
	if !decoded {
		text = string(body)
	}
	gf.digest = workspace.Sum(text)
	gf.lines = bytes.Count(body, []byte{'\n'})
	if len(body) > 0 && body[len(body)-1] != '\n' {
		gf.lines++
	}
	if int64(len(text)) <= lim.MaxRetainedFileBytes {
		r.text, r.hasText = text, true
	}
	return r
}

// readWeight is what reading a file of size bytes holds of the read budget.
func readWeight(size, limit int64) int64 { return min(size, limit) + 512 }

var errTooLarge = errors.New("file too large")

// readBounded reads f whole into buf (grown to size as needed), failing
// with errTooLarge past limit bytes: a file may grow after its stat.
func readBounded(f *os.File, buf []byte, size, limit int64) ([]byte, error) {
	buf = slices.Grow(buf[:0], int(min(size, limit))+512)
	for {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, len(buf))
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return buf, errTooLarge
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

func tooLargeForGrep(display string, size, limit int64) *Error {
	return Errorf(CodeFileTooLarge, "%s is %d bytes, over grep's %d-byte limit; read it in windows with read's offset and limit instead", display, size, limit)
}
