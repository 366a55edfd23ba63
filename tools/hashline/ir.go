package hashline

import (
	"errors"
	"fmt"
	"slices"
)

// Kind is the kind of an IR edit (edit-contract §8.1).
type Kind uint8

const (
	// KindInsert puts one line of Text at Cursor.
	KindInsert Kind = iota + 1
	// KindDelete removes original line Line.
	KindDelete
	// KindCut captures original lines Start..End into Register and
	// removes them. expandStep lowers it to deletes.
	KindCut
	// KindPaste puts the content of Register at Cursor, or, when Start is
	// set, in place of original lines Start..End. expandStep lowers it to
	// inserts (and deletes).
	KindPaste
	// KindBlock is an op on the block opening at Line, before
	// resolveStep turns it into one of the kinds above.
	KindBlock
)

// Pos says where a cursor sits relative to its line.
type Pos uint8

const (
	PosHead   Pos = iota + 1 // the top of the file (<1); anchors no line
	PosBefore                // just before Line (<N)
	PosAfter                 // just after Line (>N)
	PosEnd                   // the end of the file (>$); anchors no line
	PosAt                    // in place of Line, which the same op deletes: a replacement body
)

// Cursor is an insertion point in original line numbers.
type Cursor struct {
	Pos  Pos
	Line int // 0 for PosHead and PosEnd
}

// BlockMode is what a KindBlock edit does once its span is known.
type BlockMode uint8

const (
	BlockPut        BlockMode = iota + 1 // PUT N*: replace the block with Body
	BlockPutAfter                        // PUT >N*: insert Body after the block
	BlockCut                             // CUT N*
	BlockPaste                           // PUT N* @name: paste over the block
	BlockPasteAfter                      // PUT >N* [@name]: paste after the block
)

// Edit is one IR entry. Which fields matter depends on Kind.
type Edit struct {
	Kind  Kind
	Block BlockMode // KindBlock; beside Kind, so the two bytes share a word
	// Src indexes IR.Sources: the op this edit came from.
	Src        int
	Cursor     Cursor   // KindInsert, gap KindPaste
	Text       string   // KindInsert
	Line       int      // KindDelete; the opener line of KindBlock
	Start, End int      // KindCut, span KindPaste
	Register   string   // KindCut, KindPaste, KindBlock; "" is the anonymous register
	Body       []string // KindBlock with BlockPut or BlockPutAfter
	// Origin is, for a KindInsert that expandStep made from a capture of this
	// call, the original line the row copies; 0 for a row the model wrote
	// or one pasted from a register an earlier call filled. It lets the
	// tool carry a moved line's seen state to its new place (§4.3) and
	// keep its own line ending.
	Origin int
}

// IsSpanPaste reports whether a paste replaces lines rather than filling a
// gap.
func (e Edit) IsSpanPaste() bool { return e.Kind == KindPaste && e.Start > 0 }

// Source is the op an edit came from, for messages and the result echo.
type Source struct {
	OpsLine int
	Header  string
}

// Resolution is one block locator and the span it resolved to, echoed in
// the tool result (edit-contract §8.2).
type Resolution struct {
	AnchorLine int
	Start      int
	End        int
	Op         string // the op header as written
}

// Capture is a named-register write waiting for Commit.
type Capture struct {
	Register string
	Lines    []string
	Src      int
}

// IR is a lowered patch: a flat list of edits, all anchored on the line
// numbers of the text the tag names. It is plain data; every step takes
// one and returns a new one without changing its argument.
type IR struct {
	// NumLines is the line count of the text the anchors index.
	NumLines int
	// Limits are the limits the IR was lowered under.
	Limits      Limits
	Edits       []Edit
	Sources     []Source
	Resolutions []Resolution
	// Captures are the named-register writes expandStep recorded, in source
	// order; Commit performs them.
	Captures []Capture
}

// clone copies the slices an IR step may rewrite.
func (ir IR) clone() IR {
	ir.Edits = slices.Clone(ir.Edits)
	ir.Resolutions = slices.Clone(ir.Resolutions)
	ir.Captures = slices.Clone(ir.Captures)
	return ir
}

