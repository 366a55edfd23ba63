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
	// RemLine and MoveLine are the ops lines of REM and MV, 0 if absent.
	RemLine, MoveLine int
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
		for _, row := range op.Body {
			b.WriteByte('+')
			b.WriteString(row)
			b.WriteByte('\n')
		}
	}
	if p.MoveTo != "" {
		b.WriteString("MV " + formatDest(p.MoveTo) + "\n")
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
