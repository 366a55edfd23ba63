package hashline

import (
	"fmt"
	"slices"
)

// Registers is the session's store of named registers (edit-contract
// §7.5), supplied by the tool layer. The anonymous register is call-local
// and lives inside expandStep.
type Registers interface {
	Get(name string) ([]string, bool)
	Set(name string, lines []string) error
}

// anonCapture is one anonymous CUT seen by the pre-pass.
type anonCapture struct {
	src        int
	opsLine    int
	start, end int
	pasted     bool
}

// expandStep is the clipboard pre-pass (edit-contract §8.3): in source
// order, every cut captures its lines and becomes deletes, and every paste
// reads its register and becomes inserts (plus deletes for a span paste,
// added only once the read succeeded). text is the text the IR indexes.
//
// Sequencing errors are reported as such: a paste with nothing captured
// before it is EDIT_REGISTER_EMPTY, and an anonymous paste while two or
// more anonymous captures are still unpasted is EDIT_REGISTER_AMBIGUOUS.
// Anonymous CUTs that are never pasted are plain deletions. A named CUT
// over MaxRegisterLines or MaxRegisterBytes is INVALID_ARGUMENT; so is an
// anonymous one, but only once it is pasted, because an unpasted CUT keeps
// nothing.
//
// Named captures are visible to later pastes of the same call but reach
// regs only through Commit, after the write has landed, so a failed call
// leaves the session's registers untouched. regs may be nil when no named
// register is used.
func expandStep(ir IR, text Text, regs Registers) (IR, error) {
	out, err := expand(ir, text, regs)
	return out, wholeCall(len(ir.Sources), err)
}

func expand(ir IR, text Text, regs Registers) (IR, error) {
	lim := ir.Limits.orDefault()
	if text.Len() != ir.NumLines {
		return IR{}, fail(CodeInvalidArgument, 0, 0,
			"the text has %d lines but the edit was lowered for %d; lower it again for this text", text.Len(), ir.NumLines)
	}
	if len(ir.Edits) <= lim.MaxExpandedLines && !slices.ContainsFunc(ir.Edits, func(e Edit) bool {
		return e.Kind == KindCut || e.Kind == KindPaste || e.Kind == KindBlock
	}) {
		return ir, nil // only inserts and deletes: nothing to expand
	}
	out := ir
	size, cuts := expandedSize(ir.Edits, lim.MaxExpandedLines)
	out.Edits = make([]Edit, 0, size)
	out.Resolutions = slices.Clone(ir.Resolutions)
	out.Captures = slices.Clone(ir.Captures)
	budget := lim.MaxExpandedLines
	anon := make([]anonCapture, 0, cuts)
	lastAnon := -1 // the register's current content: an index into anon
	named := map[string][]string{}
	namedFrom := map[string]int{} // the first original line of each capture of this call
	for _, e := range ir.Edits {
		src := ir.source(e.Src)
		switch e.Kind {
		case KindBlock:
			return IR{}, blockError(src, e, "the block was not resolved before expansion")
		case KindInsert, KindDelete:
			out.Edits = append(out.Edits, e)
			budget--
		case KindCut:
			if err := checkSpan(src, e.Start, e.End, text.Len()); err != nil {
				return IR{}, err
			}
			if e.Register == "" {
				anon = append(anon, anonCapture{src: e.Src, opsLine: src.OpsLine, start: e.Start, end: e.End})
				lastAnon = len(anon) - 1
			} else {
				if regs == nil {
					return IR{}, noRegisters(src, e.Register)
				}
				captured := slices.Clone(linesOf(text, e.Start, e.End))
				if err := checkCapture(lim, src, captured); err != nil {
					return IR{}, err
				}
				named[e.Register], namedFrom[e.Register] = captured, e.Start
				out.Captures = append(out.Captures, Capture{Register: e.Register, Lines: captured, Src: e.Src})
			}
			out.Edits = appendDeletes(out.Edits, e.Src, e.Start, e.End)
			budget -= e.End - e.Start + 1
		case KindPaste:
			var content []string
			from := 0 // the original line content starts at; 0 for another call's capture
			if e.Register == "" {
				k, err := anonContent(src, anon, lastAnon)
				if err != nil {
					return IR{}, err
				}
				c := anon[k]
				content, from = linesOf(text, c.start, c.end), c.start
				if err := checkCapture(lim, ir.source(c.src), content); err != nil {
					return IR{}, err
				}
			} else {
				if regs == nil {
					return IR{}, noRegisters(src, e.Register)
				}
				var ok bool
				if content, ok = named[e.Register]; ok {
					from = namedFrom[e.Register]
				} else {
					content, ok = regs.Get(e.Register)
				}
				if !ok {
					return IR{}, fail(CodeRegisterEmpty, src.OpsLine, 0,
						"%q pastes register @%s, which is empty: nothing was cut into it in this call or an earlier one. Capture it first with CUT N.=M @%s (a CUT above the paste in the same call works), then paste",
						src.Header, e.Register, e.Register)
				}
			}
			at := e.Cursor
			if e.IsSpanPaste() {
				if err := checkSpan(src, e.Start, e.End, text.Len()); err != nil {
					return IR{}, err
				}
				out.Edits = appendDeletes(out.Edits, e.Src, e.Start, e.End)
				budget -= e.End - e.Start + 1
				at = Cursor{Pos: PosAt, Line: e.Start}
			}
			if budget -= len(content); budget < 0 {
				break
			}
			out.Edits = appendCopies(out.Edits, e.Src, at, content, from)
		}
		if budget < 0 {
			return IR{}, amplification(lim, src.OpsLine, fmt.Sprintf("reached at %q", src.Header))
		}
	}
	return out, nil
}

