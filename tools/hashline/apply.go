package hashline

import (
	"cmp"
	"slices"
)

// Region is a changed stretch of the new text, in 1-based inclusive new
// line numbers, so the tool can show it again with its new numbers.
//
// A region with Inserted == 0 is a pure deletion and is empty: Start ==
// End+1, naming the join point, so the removed lines sat between new lines
// End and Start (End is 0 at the top of the file, Start is len+1 at its
// end).
type Region struct {
	Start, End int
	Inserted   int // new lines in the region
	Removed    int // original lines it replaced
}

// Result is the outcome of Apply.
type Result struct {
	Lines       []string
	Changed     []Region
	Resolutions []Resolution // copied from the IR, for the result echo
}

// placed is an insert with its sort key.
type placed struct {
	gap  int // the original line it precedes; n+1 for the end
	rank int // 0 for a gap insert, 1 for a replacement body at that line
	seq  int // IR order, which keeps body rows in order
	text string
}

// Apply builds the new text from the original lines and an expanded,
// validated IR. Every position was computed on the original numbering, so
// no edit sees another's effect. An apply that reproduces the input is
// EDIT_NO_CHANGE.
func Apply(lines []string, ir IR) (Result, error) {
	n := len(lines)
	if n != ir.NumLines {
		return Result{}, fail(CodeInvalidArgument, 0, 0,
			"the text has %d lines but the edit was lowered for %d; lower it again for this text", n, ir.NumLines)
	}
	deleted := make([]bool, n+2)
	var ins []placed
	removed := 0
	for i, e := range ir.Edits {
		switch e.Kind {
		case KindDelete:
			if e.Line < 1 || e.Line > n {
				return Result{}, outOfBounds(ir.source(e.Src).Header, ir.source(e.Src).OpsLine, e.Line, n)
			}
			if !deleted[e.Line] {
				removed++
			}
			deleted[e.Line] = true
		case KindInsert:
			if err := checkCursor(ir.source(e.Src), e.Cursor, n); err != nil {
				return Result{}, err
			}
			p := placed{gap: gapOf(e.Cursor, n), seq: i, text: e.Text}
			if e.Cursor.Pos == PosAt {
				p.rank = 1
			}
			ins = append(ins, p)
		default:
			src := ir.source(e.Src)
			return Result{}, fail(CodeInvalidArgument, src.OpsLine, 0,
				"%q was not expanded; run the clipboard pre-pass before applying", src.Header)
		}
	}
	slices.SortFunc(ins, func(a, b placed) int {
		return cmp.Or(cmp.Compare(a.gap, b.gap), cmp.Compare(a.rank, b.rank), cmp.Compare(a.seq, b.seq))
	})

	out := make([]string, 0, n-removed+len(ins))
	var changed []Region
	var cur *Region
	open := func() {
		if cur == nil {
			cur = &Region{Start: len(out) + 1}
		}
	}
	closeRegion := func() {
		if cur != nil {
			cur.End = len(out)
			changed = append(changed, *cur)
			cur = nil
		}
	}
	k := 0
	for g := 1; g <= n+1; g++ {
		for ; k < len(ins) && ins[k].gap == g; k++ {
			open()
			out = append(out, ins[k].text)
			cur.Inserted++
		}
		if g > n {
			break
		}
		if deleted[g] {
			open()
			cur.Removed++
			continue
		}
		closeRegion()
		out = append(out, lines[g-1])
	}
	closeRegion()
	if slices.Equal(out, lines) {
		return Result{}, noChange(ir)
	}
	return Result{Lines: out, Changed: changed, Resolutions: slices.Clone(ir.Resolutions)}, nil
}

func noChange(ir IR) error {
	what := "the ops"
	if len(ir.Sources) == 1 {
		what = ir.describe(0)
	}
	return fail(CodeNoChange, 0, 0,
		"%s would leave the file exactly as it is, so nothing was written. If the file already reads as intended, no edit is needed; otherwise re-read the lines and write their new final text as the body",
		what)
}
