package hashline

import (
	"strconv"
	"strings"
)

// Patch is a parsed ops text.
type Patch struct {
	// Header is the optional leading "[path#TAG]" line. The tool checks it
	// against its path and tag arguments (edit-contract §6).
	Header *Header
	// Ops are the PUT and CUT ops in source order.
	Ops []Op
	// Rem is set by a REM op, which is then the only op.
	Rem bool
	// MoveTo is the MV destination as written (quotes removed), "" if
	// none. Every other op applies to the source first.
	MoveTo string
	// EOF is the final-newline state an EOF op sets; EOFKeep without one.
	EOF EOF
	// RemLine, MoveLine and EOFLine are the ops lines of REM, MV and EOF,
	// 0 if absent.
	RemLine, MoveLine, EOFLine int
}

// EOF is whether the file's last line ends with a newline, as an EOF op
// sets it (edit-contract §7.2). It is a state, not a toggle: an EOF op
// that names the state the file is already in changes nothing.
type EOF uint8

const (
	// EOFKeep: no EOF op; the file keeps its final newline, or its lack
	// of one.
	EOFKeep EOF = iota
	// EOFNewline is "EOF NEWLINE": the last line ends with a newline.
	EOFNewline
	// EOFNoNewline is "EOF NO-NEWLINE": the last line has no newline.
	EOFNoNewline
)

// String is the op as written.
func (e EOF) String() string {
	switch e {
	case EOFNewline:
		return "EOF NEWLINE"
	case EOFNoNewline:
		return "EOF NO-NEWLINE"
	}
	return ""
}

// Final decides whether the edited text ends with a newline: had is
// whether the text the patch applies to did, lines are the lines after
// the patch's other ops. A state the text cannot have is refused with
// EDIT_RANGE_INVALID: a text without lines has no last line to end, and
// an empty last line exists only by its newline (without it, the line is
// gone).
func (p *Patch) Final(had bool, lines []string) (bool, error) {
	return p.FinalText(had, Lines(lines))
}

// FinalText is Final for a new text given as a Text (Result.View): it
// reads only the last line.
func (p *Patch) FinalText(had bool, t Text) (bool, error) {
	if p.EOF == EOFKeep {
		return had, nil
	}
	n := t.Len()
	if n == 0 {
		return false, fail(CodeRangeInvalid, p.EOFLine, 0,
			"%q: after this edit the file has no lines, so it has no last line to end; drop the EOF op (lines you add with PUT >$: end with a newline)", p.EOF)
	}
	if p.EOF == EOFNoNewline && t.Line(n) == "" {
		return false, fail(CodeRangeInvalid, p.EOFLine, n,
			"%q: the last line after this edit (line %d) is empty, and an empty last line exists only by its newline, so removing the newline would delete the line. To end the file on the line above it without a newline, delete the empty line in the same call (CUT it, or leave it out of your PUT body) and keep EOF NO-NEWLINE",
			p.EOF, n)
	}
	return p.EOF == EOFNewline, nil
}

// Header is the "[path#TAG]" section line.
type Header struct {
	Path, Tag string
	Line      int // ops line, 1-based
}

// OpKind says what an op does with its locator.
type OpKind uint8

const (
	// OpPut writes body rows (header ends with ':') or pastes a register.
	OpPut OpKind = iota + 1
	// OpCut deletes lines and captures them in a register.
	OpCut
)

// LocKind is the shape of a locator (edit-contract §7.1).
type LocKind uint8

const (
	LocRange      LocKind = iota + 1 // N.=M, inclusive
	LocBlock                         // N*: the syntactic block opening at N
	LocBefore                        // <N: the gap before line N (<1 is the file head)
	LocAfter                         // >N: the gap after line N
	LocEnd                           // >$: the end of the file
	LocAfterBlock                    // >N*: the gap after the block opening at N
)

// Locator names the lines or gap an op works on, in original line numbers.
type Locator struct {
	Kind  LocKind
	Start int // N; 0 for LocEnd
	End   int // M for LocRange, else equal to Start
}

// IsGap reports whether the locator names a position between lines rather
// than lines themselves.
func (l Locator) IsGap() bool {
	switch l.Kind {
	case LocBefore, LocAfter, LocEnd, LocAfterBlock:
		return true
	}
	return false
}

// IsBlock reports whether the locator needs block resolution.
func (l Locator) IsBlock() bool { return l.Kind == LocBlock || l.Kind == LocAfterBlock }

