package workspace

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hostd-dev/hostd/workspace/textenc"
)

// Copy says that lines New..New+N-1 of a new version of a text are lines
// Old..Old+N-1 of the text it was made from, unchanged (1-based).
type Copy struct {
	New, Old, N int
}

// EncodeEdit returns the file bytes of a new version of this text, decoded
// from UTF-8, made by an edit: lines, the last one ending with a newline when final. raw is the
// file this text was decoded from, old its lines (Lines(t.Body)), and
// copies, in new line order, the new lines that are old lines.
//
// Each copied run is written as the bytes it had in raw, its lines' own
// endings included, so an edit rewrites only the lines it changes: a file
// that mixes LF and CRLF keeps every untouched line's ending, and a line a
// paste moved keeps its own. Every other line, and a final newline the
// edit adds, takes the dominant ending. The BOM is kept.
//
// The work is one copy per run plus the new rows: a one-line change of a
// large file costs two block copies, not a pass over every line.
func (t Text) EncodeEdit(raw []byte, old, lines []string, copies []Copy, final bool) []byte {
	eol := "\n"
	if t.CRLF {
		eol = "\r\n"
	}
	cur := rawCursor{t: t, old: old, final: strings.HasSuffix(t.Body, "\n")}
	cur.reset()

	size, next := cur.start, 1
	for _, c := range copies {
		for ; next < c.New; next++ {
			size += len(lines[next-1]) + len(eol)
		}
		next += c.N
	}
	for ; next <= len(lines); next++ {
		size += len(lines[next-1]) + len(eol)
	}
	out := make([]byte, 0, size+len(raw)+len(eol))
	if t.BOM {
		out = append(out, utf8BOM...)
	}

	endLen := -1 // the ending length of the last line written; -1 before any
	row := func(s string) {
		if endLen == 0 {
			out = append(out, eol...) // an old last line without a newline is no longer last
		}
		out = append(out, s...)
		out = append(out, eol...)
		endLen = len(eol)
	}
	next = 1
	for _, c := range copies {
		if c.N <= 0 {
			continue
		}
		for ; next < c.New; next++ {
			row(lines[next-1])
		}
		if endLen == 0 {
			out = append(out, eol...)
		}
		from := cur.seek(c.Old)
		to := cur.seek(c.Old + c.N - 1)
		endLen = cur.endLen(c.Old + c.N - 1)
		out = append(out, raw[from:to+len(old[c.Old+c.N-2])+endLen]...)
		next += c.N
	}
	for ; next <= len(lines); next++ {
		row(lines[next-1])
	}
	switch {
	case len(lines) == 0:
	case final && endLen == 0:
		out = append(out, eol...)
	case !final && endLen > 0:
		out = out[:len(out)-endLen]
	}
	return out
}

// rawCursor walks the old lines of a text over the raw bytes they came
// from, keeping the byte offset where line `line` starts.
type rawCursor struct {
	t     Text
	old   []string
	final bool // the old text ends with a newline

	start int // where line 1 starts: after the BOM
	line  int // the line whose offset off is
	off   int
	k     int // index of the first entry of t.Other not below line
}

func (c *rawCursor) reset() {
	c.start = 0
	if c.t.BOM {
		c.start = len(utf8BOM)
	}
	c.line, c.off, c.k = 1, c.start, 0
}

// endLen is the byte length of old line l's ending: 0 for a last line
// without a newline, 2 for CRLF, 1 for LF.
func (c *rawCursor) endLen(l int) int {
	if l == len(c.old) && !c.final {
		return 0
	}
	for c.k < len(c.t.Other) && c.t.Other[c.k] < l {
		c.k++
	}
	other := c.k < len(c.t.Other) && c.t.Other[c.k] == l
	if c.t.CRLF != other {
		return 2
	}
	return 1
}

// seek returns the offset in raw where old line l starts.
func (c *rawCursor) seek(l int) int {
	if l < c.line {
		c.reset()
	}
	for ; c.line < l; c.line++ {
		c.off += len(c.old[c.line-1]) + c.endLen(c.line)
	}
	return c.off
}

// UnencodableError reports a line of a new text that holds a character
// its file's encoding cannot represent (edit-contract §3.5): the write or
// edit is refused and nothing is written.
type UnencodableError struct {
	Enc  textenc.Encoding
	Line int // 1-based, in the new text
	Rune rune
}

func (e *UnencodableError) Error() string {
	return fmt.Sprintf("line %d holds %q (U+%04X), which %s cannot represent", e.Line, e.Rune, e.Rune, e.Enc.Name())
}

// encodeLines is Encode for a text not in UTF-8: each line encoded with
// the dominant ending, so a failure names its line.
func (t Text) encodeLines(body string) ([]byte, error) {
	enc := t.Enc.NewEncoder()
	eol := t.eol()
	// The UTF-8 size is a fair first guess for the encoded size (exact
	// for a single-byte encoding of ASCII); append grows it otherwise.
	out := make([]byte, 0, len(body)+strings.Count(body, "\n")*len(eol)+textenc.MaxBOM)
	if t.BOM {
		out = append(out, t.Enc.BOM()...)
	}
	var err error
	for line := 1; body != ""; line++ {
		i := strings.IndexByte(body, '\n')
		l := body
		if i >= 0 {
			l, body = body[:i], body[i+1:]
		} else {
			body = ""
		}
		if out, err = enc.Append(out, l); err != nil {
			return nil, unencodable(t.Enc, line, err)
		}
		if i >= 0 {
			out, _ = enc.Append(out, eol) // CR and LF exist in every supported encoding
		}
	}
	return out, nil
}

// eol is the dominant line ending, in UTF-8.
func (t Text) eol() string {
	if t.CRLF {
		return "\r\n"
	}
	return "\n"
}

// unencodable turns textenc's error about a piece of text that starts
// line `line` into an UnencodableError of the line the character is on.
func unencodable(enc textenc.Encoding, line int, err error) error {
	var ue *textenc.UnencodableError
	if !errors.As(err, &ue) {
		return err
	}
	return &UnencodableError{Enc: enc, Line: line, Rune: ue.Rune}
}
