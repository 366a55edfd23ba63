package linewindow

import (
	"bytes"
	"math"
	"unicode/utf8"

	"github.com/hostd-dev/hostd/workspace"
	"github.com/hostd-dev/hostd/workspace/textenc"
)

// scanner is the state of one pass. Chunks reach process in file order, BOM
// stripped, and never end inside a UTF-8 sequence or on a CR except at the
// end of the input (holdBack), so every CRLF pair and every rune lies
// whole inside one chunk.
type scanner struct {
	opt    Options
	lo, hi int // inclusive window bounds; hi < lo for an empty window

	rawBytes  int64 // bytes admitted so far, BOM included: the text's, when decoded
	bomDone   bool
	bomLen    int64 // 3 when the input starts with a BOM
	bodyBytes int64 // input bytes processed so far, after the BOM
	last      byte  // last byte processed
	lfs       int   // LF bytes so far; line lfs+1 is the one in progress

	cur         lineBuilder // the window line being collected
	lines       []Line
	windowBytes int64 // text bytes of lines

	retain bool
	body   []byte // normalized body while retain holds

	trim trimmer

	// The input's encoding (encoded.go). When decoded, the scan reads the
	// text a textenc.Reader decodes, whose BOM is already gone, and
	// file counts the file's own bytes.
	enc     textenc.Encoding
	decoded bool
	fileBOM bool
	file    *countingReader
}

func newScanner(opt Options, chunk int) *scanner {
	s := &scanner{opt: opt, retain: true}
	s.lo, s.hi = windowBounds(opt)
	s.cur.max = opt.MaxLineChars
	s.trim.stageCap = maxCarry + chunk
	return s
}

var (
	lf   = []byte{'\n'}
	crlf = []byte{'\r', '\n'}
)

// process consumes the next chunk of input, BOM stripped.
func (s *scanner) process(p []byte, final bool) error {
	if !utf8.Valid(p) {
		return &workspace.NotTextError{Offset: s.bomLen + s.bodyBytes + int64(firstInvalid(p))}
	}
	if len(p) > 0 {
		lfs := bytes.Count(p, lf)
		s.collect(p, lfs)
		if s.retain {
			s.growBody(len(p))
			s.body = appendNormalized(s.body, p)
		}
		s.lfs += lfs
		s.bodyBytes += int64(len(p))
		s.last = p[len(p)-1]
	}
	s.trim.feed(p, final)
	if final && s.bodyBytes > 0 && s.last != '\n' && s.inWindow(s.lfs+1) {
		s.emit(s.lfs + 1) // the unterminated last line
	}
	return nil
}

func (s *scanner) inWindow(n int) bool { return s.lo <= n && n <= s.hi }

// collect appends the window lines that p holds, whole or in part. A chunk
// wholly before or after the window costs one bytes.Count, done by the
// caller; only the chunk where the window starts walks lines one by one.
func (s *scanner) collect(p []byte, lfs int) {
	first := s.lfs + 1 // the line p starts in
	if s.hi < s.lo || first > s.hi || first+lfs < s.lo {
		return
	}
	pos, n := 0, first
	for ; n < s.lo; n++ {
		pos += bytes.IndexByte(p[pos:], '\n') + 1
	}
	for ; n <= s.hi; n++ {
		j := bytes.IndexByte(p[pos:], '\n')
		if j < 0 {
			s.cur.add(p[pos:]) // the line goes on in the next chunk
			return
		}
		seg := p[pos : pos+j]
		if j > 0 && seg[j-1] == '\r' {
			seg = seg[:j-1] // the CR of a CRLF is the line ending, not content
		}
		s.cur.add(seg)
		s.emit(n)
		pos += j + 1
	}
}

func (s *scanner) emit(n int) {
	s.lines = append(s.lines, Line{N: n, Text: string(s.cur.text), Clipped: s.cur.clipped})
	s.windowBytes += int64(len(s.cur.text))
	s.cur.reset()
	if max := s.opt.MaxWindowBytes; max > 0 && s.windowBytes >= max {
		s.hi = n // the window ends here
	}
}

func (s *scanner) result(d workspace.Digest) *Window {
	w := &Window{
		Lines:      s.lines,
		TotalLines: s.lfs,
		Digest:     d,
		BOM:        s.bomLen > 0 || s.fileBOM,
		CRLF:       s.trim.crlfs > s.lfs-s.trim.crlfs,
		Encoding:   s.enc,
		FileBytes:  s.file.n,
		Retained:   s.retain,
	}
	if s.bodyBytes > 0 && s.last != '\n' {
		w.TotalLines++
		w.Unterminated = true
	}
	if w.Retained {
		w.Body = string(s.body) // an exact-size copy: the session store keeps it
	}
	return w
}

// lineBuilder collects one window line, keeping at most max runes: a line
// of any length costs at most 4*max bytes.
type lineBuilder struct {
	max     int
	text    []byte
	runes   int
	clipped bool
}

// add appends the next piece of the line; seg ends on a rune boundary.
func (b *lineBuilder) add(seg []byte) {
	if b.clipped || len(seg) == 0 {
		return
	}
	room := b.max - b.runes
	if len(seg) <= room { // at most len(seg) runes: all fit
		b.text = append(b.text, seg...)
		b.runes += utf8.RuneCount(seg)
		return
	}
	i, n := 0, 0
	for i < len(seg) && n < room {
		_, size := utf8.DecodeRune(seg[i:])
		i += size
		n++
	}
	b.text = append(b.text, seg[:i]...)
	b.runes += n
	b.clipped = i < len(seg)
}

func (b *lineBuilder) reset() {
	b.text = b.text[:0]
	b.runes = 0
	b.clipped = false
}

// growBody doubles the body's capacity ahead of need, never past
// RetainBytes: the body is never longer than the raw bytes admitted, and
// append's gentler growth for large slices would allocate several times a
// 2 MiB body on the way there.
func (s *scanner) growBody(n int) {
	if cap(s.body)-len(s.body) >= n {
		return
	}
	want := max(len(s.body)+n, 2*cap(s.body))
	if limit := int(min(s.opt.RetainBytes, int64(math.MaxInt))); want > limit {
		want = max(limit, len(s.body)+n)
	}
	grown := make([]byte, len(s.body), want)
	copy(grown, s.body)
	s.body = grown
}

// appendNormalized appends p to dst with every CRLF turned into LF.
func appendNormalized(dst, p []byte) []byte {
	for {
		i := bytes.Index(p, crlf)
		if i < 0 {
			return append(dst, p...)
		}
		dst = append(append(dst, p[:i]...), '\n')
		p = p[i+2:]
	}
}

// firstInvalid returns the offset of the first byte of p that does not
// start a valid UTF-8 sequence, for the error message only.
func firstInvalid(p []byte) int {
	for i := 0; i < len(p); {
		r, size := utf8.DecodeRune(p[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return len(p)
}