// String is the canonical spelling of the locator.
func (l Locator) String() string { return string(l.append(nil)) }

// append appends the canonical spelling to b; the parser checks every
// header against it, so it must not allocate.
func (l Locator) append(b []byte) []byte {
	switch l.Kind {
	case LocRange:
		b = strconv.AppendInt(b, int64(l.Start), 10)
		b = append(b, ".="...)
		return strconv.AppendInt(b, int64(l.End), 10)
	case LocBlock:
		return append(strconv.AppendInt(b, int64(l.Start), 10), '*')
	case LocBefore:
		return strconv.AppendInt(append(b, '<'), int64(l.Start), 10)
	case LocAfter:
		return strconv.AppendInt(append(b, '>'), int64(l.Start), 10)
	case LocEnd:
		return append(b, ">$"...)
	case LocAfterBlock:
		return append(strconv.AppendInt(append(b, '>'), int64(l.Start), 10), '*')
	}
	return append(b, '?')
}

// Op is one PUT or CUT with its body rows.
type Op struct {
	Kind OpKind
	Loc  Locator
	// Colon is set when a PUT header ends with ':' and so carries body
	// rows; a PUT without it pastes a register.
	Colon bool
	// Register is the named register without its '@', "" for the
	// anonymous one.
	Register string
	// Body holds the final text of each body row, without its '+'.
	Body []string
	// Line is the 1-based ops line of the header; Header is its verbatim
	// text (trailing blanks and CR removed), echoed to the renderer
	// (edit-contract §13.4).
	Line   int
	Header string
}

// OneLineHeader is the header's one-line spelling, "PUT 7:" for
// "PUT 7.=7:" and "CUT 7 @r" for "CUT 7.=7 @r", accepted as canonical
// beside the range form (edit-contract §7.1); "" when the locator is not
// a one-line range.
func (o Op) OneLineHeader() string {
	if o.Loc.Kind != LocRange || o.Loc.Start != o.Loc.End {
		return ""
	}
	n := strconv.Itoa(o.Loc.Start)
	// The verb and one space come first; a register, the only other
	// part of a header, holds no '.', so the first match is the locator.
	return strings.Replace(o.String(), n+".="+n, n, 1)
}

// IsPaste reports whether the op pastes a register.
func (o Op) IsPaste() bool { return o.Kind == OpPut && !o.Colon }

// String is the canonical header of the op (without body rows).
func (o Op) String() string { return string(o.append(nil)) }

// append appends the canonical header to b.
func (o Op) append(b []byte) []byte {
	if o.Kind == OpCut {
		b = append(b, "CUT "...)
	} else {
		b = append(b, "PUT "...)
	}
	b = o.Loc.append(b)
	if o.Colon {
		b = append(b, ':')
	}
	if o.Register != "" {
		b = append(b, " @"...)
		b = append(b, o.Register...)
	}
	return b
}

// Format renders the patch in canonical form: what Parse accepts and
// returns an equal patch for.
func (p *Patch) Format() string {
	var b strings.Builder
	if p.Header != nil {
		b.WriteString("[" + p.Header.Path + "#" + p.Header.Tag + "]\n")
	}
	if p.Rem {
		b.WriteString("REM\n")
	}
	for _, op := range p.Ops {
		b.WriteString(op.String())
		b.WriteByte('\n')
		if len(op.Body) > 0 {
			b.WriteString(Body(op.Body))
			b.WriteByte('\n')
		}
	}
	if p.EOF != EOFKeep {
		b.WriteString(p.EOF.String() + "\n")
	}
	if p.MoveTo != "" {
		b.WriteString("MV " + formatDest(p.MoveTo) + "\n")
	}
	return b.String()
}

// Body is rows as the body of a PUT: each row a line of its own after
// its '+', with no newline after the last.
func Body(rows []string) string {
	var b strings.Builder
	for i, row := range rows {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteByte('+')
		b.WriteString(row)
	}
	return b.String()
}

// formatDest quotes an MV destination only when a bare one would not
// survive parsing.
func formatDest(dest string) string {
	if dest == "" || strings.ContainsAny(dest, " \t\"'\\") || !isPrintable(dest) {
		return strconv.Quote(dest)
	}
	return dest
}

func isPrintable(s string) bool {
	for _, r := range s {
		if !strconv.IsPrint(r) {
			return false
		}
	}
	return true
}
