package workspace

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"strings"
	"unsafe"

	"github.com/hostd-dev/hostd/workspace/textenc"
)

// Index is a text's lines found in the file bytes it was decoded from,
// on demand: building it counts the newlines of each indexChunk bytes
// (one fast pass, a small pointer-free table), and a line is found from
// the table by searching at most one chunk. An edit reads only the lines
// its ops touch and the ends of the runs it keeps, so it never pays for a
// string, or even an offset, per line. Line n is the same string as
// Lines(t.Body)[n-1]. It implements hashline.Text.
//
// An Index remembers the last line it found, so that reading lines in
// order costs one newline search each; it is therefore not safe for
// concurrent use.
type Index struct {
	raw  string // the file's bytes, BOM included; shared with the caller
	base int    // where line 1 starts: after the BOM
	n    int    // the number of lines
	// before[k] is the number of newlines in raw[base:base+k*indexChunk].
	before []uint32
	cur    *indexCursor
}

// indexChunk is the span of bytes an Index counts as one: a line lookup
// searches at most this far, and the table has one entry per chunk.
const indexChunk = 1 << 10

// indexCursor is the last line an Index found and where it starts.
type indexCursor struct{ line, off int }

// ErrIndexTooLarge reports a file of 4 GiB or more, which an Index's
// 32-bit counts cannot address.
var ErrIndexTooLarge = errors.New("a file of 4 GiB or more cannot be indexed by line")

// Index returns the lines of this text in raw, the bytes it was decoded
// from. As with DecodeOwned, raw must never be written again: the lines
// share its memory. A text not in UTF-8 is indexed in its decoded form
// instead, which it holds (Text.view), and raw is not used.
func (t Text) Index(raw []byte) (Index, error) {
	if uint64(len(raw)) > math.MaxUint32 || uint64(len(t.view)) > math.MaxUint32 {
		return Index{}, ErrIndexTooLarge
	}
	s := ""
	if len(raw) > 0 {
		s = unsafe.String(&raw[0], len(raw))
	}
	base := 0
	switch {
	case !t.Enc.IsUTF8():
		s = t.view
	case t.BOM:
		base = len(utf8BOM)
	}
	x := Index{raw: s, base: base, cur: &indexCursor{line: 1}}
	x.cur.off = x.base
	x.before = make([]uint32, 0, (len(s)-x.base)/indexChunk+2)
	newlines := 0
	for off := x.base; off < len(s); off += indexChunk {
		x.before = append(x.before, uint32(newlines))
		newlines += strings.Count(s[off:min(off+indexChunk, len(s))], "\n")
	}
	x.before = append(x.before, uint32(newlines))
	x.n = newlines
	if len(s) > x.base && s[len(s)-1] != '\n' {
		x.n++ // a last line without a newline
	}
	return x, nil
}

// Len is the number of lines.
func (x Index) Len() int { return x.n }

// Line returns line n (1-based) without its ending: an LF, or a CRLF.
func (x Index) Line(n int) string {
	l := x.raw[x.start(n):x.start(n+1)]
	if strings.HasSuffix(l, "\n") {
		l = l[:len(l)-1]
		l = strings.TrimSuffix(l, "\r")
	}
	return l
}

// start returns where line l (1 <= l <= Len()+1) starts in raw; line
// Len()+1 starts at the end.
func (x Index) start(l int) int {
	switch {
	case l <= 1:
		return x.base
	case l > x.n:
		return len(x.raw)
	}
	// Line l starts after newline number l-1, which lies in chunk k-1:
	// the last chunk with fewer newlines before it.
	k, _ := slices.BinarySearch(x.before, uint32(l-1))
	off, skip := x.base+(k-1)*indexChunk, l-1-int(x.before[k-1])
	if c := x.cur; c.line <= l && c.off >= off {
		off, skip = c.off, l-c.line
	}
	for ; skip > 0; skip-- {
		off += strings.IndexByte(x.raw[off:], '\n') + 1
	}
	x.cur.line, x.cur.off = l, off
	return off
}

