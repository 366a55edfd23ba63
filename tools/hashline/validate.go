package hashline

import (
	"fmt"
	"math"
	"slices"
)

// validateStep enforces the anchoring rules of edit-contract §7.3 on an IR,
// before or after expandStep: every line exists, ranges run forwards, no two
// ops change the same line, no two ops insert at the same gap, no op
// inserts next to a line another op consumes, and the IR stays under the
// expansion cap. Every failure is EDIT_RANGE_INVALID except the cap,
// which is EDIT_AMPLIFICATION_LIMIT.
//
// Anchors here are positions. Two inserts at one gap (PUT >4: and PUT <5:)
// would have to be ordered by preference, so they fail; so does PUT >4:
// beside PUT 3.=4:, because "after line 4" means nothing once line 4 is
// replaced. PUT <4: and PUT >4: name two different gaps and are fine, and
// so are <1 and >$ beside a range: the top and the end of the file do not
// move.
func validateStep(ir IR) error {
	return wholeCall(len(ir.Sources), validate(ir))
}

func validate(ir IR) error {
	lim := ir.Limits.orDefault()
	for _, e := range ir.Edits {
		if err := ir.checkEdit(e); err != nil {
			return err
		}
	}
	if c := countLines(ir.Edits); c > lim.MaxExpandedLines {
		return amplification(lim, 0, fmt.Sprintf("%d in all", c))
	}
	if ir.anchorsApart() {
		return nil
	}
	return ir.firstConflict()
}

// firstConflict finds, in edit order, the first line or gap two ops
// both take, as the maps of what is taken fill up, and explains it.
func (ir IR) firstConflict() error {
	n := ir.NumLines
	consumed := map[int]int{} // original line -> the op that consumes it
	for _, e := range ir.Edits {
		start, end, ok := consumes(e)
		if !ok {
			continue
		}
		for l := start; l <= end; l++ {
			if other, taken := consumed[l]; taken && other != e.Src {
				return ir.overlap(other, e.Src, l, consumed)
			}
			consumed[l] = e.Src
		}
	}
	gaps := map[int]int{} // gap (the line it precedes) -> the op inserting there
	for _, e := range ir.Edits {
		c, ok := inserts(e)
		if !ok {
			continue
		}
		if c.Pos == PosAt {
			if owner, taken := consumed[c.Line]; !taken || owner != e.Src {
				return fail(CodeRangeInvalid, ir.source(e.Src).OpsLine, c.Line,
					"%q replaces line %d without deleting it; re-issue the op", ir.source(e.Src).Header, c.Line)
			}
			continue
		}
		g := gapOf(c, n)
		if other, taken := gaps[g]; taken && other != e.Src {
			return fail(CodeRangeInvalid, ir.source(e.Src).OpsLine, 0,
				"%q and %s both insert %s, and their order would be a guess; put all the rows under one of the two headers, in the order you want",
				ir.source(e.Src).Header, ir.describe(other), place(g, n))
		}
		gaps[g] = e.Src
		if c.Pos == PosBefore || c.Pos == PosAfter {
			if owner, taken := consumed[c.Line]; taken {
				side := "before"
				if c.Pos == PosAfter {
					side = "after"
				}
				return fail(CodeRangeInvalid, ir.source(e.Src).OpsLine, c.Line,
					"%q inserts %s line %d, but %s replaces or deletes that line, so the position is ambiguous; put these rows into that op's body where they belong",
					ir.source(e.Src).Header, side, c.Line, ir.describe(owner))
			}
		}
	}
	return nil
}

// anchorsApart reports whether firstConflict finds nothing: no line is
// consumed by two ops, no gap is inserted into by two, no insert sits
// next to a line an op consumes, and each replacement body stands on a
// line its own op deletes. It decides that from two sorted lists of
// place-and-op keys in one allocation, rather than from maps filled edit
// by edit; an edit that fails pays for both. The edits' lines are
// bounded by the expansion cap, which the caller checked.
func (ir IR) anchorsApart() bool {
	if uint64(ir.NumLines)+1 > math.MaxUint32 {
		return false // places beyond a key's 32 bits: firstConflict decides
	}
	nc, ng := 0, 0
	for _, e := range ir.Edits {
		if uint64(e.Src) > math.MaxUint32 {
			return false
		}
		if start, end, ok := consumes(e); ok {
			nc += end - start + 1
		} else if _, ok := inserts(e); ok {
			ng++
		}
	}
	buf := make([]uint64, nc+ng)
	consumed, gaps := buf[:0:nc], buf[nc:nc]
	for _, e := range ir.Edits {
		if start, end, ok := consumes(e); ok {
			for l := start; l <= end; l++ {
				consumed = append(consumed, placeKey(l, e.Src))
			}
		} else if c, ok := inserts(e); ok && c.Pos != PosAt {
			gaps = append(gaps, placeKey(gapOf(c, ir.NumLines), e.Src))
		}
	}
	if shared(consumed) || shared(gaps) {
		return false
	}
	for _, e := range ir.Edits {
		c, ok := inserts(e)
		if !ok {
			continue
		}
		src, taken := ownerOf(consumed, c.Line)
		switch c.Pos {
		case PosAt:
			if !taken || src != e.Src {
				return false
			}
		case PosBefore, PosAfter:
			if taken {
				return false
			}
		}
	}
	return true
}