// Anchors returns every original line the edit anchors on, ascending and
// without duplicates: every line of every consumed range (interior lines
// too, not just the ends), the N of <N and >N, every captured line, and
// the opener of every block. <1 and >$ anchor nothing. The provenance gate
// and drift recovery check exactly these lines.
func (ir IR) Anchors() []int {
	var out []int
	for _, e := range ir.Edits {
		switch e.Kind {
		case KindInsert:
			out = appendCursorAnchor(out, e.Cursor)
		case KindDelete, KindBlock:
			out = append(out, e.Line)
		case KindCut:
			out = appendSpan(out, e.Start, e.End)
		case KindPaste:
			if e.IsSpanPaste() {
				out = appendSpan(out, e.Start, e.End)
			} else {
				out = appendCursorAnchor(out, e.Cursor)
			}
		}
	}
	for _, r := range ir.Resolutions {
		out = append(out, r.AnchorLine)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func appendCursorAnchor(out []int, c Cursor) []int {
	if c.Pos == PosHead || c.Pos == PosEnd {
		return out
	}
	return append(out, c.Line)
}

func appendSpan(out []int, start, end int) []int {
	for l := start; l <= end; l++ {
		out = append(out, l)
	}
	return out
}

// HeadTailOnly reports whether every edit inserts at the top or the end of
// the file (<1 or >$). Content drift cannot move those positions, so a
// stale tag is not fatal for such an edit (edit-contract §9 branch B).
func (ir IR) HeadTailOnly() bool {
	if len(ir.Edits) == 0 {
		return false
	}
	for _, e := range ir.Edits {
		// Only inserts and gap pastes carry a cursor; every other edit
		// names lines and fails this test.
		if e.Cursor.Pos != PosHead && e.Cursor.Pos != PosEnd {
			return false
		}
	}
	return true
}

// ErrUnmapped reports an anchor that Remap cannot carry to the live text.
var ErrUnmapped = errors.New("hashline: anchor does not map to the live text")

// Remap returns the IR with every anchor moved by f, which maps an
// original line to its line in the live text (ok false when the line did
// not survive unchanged). Drift recovery (edit-contract §10) uses it to
// replay ops on live content. A range must stay contiguous: lines of one
// op that were adjacent must still be adjacent, or the text between them
// changed and the op cannot be moved safely.
//
// NumLines is left as it was: set it to the live text's line count before
// expandStep, which refuses a text of any other length.
func (ir IR) Remap(f func(old int) (new int, ok bool)) (IR, error) {
	out := ir.clone()
	mapLine := func(l int, src int) (int, error) {
		n, ok := f(l)
		if !ok || n < 1 {
			return 0, fmt.Errorf("%w: line %d of %s", ErrUnmapped, l, ir.describe(src))
		}
		return n, nil
	}
	mapSpan := func(start, end, src int) (int, int, error) {
		first, err := mapLine(start, src)
		if err != nil {
			return 0, 0, err
		}
		for l := start + 1; l <= end; l++ {
			n, err := mapLine(l, src)
			if err != nil {
				return 0, 0, err
			}
			if n != first+(l-start) {
				return 0, 0, fmt.Errorf("%w: lines %d-%d of %s are no longer contiguous", ErrUnmapped, start, end, ir.describe(src))
			}
		}
		return first, first + (end - start), nil
	}
	// prev remembers, per op, the last deleted line and where it went, so
	// adjacent deletes of one op must stay adjacent.
	type last struct{ old, new int }
	prev := map[int]last{}
	for i := range out.Edits {
		e := &out.Edits[i]
		var err error
		switch e.Kind {
		case KindInsert:
			e.Cursor, err = remapCursor(e.Cursor, e.Src, mapLine)
			if err == nil && e.Origin > 0 {
				e.Origin, err = mapLine(e.Origin, e.Src)
			}
		case KindDelete:
			old := e.Line
			if e.Line, err = mapLine(old, e.Src); err == nil {
				if p, ok := prev[e.Src]; ok && p.old+1 == old && p.new+1 != e.Line {
					err = fmt.Errorf("%w: lines %d-%d of %s are no longer contiguous", ErrUnmapped, p.old, old, ir.describe(e.Src))
				}
				prev[e.Src] = last{old, e.Line}
			}
		case KindBlock:
			e.Line, err = mapLine(e.Line, e.Src)
		case KindCut:
			e.Start, e.End, err = mapSpan(e.Start, e.End, e.Src)
		case KindPaste:
			if e.IsSpanPaste() {
				e.Start, e.End, err = mapSpan(e.Start, e.End, e.Src)
			} else {
				e.Cursor, err = remapCursor(e.Cursor, e.Src, mapLine)
			}
		}
		if err != nil {
			return IR{}, err
		}
	}
	for i := range out.Resolutions {
		r := &out.Resolutions[i]
		var err error
		for _, p := range []*int{&r.AnchorLine, &r.Start, &r.End} {
			if *p, err = mapLine(*p, -1); err != nil {
				return IR{}, err
			}
		}
	}
	return out, nil
}

func remapCursor(c Cursor, src int, mapLine func(int, int) (int, error)) (Cursor, error) {
	if c.Pos == PosHead || c.Pos == PosEnd {
		return c, nil
	}
	n, err := mapLine(c.Line, src)
	c.Line = n
	return c, err
}

// describe names an op for a message: its header and ops line.
func (ir IR) describe(src int) string {
	if src < 0 || src >= len(ir.Sources) {
		return "the edit"
	}
	s := ir.Sources[src]
	return fmt.Sprintf("%q (ops line %d)", s.Header, s.OpsLine)
}