// run returns the bytes of lines from..to (1-based, inclusive), their
// endings included.
func (x Index) run(from, to int) string {
	return x.raw[x.start(from):x.start(to+1)]
}

// endLen is the byte length of the ending of the last line in run, one
// or more whole lines with their endings: 0 for a last line without a
// newline, 2 for CRLF, 1 for LF.
func endLen(l string) int {
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
// A text not in UTF-8 is put together the same way from its decoded form
// and then encoded: each copied run gives back its bytes in the file
// exactly, because decoding is a round trip (textenc). A row holding a
// character the encoding cannot represent is an *UnencodableError naming
// its new line, and nothing is returned.
//
// The work is one block copy per run plus the rows: no pass over the
// lines the edit leaves alone (but for the encoding, when not UTF-8).
func (t Text) EncodeRows(x Index, rows []string, copies []Copy, final bool) ([]byte, error) {
	eol := lf
	if t.CRLF {
		eol = crlf
	}
	var enc *textenc.Encoder
	if !t.Enc.IsUTF8() {
		enc = t.Enc.NewEncoder()
	}
	var rowErr error
	// The output is gathered as pieces and joined in one allocation that
	// bytes.Join does not zero first: every byte of it is written.
	pieces := make([][]byte, 0, 2*len(rows)+len(copies)+3)
	if t.BOM && enc == nil {
		pieces = append(pieces, utf8BOM)
	}
	ending := -1 // the ending length of the last line written; -1 before any
	r := 0       // the next row
	next := 1    // the next new line
	row := func() {
		if ending == 0 {
			pieces = append(pieces, eol) // an old last line without a newline is no longer last
		}
		if enc != nil && rowErr == nil {
			if _, err := enc.EncodedLen(rows[r]); err != nil {
				rowErr = unencodable(t.Enc, next, err)
			}
		}
		pieces = append(pieces, stringBytes(rows[r]), eol)
		ending = len(eol)
		r++
	}
	for _, c := range copies {
		if c.N <= 0 {
			continue
		}
		for ; next < c.New; next++ {
			row()
		}
		if ending == 0 {
			pieces = append(pieces, eol)
		}
		run := x.run(c.Old, c.Old+c.N-1)
		pieces = append(pieces, stringBytes(run))
		ending = endLen(run)
		next += c.N
	}
	for ; r < len(rows); next++ {
		row()
	}
	switch {
	case next == 1 && r == 0: // no lines
	case final && ending == 0:
		pieces = append(pieces, eol)
	case !final && ending > 0:
		last := &pieces[len(pieces)-1]
		if len(*last) == ending {
			pieces = pieces[:len(pieces)-1] // a row's ending
		} else {
			*last = (*last)[:len(*last)-ending]
		}
	}
	switch {
	case rowErr != nil:
		return nil, rowErr
	case enc != nil:
		return t.encodePieces(enc, pieces)
	}
	return bytes.Join(pieces, nil), nil
}

// encodePieces encodes the UTF-8 pieces of a new text of t, with t's BOM,
// into one buffer. Every piece was checked or copied from the file, so
// none fails but by a fault of the code, which is returned as it is.
func (t Text) encodePieces(enc *textenc.Encoder, pieces [][]byte) ([]byte, error) {
	n := 0
	for _, p := range pieces {
		k, err := enc.EncodedLen(unsafe.String(unsafe.SliceData(p), len(p)))
		if err != nil {
			return nil, err
		}
		n += k
	}
	out := make([]byte, 0, n+textenc.MaxBOM)
	if t.BOM {
		out = append(out, t.Enc.BOM()...)
	}
	for _, p := range pieces {
		var err error
		if out, err = enc.Append(out, unsafe.String(unsafe.SliceData(p), len(p))); err != nil {
			return nil, err
		}
	}
	return out, nil
}

var lf, crlf = []byte("\n"), []byte("\r\n")

// stringBytes views s as bytes for bytes.Join, which only reads them.
func stringBytes(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
}
