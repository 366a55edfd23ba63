package hashline

import (
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Parse reads an ops text (edit-contract §7.1, §7.2) into a Patch.
// It is strict: anything that is not exactly the grammar fails, and the
// error shows the corrected form. It checks only what the text alone can
// decide; line bounds and overlaps need the file and are checked by lowerStep
// and validateStep.
func Parse(ops string, lim Limits) (*Patch, error) {
	lim = lim.orDefault()
	if len(ops) > lim.MaxOpsPayloadBytes {
		return nil, fail(CodeInvalidArgument, 0, 0,
			"ops is %d bytes, over the limit of %d; split the edit into several calls, each using the tag the previous one returned",
			len(ops), lim.MaxOpsPayloadBytes)
	}
	if !utf8.ValidString(ops) {
		return nil, fail(CodeInvalidArgument, 0, 0, "ops is not valid UTF-8; send the body rows as UTF-8 text")
	}
	if i := strings.IndexByte(ops, 0); i >= 0 {
		return nil, fail(CodeInvalidArgument, strings.Count(ops[:i], "\n")+1, 0,
			"ops contains a NUL byte, which would make the file binary; remove it")
	}
	p := parser{lim: lim, lines: strings.Split(ops, "\n")}
	return p.run()
}

// blockKind is what the most recent header line opened.
type blockKind uint8

const (
	blkNone    blockKind = iota
	blkSection           // [path#TAG]
	blkOp                // PUT or CUT
	blkRem
	blkMove
	blkEOF
)

type parser struct {
	lim   Limits
	lines []string
	patch Patch
	kind  blockKind // what the current block is
	op    *Op       // the current PUT or CUT
	hdr   string    // the current block's header text
	hdrLn int       // and its ops line
	nOps  int
	seen  bool // a non-blank line has been read
	// rows is where the current op's body rows start in lines: each row
	// is rewritten there without its '+', and the body is that stretch
	// of lines, so an op's rows cost no allocation of their own.
	rows int
}

func (p *parser) run() (*Patch, error) {
	headers := 0 // an upper bound of the op headers, to size Ops once
	for i, l := range p.lines {
		l = strings.TrimSuffix(l, "\r")
		p.lines[i] = l
		if l != "" && l[0] != '+' && l[0] != '[' {
			headers++
		}
	}
	p.patch.Ops = make([]Op, 0, min(headers, p.lim.MaxOpsPerCall))
	last := len(p.lines) - 1
	for last >= 0 && isBlank(p.lines[last]) {
		last--
	}
	for i := 0; i <= last; i++ {
		if err := p.line(i+1, p.lines[i], i < last && strings.HasPrefix(p.lines[i+1], "+")); err != nil {
			return nil, err
		}
	}
	if err := p.finish(); err != nil {
		return nil, err
	}
	return p.check()
}

// takesBody reports whether '+' rows belong to the current block.
func (p *parser) takesBody() bool { return p.kind == blkOp && p.op.Kind == OpPut && p.op.Colon }

func (p *parser) line(ln int, s string, bodyFollows bool) error {
	switch {
	case isBlank(s):
		if p.takesBody() {
			return fail(CodeParseFailed, ln, 0,
				"a blank line under %q is ambiguous; write an empty line of content as a bare '+' row, and put nothing between one op's rows and the next header",
				p.hdr)
		}
		return nil
	case s[0] == '+':
		return p.bodyRow(ln, s)
	}
	defer func() { p.seen = true }()
	if s[0] == '[' && !p.takesBody() {
		return p.section(ln, s)
	}
	text := trimBlanksRight(s)
	h, ok := lexHeader(text)
	// Inside a body, a row in the wrong letter case is only taken for a
	// header when its locator reads cleanly; otherwise it is a context row.
	if ok && (h.exact || !p.takesBody() || h.problem == caseProblem) {
		if err := p.finish(); err != nil {
			return err
		}
		return p.header(ln, text, h, bodyFollows)
	}
	return p.stray(ln, s)
}

func (p *parser) section(ln int, s string) error {
	text := strings.TrimRight(s, " \t")
	if p.seen {
		return fail(CodeParseFailed, ln, 0,
			"%q: a [path#TAG] line may only open the ops text, and one call edits one file; send another file's ops in a separate call", text)
	}
	inner := strings.TrimSuffix(strings.TrimPrefix(text, "["), "]")
	k := strings.LastIndexByte(inner, '#')
	if !strings.HasSuffix(text, "]") || k < 0 || strings.TrimSpace(inner[:k]) == "" || strings.TrimSpace(inner[k+1:]) == "" {
		return fail(CodeParseFailed, ln, 0,
			"%q is not a section header; write it as [path#TAG], for example [src/main.go#A1B2], or leave it out", text)
	}
	p.patch.Header = &Header{Path: strings.TrimSpace(inner[:k]), Tag: strings.TrimSpace(inner[k+1:]), Line: ln}
	p.kind, p.op, p.hdr, p.hdrLn = blkSection, nil, text, ln
	return nil
}

func (p *parser) header(ln int, text string, h rawHeader, bodyFollows bool) error {
	p.nOps++
	if p.nOps > p.lim.MaxOpsPerCall {
		return fail(CodeInvalidArgument, ln, 0,
			"ops has more than %d ops, the limit for one call; split the edit into several calls, each using the tag the previous one returned",
			p.lim.MaxOpsPerCall)
	}
	if h.problem != "" {
		if h.fixable {
			return fail(CodeParseFailed, ln, 0, "%q is not a valid header: %s. Write: %s", text, h.problem, h.suggestion(bodyFollows))
		}
		return fail(CodeParseFailed, ln, 0, "%q is not a valid header: %s", text, h.problem)
	}
	p.hdr, p.hdrLn, p.op = text, ln, nil
	switch h.verb {
	case "REM":
		if p.patch.Rem {
			return fail(CodeInvalidArgument, ln, 0, "REM appears twice; send it once, alone")
		}
		p.kind, p.patch.Rem, p.patch.RemLine = blkRem, true, ln
	case "MV":
		if p.patch.MoveLine != 0 {
			return fail(CodeInvalidArgument, ln, 0,
				"a second MV (the first is on ops line %d); an edit moves its file at most once, so keep one MV with the final destination", p.patch.MoveLine)
		}
		p.kind, p.patch.MoveTo, p.patch.MoveLine = blkMove, h.dest, ln
	case "EOF":
		if p.patch.EOFLine != 0 {
			return fail(CodeInvalidArgument, ln, 0,
				"a second EOF op (the first is on ops line %d); the file has one last line, so keep one EOF with the state you want", p.patch.EOFLine)
		}
		p.kind, p.patch.EOF, p.patch.EOFLine = blkEOF, h.eof, ln
	default:
		op := Op{Kind: OpPut, Loc: h.loc.canonical(), Colon: h.colon, Register: h.reg, Line: ln, Header: text}
		if h.verb == "CUT" {
			op.Kind = OpCut
		}
		p.patch.Ops = append(p.patch.Ops, op)
		p.kind, p.op = blkOp, &p.patch.Ops[len(p.patch.Ops)-1]
	}
	return nil
}

// bodyRow handles a '+' row: the final text of one line of a PUT body.
func (p *parser) bodyRow(ln int, s string) error {
	if p.takesBody() {
		// Rows of one op are consecutive lines: anything between them
		// ends the body or fails.
		if len(p.op.Body) == 0 {
			p.rows = ln - 1
		}
		p.lines[ln-1] = s[1:]
		p.op.Body = p.lines[p.rows:ln:ln]
		return nil
	}
	switch p.kind {
	case blkNone, blkSection:
		return fail(CodeParseFailed, ln, 0,
			"body row %q has no op header above it; put the header first, for example PUT 3.=3: (replace line 3) or PUT >3: (insert after it), then the + rows",
			clip(s))
	case blkRem, blkMove, blkEOF:
		return fail(CodeParseFailed, ln, 0,
			"body row %q follows %q, which takes no body rows; to write content, use PUT N.=M: or PUT >N: with + rows in the same call", clip(s), p.hdr)
	}
	op := p.op
	if op.Kind == OpCut {
		return fail(CodeParseFailed, ln, 0,
			"body row %q follows %q, but CUT deletes (and captures) lines and takes no body rows; to replace the lines with new content write %s followed by the + rows",
			clip(s), p.hdr, Op{Kind: OpPut, Loc: op.Loc, Colon: true}.String())
	}
	want := Op{Kind: OpPut, Loc: op.Loc, Colon: true}.String()
	if op.Register == "" && !op.Loc.IsGap() {
		return fail(CodeParseFailed, p.hdrLn, 0,
			"%q has body rows below it, but a PUT with body rows must end its header with ':', for example %s", p.hdr, want)
	}
	reg := "the anonymous register"
	if op.Register != "" {
		reg = "register @" + op.Register
	}
	return fail(CodeInvalidArgument, ln, 0,
		"body row %q follows %q, which pastes %s and takes no body rows. To insert these rows instead, write the header as %s; to paste, remove the rows",
		clip(s), p.hdr, reg, want)
}

// finish closes the current block, checking what only its end can tell.
func (p *parser) finish() error {
	if p.kind != blkOp {
		return nil
	}
	op := p.op
	switch {
	case op.Kind == OpPut && op.Colon && len(op.Body) == 0:
		if op.Loc.IsGap() {
			return fail(CodeParseFailed, op.Line, 0,
				"%q promises body rows and has none; write the rows to insert as +TEXT lines below it, or drop the ':' to paste a register (%s for the anonymous one, %s @name for a named one)",
				op.Header, Op{Kind: OpPut, Loc: op.Loc}.String(), Op{Kind: OpPut, Loc: op.Loc}.String())
		}
		return fail(CodeParseFailed, op.Line, 0,
			"%q has no body rows; an empty PUT is not a deletion. To delete these lines write %s; to replace them, add the new lines as +TEXT rows",
			op.Header, Op{Kind: OpCut, Loc: op.Loc}.String())
	case op.IsPaste() && op.Register == "" && !op.Loc.IsGap():
		return fail(CodeParseFailed, op.Line, 0,
			"%q would paste over lines, and that form needs a named register: write %s to paste @name over them, or %s followed by +TEXT rows to replace them",
			op.Header, op.String()+" @name", Op{Kind: OpPut, Loc: op.Loc, Colon: true}.String())
	}
	return nil
}

// check applies the rules about the patch as a whole.
func (p *parser) check() (*Patch, error) {
	pt := &p.patch
	if pt.Rem && (len(pt.Ops) > 0 || pt.MoveLine != 0 || pt.EOFLine != 0) {
		return nil, fail(CodeInvalidArgument, pt.RemLine, 0,
			"REM deletes the whole file and must be the only op; send it alone, or drop it and keep the other ops")
	}
	if !pt.Rem && len(pt.Ops) == 0 && pt.MoveLine == 0 && pt.EOFLine == 0 {
		return nil, fail(CodeParseFailed, 0, 0,
			"ops has no operations; write at least one, for example PUT 3.=3: followed by +TEXT rows, CUT 3.=4, PUT >$: followed by +TEXT rows, EOF NEWLINE, REM or MV new/path")
	}
	return pt, nil
}

var (
	readRow   = regexp.MustCompile(`^(\d+)[:|](.*)$`)
	bareRange = regexp.MustCompile(`^(\d+)\s*(?:(?:\.=|\.\.|…|-|–|—|=|\.|,|\s)\s*(\d+))?\s*:?$`)
	otherVerb = regexp.MustCompile(`^([A-Za-z][A-Za-z.]*)\s+\S`)
)

// stray explains a line that is neither blank, a body row nor a header.
func (p *parser) stray(ln int, s string) error {
	q := clip(s)
	trimmed := strings.TrimLeft(s, " \t")
	if h, ok := lexHeader(strings.TrimRight(trimmed, " \t")); ok && h.exact && len(trimmed) < len(s) {
		return fail(CodeParseFailed, ln, 0, "%q: op headers start at the beginning of the line; write %s", q, h.suggestion(false))
	}
	if s[0] == '-' {
		return fail(CodeParseFailed, ln, 0,
			"%q: there are no '-' rows; the range already deletes the old lines and the body holds only their final text. For content that starts with '-', write the row as %q",
			q, clip("+"+s))
	}
	if p.takesBody() {
		row := s
		if m := readRow.FindStringSubmatch(s); m != nil {
			row = m[2]
		}
		return fail(CodeParseFailed, ln, 0,
			"%q under %q is not a body row: body rows start with '+' and there are no context rows, because the range already names the lines being changed. If this is new content, write it as %q",
			q, p.hdr, clip("+"+row))
	}
	switch {
	case strings.HasPrefix(s, "@@"):
		return fail(CodeParseFailed, ln, 0,
			"%q is a unified-diff hunk header, which this language does not use; name the lines instead: PUT N.=M: followed by +TEXT rows, or CUT N.=M", q)
	case strings.HasPrefix(s, "***"):
		return fail(CodeParseFailed, ln, 0,
			"%q is an apply_patch line, which this language does not use; send only ops such as PUT N.=M: followed by +TEXT rows, or CUT N.=M", q)
	}
	if m := bareRange.FindStringSubmatch(s); m != nil {
		a, b := m[1], m[2]
		if b == "" {
			b = a
		}
		return fail(CodeParseFailed, ln, 0,
			"%q has no op name; write PUT %s.=%s: followed by +TEXT rows to replace the lines, or CUT %s.=%s to delete them", q, a, b, a, b)
	}
	if m := readRow.FindStringSubmatch(s); m != nil {
		n, _ := strconv.Atoi(m[1])
		return fail(CodeParseFailed, ln, 0,
			"%q looks like a line copied from read output; to set line %d, write the header PUT %d.=%d: and below it the row %q",
			q, n, n, n, clip("+"+m[2]))
	}
	if m := otherVerb.FindStringSubmatch(s); m != nil && strings.ToUpper(m[1]) == m[1] {
		return fail(CodeParseFailed, ln, 0,
			"%q: %s is not an op; the ops are PUT (write or paste), CUT (delete and capture), REM (delete the file) and MV (move it), for example CUT 3.=4", q, m[1])
	}
	return fail(CodeParseFailed, ln, 0,
		"%q is neither an op header nor a body row; headers start with PUT, CUT, REM or MV (for example PUT 3.=4:), and body rows start with '+'", q)
}

// isBlank reports whether s holds only blanks (spaces and tabs). Every
// ops line is tested, so it is a plain loop, not strings.Trim with a
// cutset.
func isBlank(s string) bool { return len(trimBlanksRight(s)) == 0 }

// trimBlanksRight and trimBlanksLeft are strings.TrimRight and TrimLeft
// with the cutset " \t", for the parser's hot path.
func trimBlanksRight(s string) string {
	for len(s) > 0 && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	return s
}

func trimBlanksLeft(s string) string {
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	return s
}

// clip shortens a quoted ops line so an error stays readable.
func clip(s string) string {
	const max = 120
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
