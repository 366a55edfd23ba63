package hashline

import "fmt"

// lowerStep turns a parsed patch into the flat IR of edit-contract §8.1 for a
// text of numLines lines. It checks every line number against numLines
// and the expansion cap before it allocates anything per line, so a huge
// range costs nothing. REM and MV are file operations for the tool layer
// and produce no edits.
func lowerStep(p *Patch, numLines int, lim Limits) (IR, error) {
	ir, err := lower(p, numLines, lim)
	if p != nil {
		err = wholeCall(len(p.Ops), err)
	}
	return ir, err
}

func lower(p *Patch, numLines int, lim Limits) (IR, error) {
	lim = lim.orDefault()
	ir := IR{NumLines: numLines, Limits: lim}
	if p == nil {
		return ir, nil
	}
	// Check everything first, then allocate the edits once, exactly as
	// many as lowerOp makes: no more than the budget the checks just
	// bounded, plus one per op.
	budget, edits := lim.MaxExpandedLines, 0
	for _, op := range p.Ops {
		if err := checkLocator(op, numLines); err != nil {
			return IR{}, err
		}
		size := len(op.Body)
		if op.Loc.Kind == LocRange {
			size += op.Loc.End - op.Loc.Start + 1
		}
		if budget -= size; budget < 0 {
			return IR{}, amplification(lim, op.Line, fmt.Sprintf("%q alone is %d lines", op.Header, size))
		}
		edits += editsOf(op)
	}
	ir.Sources = make([]Source, len(p.Ops))
	ir.Edits = make([]Edit, 0, edits)
	for i, op := range p.Ops {
		ir.Sources[i] = Source{OpsLine: op.Line, Header: op.Header}
		ir.Edits = lowerOp(ir.Edits, op, i)
	}
	return ir, nil
}

// editsOf is the number of edits lowerOp makes of op: one for a block op,
// a CUT or a paste, which later steps expand; a delete per line and an
// insert per row for the rest.
func editsOf(op Op) int {
	switch {
	case op.Loc.IsBlock() || op.Kind == OpCut || op.IsPaste():
		return 1
	case op.Loc.Kind == LocRange:
		return op.Loc.End - op.Loc.Start + 1 + len(op.Body)
	}
	return len(op.Body)
}

func lowerOp(out []Edit, op Op, src int) []Edit {
	loc := op.Loc
	if loc.IsBlock() {
		e := Edit{Kind: KindBlock, Src: src, Line: loc.Start, Register: op.Register, Body: op.Body}
		after := loc.Kind == LocAfterBlock
		switch {
		case op.Kind == OpCut:
			e.Block = BlockCut
		case op.Colon && after:
			e.Block = BlockPutAfter
		case op.Colon:
			e.Block = BlockPut
		case after:
			e.Block = BlockPasteAfter
		default:
			e.Block = BlockPaste
		}
		return append(out, e)
	}
	switch {
	case op.Kind == OpCut:
		return append(out, Edit{Kind: KindCut, Src: src, Start: loc.Start, End: loc.End, Register: op.Register})
	case op.IsPaste() && loc.Kind == LocRange:
		return append(out, Edit{Kind: KindPaste, Src: src, Start: loc.Start, End: loc.End, Register: op.Register})
	case op.IsPaste():
		return append(out, Edit{Kind: KindPaste, Src: src, Cursor: gapCursor(loc), Register: op.Register})
	case loc.Kind == LocRange:
		out = appendDeletes(out, src, loc.Start, loc.End)
		return appendInserts(out, src, Cursor{Pos: PosAt, Line: loc.Start}, op.Body)
	default:
		return appendInserts(out, src, gapCursor(loc), op.Body)
	}
}

// gapCursor is the insertion point of a gap locator.
func gapCursor(loc Locator) Cursor {
	switch {
	case loc.Kind == LocBefore && loc.Start == 1:
		return Cursor{Pos: PosHead}
	case loc.Kind == LocBefore:
		return Cursor{Pos: PosBefore, Line: loc.Start}
	case loc.Kind == LocEnd:
		return Cursor{Pos: PosEnd}
	}
	return Cursor{Pos: PosAfter, Line: loc.Start}
}

func appendDeletes(out []Edit, src, start, end int) []Edit {
	for l := start; l <= end; l++ {
		out = append(out, Edit{Kind: KindDelete, Src: src, Line: l})
	}
	return out
}

func appendInserts(out []Edit, src int, c Cursor, rows []string) []Edit {
	return appendCopies(out, src, c, rows, 0)
}

// appendCopies is appendInserts of rows that are original lines from,
// from+1, ... (0: rows the model wrote).
func appendCopies(out []Edit, src int, c Cursor, rows []string, from int) []Edit {
	for i, row := range rows {
		e := Edit{Kind: KindInsert, Src: src, Cursor: c, Text: row}
		if from > 0 {
			e.Origin = from + i
		}
		out = append(out, e)
	}
	return out
}

// checkLocator enforces edit-contract §7.3 rules 1-2 for one op: lines
// exist in the tagged text and ranges run forwards.
func checkLocator(op Op, n int) error {
	loc := op.Loc
	if loc.Kind == LocRange && loc.Start > loc.End {
		// Each suggestion keeps the op's verb, colon and register, so
		// it is a header the parser accepts above the same body.
		alt := op
		alt.Loc.Start, alt.Loc.End = loc.End, loc.Start
		one := op
		one.Loc.End = loc.Start
		count := op
		count.Loc.End = loc.Start + loc.End - 1
		return fail(CodeRangeInvalid, op.Line, loc.Start,
			"%q runs backwards: %d.=%d names absolute first and last lines, not a count. For lines %d to %d write %s; for one line write %s; for %d lines from %d write %s",
			op.Header, loc.Start, loc.End, loc.End, loc.Start, alt.String(), one.String(), loc.End, loc.Start, count.String())
	}
	switch loc.Kind {
	case LocEnd:
		return nil
	case LocBefore:
		if loc.Start == 1 {
			return nil
		}
	}
	for _, l := range []int{loc.Start, loc.End} {
		if l > n {
			return outOfBounds(op.Header, op.Line, l, n)
		}
	}
	return nil
}

func outOfBounds(header string, opsLine, line, n int) *Error {
	if n == 0 {
		return fail(CodeRangeInvalid, opsLine, line,
			"%q names line %d, but the file is empty; write its content with PUT <1: followed by +TEXT rows", header, line)
	}
	return fail(CodeRangeInvalid, opsLine, line,
		"%q names line %d, but the file has %d lines (1-%d); re-read the file for current line numbers, or append with PUT >$:",
		header, line, n, n)
}

func amplification(lim Limits, opsLine int, detail string) *Error {
	return fail(CodeAmplificationLimit, opsLine, 0,
		"the edit expands to more than %d line edits (%s); split it into several calls, each using the tag the previous one returned",
		lim.MaxExpandedLines, detail)
}
