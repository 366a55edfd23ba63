package workspace

import (
	"errors"
	"math"
	"strings"
	"unsafe"
)

// Index is a text's lines found in the file bytes it was decoded from,
// by offset: no string per line and no pointer per line, so a large file
// costs one pointer-free array to index and nothing for the collector to
// scan. Line n is the same string as Lines(t.Body)[n-1], made on demand.
// It implements hashline.Text.
type Index struct {
	raw string // the file's bytes, BOM included; shared with the caller
	// start[n-1] is where line n begins in raw; start[Len()] is len(raw).
	start []uint32
}

// ErrIndexTooLarge reports a file of 4 GiB or more, which an Index's
// 32-bit offsets cannot address.
var ErrIndexTooLarge = errors.New("a file of 4 GiB or more cannot be indexed by line")

// Index returns the lines of this text in raw, the bytes it was decoded
// from. As with DecodeOwned, raw must never be written again: the lines
// share its memory.
func (t Text) Index(raw []byte) (Index, error) {
	if len(raw) > math.MaxUint32 {
		return Index{}, ErrIndexTooLarge
	}
	s := ""
	if len(raw) > 0 {
		s = unsafe.String(&raw[0], len(raw))
	}
	off := 0
	if t.BOM {
		off = len(utf8BOM)
	}
	x := Index{raw: s, start: make([]uint32, 0, strings.Count(s[off:], "\n")+2)}
	for off < len(s) {
		x.start = append(x.start, uint32(off))
		i := strings.IndexByte(s[off:], '\n')
		if i < 0 {
			break
		}
		off += i + 1
	}
	x.start = append(x.start, uint32(len(s)))
	return x, nil
}

// Len is the number of lines.
func (x Index) Len() int { return len(x.start) - 1 }

// Line returns line n (1-based) without its ending: an LF, or a CRLF.
func (x Index) Line(n int) string {
	l := x.raw[x.start[n-1]:x.start[n]]
	if strings.HasSuffix(l, "\n") {
		l = l[:len(l)-1]
		l = strings.TrimSuffix(l, "\r")
	}
	return l
}

// endLen is the byte length of line n's ending: 0 for a last line
// without a newline, 2 for CRLF, 1 for LF.
func (x Index) endLen(n int) int {
	l := x.raw[x.start[n-1]:x.start[n]]
	switch {
	case !strings.HasSuffix(l, "\n"):
		return 0
	case strings.HasSuffix(l, "\r\n"):
		return 2
	}
	return 1
}

// EncodeRows is EncodeEdit for an edit given as its copies and rows
// instead of its new lines: new line k is a copied old line when a copy
// covers it, otherwise the next of rows, so len(rows) plus the copies'
// lines is the new line count. x is Index(raw) of this text. The bytes
// are EncodeEdit's: each copied run is written as it is in raw, endings
// included; rows, and a final newline the edit adds, take the dominant
// ending; the BOM is kept.
//
// The work is one block copy per run plus the rows: no pass over the
// lines the edit leaves alone.
func (t Text) EncodeRows(x Index, rows []string, copies []Copy, final bool) []byte {
	eol := "\n"
	if t.CRLF {
		eol = "\r\n"
	}
	size := len(rows) * len(eol)
	for _, r := range rows {
		size += len(r)
	}
	for _, c := range copies {
		if c.N > 0 {
			size += int(x.start[c.Old-1+c.N] - x.start[c.Old-1])
		}
	}
	out := make([]byte, 0, len(utf8BOM)+size+len(eol))
	if t.BOM {
		out = append(out, utf8BOM...)
	}
	endLen := -1 // the ending length of the last line written; -1 before any
	r := 0       // the next row
	row := func() {
		if endLen == 0 {
			out = append(out, eol...) // an old last line without a newline is no longer last
		}
		out = append(out, rows[r]...)
		out = append(out, eol...)
		endLen = len(eol)
		r++
	}
	next := 1 // the next new line
	for _, c := range copies {
		if c.N <= 0 {
			continue
		}
		for ; next < c.New; next++ {
			row()
		}
		if endLen == 0 {
			out = append(out, eol...)
		}
		out = append(out, x.raw[x.start[c.Old-1]:x.start[c.Old-1+c.N]]...)
		endLen = x.endLen(c.Old + c.N - 1)
		next += c.N
	}
	for r < len(rows) {
		row()
	}
	switch {
	case next == 1 && r == 0: // no lines
	case final && endLen == 0:
		out = append(out, eol...)
	case !final && endLen > 0:
		out = out[:len(out)-endLen]
	}
	return out
}