// expandedSize is how many edits expanding edits makes, short only of
// the rows pastes add, and how many of them are CUTs. It counts no more
// than limit for a span, which the expansion refuses anyway.
func expandedSize(edits []Edit, limit int) (size, cuts int) {
	for _, e := range edits {
		size++
		switch {
		case e.Kind == KindCut:
			cuts++
			size += max(min(e.End-e.Start, limit), 0)
		case e.IsSpanPaste():
			size += max(min(e.End-e.Start, limit), 0)
		}
	}
	return min(size, len(edits)+limit), cuts
}

// anonContent picks the anonymous capture a paste reads, marking it
// pasted: an index into anon, where last is the latest (-1: none).
func anonContent(src Source, anon []anonCapture, last int) (int, error) {
	pending, first := 0, -1
	for i, c := range anon {
		if !c.pasted {
			if pending++; first < 0 {
				first = i
			}
		}
	}
	switch {
	case pending == 1:
		anon[first].pasted = true
		return first, nil
	case pending > 1:
		return -1, fail(CodeRegisterAmbiguous, src.OpsLine, 0,
			"%q pastes the anonymous register, but %d CUTs above it (ops lines %s) captured into it and none was pasted, so which one is meant is ambiguous. Name the registers: CUT N.=M @a, CUT K.=L @b, then paste with PUT >X @a",
			src.Header, pending, opsLines(anon))
	case last >= 0:
		return last, nil
	}
	return -1, fail(CodeRegisterEmpty, src.OpsLine, 0,
		"%q pastes the anonymous register, but no CUT above it in this call captured anything (ops are read top to bottom for cut and paste, though their line numbers all refer to the original file). Put the CUT op above the paste",
		src.Header)
}

// opsLines lists the ops lines of the captures not yet pasted.
func opsLines(cs []anonCapture) string {
	s := ""
	for _, c := range cs {
		if c.pasted {
			continue
		}
		if s != "" {
			s += ", "
		}
		s += fmt.Sprint(c.opsLine)
	}
	return s
}

func checkSpan(src Source, start, end, n int) error {
	if start < 1 || start > end {
		return fail(CodeRangeInvalid, src.OpsLine, start, "%q names lines %d-%d, which is not a forward range", src.Header, start, end)
	}
	if end > n {
		return outOfBounds(src.Header, src.OpsLine, end, n)
	}
	return nil
}

// checkCapture enforces the register capture limits (edit-contract §12).
func checkCapture(lim Limits, src Source, lines []string) error {
	var size int64
	for _, l := range lines {
		size += int64(len(l)) + 1
	}
	if len(lines) > lim.MaxRegisterLines || size > lim.MaxRegisterBytes {
		return fail(CodeInvalidArgument, src.OpsLine, 0,
			"%q captures %d lines (%d bytes), over the register limit of %d lines or %d bytes; move the text in smaller pieces, one CUT and paste each",
			src.Header, len(lines), size, lim.MaxRegisterLines, lim.MaxRegisterBytes)
	}
	return nil
}

func noRegisters(src Source, name string) error {
	return fail(CodeInvalidArgument, src.OpsLine, 0,
		"%q uses register @%s, but named registers are not available here; use the anonymous register (CUT N.=M, then PUT >K) within one call",
		src.Header, name)
}

// Commit writes the named-register captures of a successful call to regs,
// in source order so a later capture of the same name wins. The tool calls
// it once the write has landed: a call that fails changes no register.
func Commit(ir IR, regs Registers) error {
	if len(ir.Captures) == 0 {
		return nil
	}
	if regs == nil {
		return fail(CodeInvalidArgument, 0, 0, "the edit captured named registers but no register store was given")
	}
	for _, c := range ir.Captures {
		if err := regs.Set(c.Register, c.Lines); err != nil {
			return fmt.Errorf("set register @%s: %w", c.Register, err)
		}
	}
	return nil
}