// placeKey packs a place (a line or a gap, from 1) and the op taking it
// into one key that sorts by place, then op.
func placeKey(at, src int) uint64 { return uint64(at)<<32 | uint64(src) }

// shared sorts keys and reports whether two ops take one place.
func shared(keys []uint64) bool {
	slices.Sort(keys)
	for i := 1; i < len(keys); i++ {
		if keys[i]>>32 == keys[i-1]>>32 && keys[i] != keys[i-1] {
			return true
		}
	}
	return false
}

// ownerOf returns the op that takes place at in sorted keys no two ops
// share.
func ownerOf(keys []uint64, at int) (src int, ok bool) {
	if at < 1 {
		return 0, false
	}
	i, _ := slices.BinarySearch(keys, placeKey(at, 0))
	if i == len(keys) || keys[i]>>32 != uint64(at) {
		return 0, false
	}
	return int(uint32(keys[i])), true
}

// checkEdit checks one edit's lines against the text.
func (ir IR) checkEdit(e Edit) error {
	src := ir.source(e.Src)
	n := ir.NumLines
	switch e.Kind {
	case KindBlock:
		return blockError(src, e, "the block was not resolved")
	case KindDelete:
		if e.Line < 1 || e.Line > n {
			return outOfBounds(src.Header, src.OpsLine, e.Line, n)
		}
	case KindCut:
		return checkSpan(src, e.Start, e.End, n)
	case KindPaste:
		if e.IsSpanPaste() {
			return checkSpan(src, e.Start, e.End, n)
		}
		return checkCursor(src, e.Cursor, n)
	case KindInsert:
		return checkCursor(src, e.Cursor, n)
	default:
		return fail(CodeInvalidArgument, src.OpsLine, 0, "unknown edit kind %d", e.Kind)
	}
	return nil
}

func checkCursor(src Source, c Cursor, n int) error {
	switch c.Pos {
	case PosHead, PosEnd:
		return nil
	case PosBefore, PosAfter, PosAt:
		if c.Line < 1 || c.Line > n {
			return outOfBounds(src.Header, src.OpsLine, c.Line, n)
		}
		return nil
	}
	return fail(CodeInvalidArgument, src.OpsLine, 0, "%q has no insertion point", src.Header)
}

// consumes returns the original lines an edit removes.
func consumes(e Edit) (start, end int, ok bool) {
	switch {
	case e.Kind == KindDelete:
		return e.Line, e.Line, true
	case e.Kind == KindCut || e.IsSpanPaste():
		return e.Start, e.End, true
	}
	return 0, 0, false
}

// inserts returns where an edit adds lines.
func inserts(e Edit) (Cursor, bool) {
	switch {
	case e.Kind == KindInsert:
		return e.Cursor, true
	case e.Kind == KindPaste && !e.IsSpanPaste():
		return e.Cursor, true
	}
	return Cursor{}, false
}

// gapOf numbers the gap a cursor inserts into by the original line that
// follows it: 1 is the top of the file, n+1 its end.
func gapOf(c Cursor, n int) int {
	switch c.Pos {
	case PosHead:
		return 1
	case PosEnd:
		return n + 1
	case PosAfter:
		return c.Line + 1
	}
	return c.Line // PosBefore, PosAt
}

func place(g, n int) string {
	switch {
	case g == 1:
		return "at the top of the file"
	case g == n+1:
		return "at the end of the file"
	}
	return fmt.Sprintf("between lines %d and %d", g-1, g)
}

// overlap reports two ops consuming one line, with the merged range that
// would express both.
func (ir IR) overlap(first, second, line int, consumed map[int]int) error {
	lo, hi := line, line
	for l, src := range consumed {
		if src == first || src == second {
			lo, hi = min(lo, l), max(hi, l)
		}
	}
	for _, e := range ir.Edits {
		if s, en, ok := consumes(e); ok && e.Src == second {
			lo, hi = min(lo, s), max(hi, en)
		}
	}
	return fail(CodeRangeInvalid, ir.source(second).OpsLine, line,
		"%q and %s both change line %d; ops may not overlap. Use one op for the whole region, for example PUT %d.=%d: with the final text of lines %d-%d as +TEXT rows",
		ir.source(second).Header, ir.describe(first), line, lo, hi, lo, hi)
}
