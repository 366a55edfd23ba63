package hashline

import (
	"errors"
	"fmt"
	"slices"
)

// BlockResolver finds the syntactic block that opens at a line of the
// tagged text (edit-contract §8.2). The tool layer supplies it; this
// package never parses source code.
type BlockResolver interface {
	// Resolve returns the inclusive span of the block opening at line, or
	// an error saying why there is none (unsupported language, a line that
	// opens nothing, a file that does not parse). The error text is shown
	// to the model as the reason.
	Resolve(line int) (start, end int, err error)
}

// resolveStep replaces every block edit with the span it names and
// records each resolution for the result echo. A nil resolver means block
// ops are not available in this build: each is EDIT_BLOCK_UNRESOLVED with
// the plain-range alternative.
func resolveStep(ir IR, r BlockResolver) (IR, error) {
	out, err := resolveBlocks(ir, r)
	return out, wholeCall(len(ir.Sources), err)
}

func resolveBlocks(ir IR, r BlockResolver) (IR, error) {
	if !slices.ContainsFunc(ir.Edits, func(e Edit) bool { return e.Kind == KindBlock }) {
		return ir, nil // nothing to resolve; IRs are never changed in place
	}
	out := ir.clone()
	out.Edits = out.Edits[:0:0]
	budget := ir.Limits.orDefault().MaxExpandedLines - countLines(ir.Edits)
	for _, e := range ir.Edits {
		if e.Kind != KindBlock {
			out.Edits = append(out.Edits, e)
			continue
		}
		src := ir.source(e.Src)
		if r == nil {
			return IR{}, blockError(src, e, "block locators are not available in this build")
		}
		start, end, err := r.Resolve(e.Line)
		if err != nil {
			return IR{}, resolverError(src, e, err)
		}
		if start < 1 || start > e.Line || end < e.Line || end > ir.NumLines {
			return IR{}, blockError(src, e, fmt.Sprintf("the resolver returned lines %d-%d, which do not contain line %d of a %d-line file", start, end, e.Line, ir.NumLines))
		}
		size := len(e.Body)
		if e.Block == BlockPut || e.Block == BlockCut || e.Block == BlockPaste {
			size += end - start + 1
		}
		if budget -= size; budget < 0 {
			return IR{}, amplification(ir.Limits.orDefault(), src.OpsLine, fmt.Sprintf("%q covers lines %d-%d", src.Header, start, end))
		}
		out.Resolutions = append(out.Resolutions, Resolution{AnchorLine: e.Line, Start: start, End: end, Op: src.Header})
		after := Cursor{Pos: PosAfter, Line: end}
		switch e.Block {
		case BlockPut:
			out.Edits = appendDeletes(out.Edits, e.Src, start, end)
			out.Edits = appendInserts(out.Edits, e.Src, Cursor{Pos: PosAt, Line: start}, e.Body)
		case BlockPutAfter:
			out.Edits = appendInserts(out.Edits, e.Src, after, e.Body)
		case BlockCut:
			out.Edits = append(out.Edits, Edit{Kind: KindCut, Src: e.Src, Start: start, End: end, Register: e.Register})
		case BlockPaste:
			out.Edits = append(out.Edits, Edit{Kind: KindPaste, Src: e.Src, Start: start, End: end, Register: e.Register})
		case BlockPasteAfter:
			out.Edits = append(out.Edits, Edit{Kind: KindPaste, Src: e.Src, Cursor: after, Register: e.Register})
		}
	}
	return out, nil
}

// declined is what a resolver's error may tell beyond its text: the reason
// alone and the plain range of the construct around the line, when the
// resolver can name it.
type declined interface {
	DeclineReason() string
	PlainRange() (start, end int, ok bool)
}

// resolverError is EDIT_BLOCK_UNRESOLVED for a resolver's refusal. When
// the resolver names the range, the alternative is this op in plain-range
// form over exactly that range.
func resolverError(src Source, e Edit, err error) *Error {
	var d declined
	if !errors.As(err, &d) {
		return blockError(src, e, err.Error())
	}
	start, end, ok := d.PlainRange()
	if !ok {
		return blockError(src, e, d.DeclineReason())
	}
	var alt string
	switch e.Block {
	case BlockPut:
		alt = fmt.Sprintf("PUT %d.=%d: with +TEXT rows", start, end)
	case BlockPutAfter:
		alt = fmt.Sprintf("PUT >%d: with +TEXT rows", end)
	case BlockCut:
		alt = fmt.Sprintf("CUT %d.=%d", start, end)
	case BlockPaste:
		alt = fmt.Sprintf("PUT %d.=%d @%s", start, end, e.Register)
	default:
		alt = fmt.Sprintf("PUT >%d", end)
	}
	out := fail(CodeBlockUnresolved, src.OpsLine, e.Line,
		"%q: no block resolved at line %d (%s). If you meant lines %d-%d, use %s",
		src.Header, e.Line, d.DeclineReason(), start, end, alt)
	out.Reason = d.DeclineReason()
	return out
}

// blockError is EDIT_BLOCK_UNRESOLVED naming the plain-range form of the
// same op.
func blockError(src Source, e Edit, reason string) *Error {
	var alt string
	switch e.Block {
	case BlockPut:
		alt = fmt.Sprintf("PUT %d.=M: with +TEXT rows", e.Line)
	case BlockPutAfter:
		alt = "PUT >M: with +TEXT rows, M being the block's last line"
	case BlockCut:
		alt = fmt.Sprintf("CUT %d.=M", e.Line)
	case BlockPaste:
		alt = fmt.Sprintf("PUT %d.=M @%s", e.Line, e.Register)
	default:
		alt = "PUT >M, M being the block's last line"
	}
	err := fail(CodeBlockUnresolved, src.OpsLine, e.Line,
		"%q: no block resolved at line %d (%s). Name the lines instead: %s, where M is the block's last line as shown by read",
		src.Header, e.Line, reason, alt)
	err.Reason = reason
	return err
}

// countLines is how many line edits the IR already holds; cuts and span
// pastes count their spans.
func countLines(edits []Edit) int {
	n := 0
	for _, e := range edits {
		switch {
		case e.Kind == KindCut || e.IsSpanPaste():
			n += e.End - e.Start + 1
		case e.Kind == KindBlock:
			n += len(e.Body)
		default:
			n++
		}
	}
	return n
}

func (ir IR) source(src int) Source {
	if src < 0 || src >= len(ir.Sources) {
		return Source{}
	}
	return ir.Sources[src]
}
