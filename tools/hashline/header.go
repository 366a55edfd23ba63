package hashline

import (
	"strconv"
	"strings"
)

// An op header is lexed leniently, into what its author most likely
// meant, and then accepted only if it is spelled exactly in canonical
// form. The lenient reading never decides what is applied: it exists so
// that a rejection can show the corrected header instead of a grammar.

// rawHeader is a leniently lexed op header.
type rawHeader struct {
	verb   string // PUT, CUT, REM, MV or EOF, upper-cased
	exact  bool   // the verb was written in upper case
	loc    rawLoc
	locOK  bool // a locator was found after PUT or CUT
	colon  bool
	reg    string
	hasReg bool
	dest   string // MV
	eof    EOF    // EOF
	// problem is the first reason the header is not canonical; "" when it
	// is. fixable says the suggestion built from the other fields is
	// meaningful.
	problem string
	fixable bool
}

func (h *rawHeader) note(problem string, fixable bool) {
	if h.problem == "" {
		h.problem, h.fixable = problem, fixable
	}
}

// rawLoc is a leniently lexed locator.
type rawLoc struct {
	sign     byte // 0, '<' or '>'
	a, b     int
	hasB     bool
	dollar   bool // '$' in place of a (only canonical after '>')
	bDollar  bool // '$' in place of b
	star     bool
	sep      string // range separator as written, "" for none
	spaced   bool   // blanks inside the locator
	zeroPad  bool   // a number written with a leading zero
	tooLarge bool
}

// rangeSeps are the separators authors write between two line numbers.
// Only ".=" is canonical; the others are read so the error can show it.
var rangeSeps = []string{".=", "..", "…", "-", "–", "—", "=", ".", ","}

// caseProblem is noted only when it is a header's sole problem, so a
// lower-case "put 3.=4:" inside a body can be told from a context row.
const caseProblem = "op names are upper case"

var verbs = map[string]bool{"PUT": true, "CUT": true, "REM": true, "MV": true, "EOF": true}

// lexHeader reads line as an op header. ok is false when the line does
// not start with an op name in any letter case.
func lexHeader(line string) (h rawHeader, ok bool) {
	n := 0
	for n < len(line) && isLetter(line[n]) {
		n++
	}
	word := line[:n]
	h.verb = strings.ToUpper(word)
	if !verbs[h.verb] {
		return rawHeader{}, false
	}
	h.exact = word == h.verb
	rest := line[n:]
	switch h.verb {
	case "REM":
		if rest != "" {
			h.note("REM deletes the file and takes nothing after it", true)
		}
	case "MV":
		h.lexMove(rest)
	case "EOF":
		h.lexEOF(rest)
	default:
		h.lexLineOp(rest)
	}
	if !h.exact {
		h.note(caseProblem, true)
	}
	// The checks above name the usual mistakes; this catches any other
	// spelling that is not the canonical one. MV is exempt because quoting
	// a destination that needs no quotes is allowed.
	if h.problem == "" && h.verb != "MV" && !h.isCanonical(line) {
		h.note("headers are written exactly in the canonical form", true)
	}
	return h, true
}

func (h *rawHeader) lexMove(rest string) {
	if strings.TrimSpace(rest) == "" {
		h.note("MV needs a destination path, for example MV src/new_name.go", false)
		return
	}
	if rest[0] != ' ' || strings.HasPrefix(rest, "  ") {
		h.note("write exactly one space between MV and its destination", true)
	}
	d := strings.TrimSpace(rest)
	switch {
	case d[0] == '"':
		u, err := strconv.Unquote(d)
		if err != nil || u == "" {
			h.note(`a quoted destination is one double-quoted string with \" and \\ escaped, for example MV "docs/new name.md"`, false)
			return
		}
		h.dest = u
	case d[0] == '\'':
		if len(d) < 3 || d[len(d)-1] != '\'' || strings.Contains(d[1:len(d)-1], "'") {
			h.note(`quote a destination with double quotes, for example MV "docs/new name.md"`, false)
			return
		}
		h.dest = d[1 : len(d)-1]
		h.note("quote a destination with double quotes", true)
	default:
		if strings.ContainsAny(d, " \t") {
			h.dest = d
			h.note("a destination with blanks in it must be double-quoted", true)
			return
		}
		h.dest = d
	}
}

// lexEOF reads the state an EOF op sets: NEWLINE or NO-NEWLINE.
func (h *rawHeader) lexEOF(rest string) {
	word := strings.ToUpper(strings.Join(strings.Fields(rest), "-"))
	switch word {
	case "NEWLINE", "NL", "LF":
		h.eof = EOFNewline
	case "NO-NEWLINE", "NONEWLINE", "NO-NL", "NO-LF", "NO":
		h.eof = EOFNoNewline
	case "":
		h.note("EOF takes NEWLINE (the file's last line ends with a newline) or NO-NEWLINE (it does not); if this line is content (a heredoc's end), write it as the body row +EOF", false)
	default:
		h.note("EOF takes NEWLINE (the file's last line ends with a newline) or NO-NEWLINE (it does not), for example EOF NEWLINE", false)
	}
}

func (h *rawHeader) lexLineOp(rest string) {
	s := trimBlanksLeft(rest)
	if s == "" {
		h.note(h.verb+" needs a locator: N.=M (lines N to M), N* (a block), <N, >N or >$ (a gap)", false)
		return
	}
	if len(s) != len(rest)-1 || rest[0] != ' ' {
		h.note("write exactly one space between "+h.verb+" and its locator", true)
	}
	loc, used := lexLocator(s)
	if used == 0 {
		h.note(h.verb+" needs a locator: N.=M (lines N to M), N* (a block), <N, >N or >$ (a gap)", false)
		return
	}
	h.loc, h.locOK = loc, true
	h.checkLocator()

	t := s[used:]
	afterLoc := trimBlanksLeft(t)
	spaceBefore := len(afterLoc) < len(t)
	t = afterLoc
	if strings.HasPrefix(t, ":") && spaceBefore {
		h.note("write ':' right after the locator, with no space", true)
	}
	if strings.HasPrefix(t, ":") {
		h.colon = true
		t = trimBlanksLeft(t[1:])
	}
	if strings.HasPrefix(t, "@") {
		m := 1
		for m < len(t) && isRegisterByte(t[m]) {
			m++
		}
		h.reg, h.hasReg = t[1:m], true
		switch {
		case h.reg == "" || len(h.reg) > 32 || (m < len(t) && t[m] != ':' && t[m] != ' ' && t[m] != '\t'):
			h.note("a register is @ followed by 1 to 32 letters, digits, '_' or '-', for example @moved", false)
			return
		case h.colon:
			h.note("a register goes after the locator and before nothing else", true)
		case !spaceBefore:
			h.note("write one space between the locator and @"+h.reg, true)
		}
		t = trimBlanksLeft(t[m:])
		if strings.HasPrefix(t, ":") {
			h.colon = true
			t = trimBlanksLeft(t[1:])
		}
	}
	if t != "" {
		if h.colon && !h.hasReg && h.verb == "PUT" {
			h.note("nothing may follow the ':'; body rows go on the lines below, each starting with '+' (here +"+t+")", true)
		} else {
			h.note("unexpected "+strconv.Quote(t)+" after the locator", true)
		}
	}
	switch {
	case h.verb == "PUT" && h.hasReg && h.colon:
		h.colon = false
		h.note("a register paste never takes ':', which promises body rows; drop the ':' to paste @"+h.reg+", or drop @"+h.reg+" and write +TEXT rows", true)
	case h.verb == "CUT" && h.colon:
		h.colon = false
		h.note("CUT deletes and takes no body rows, so its header has no ':'", true)
	case h.verb == "CUT" && h.loc.sign != 0:
		h.note("CUT removes lines, so it takes a range (CUT N.=M) or a block (CUT N*), not a gap", false)
	}
}

// checkLocator notes the first problem of a lexed locator.
func (h *rawHeader) checkLocator() {
	l := h.loc
	switch {
	case l.tooLarge:
		h.note("a line number is far beyond any file; re-read the file for its line numbers", false)
	case l.sign == 0 && (l.dollar || l.bDollar):
		h.note("$ only appears as >$ (end of file); name the last line by its number", false)
	case l.a == 0 && !l.dollar && !(l.hasB && l.b == 0):
		h.note("line numbers start at 1, and the top of the file is the gap <1 (PUT <1: inserts there)", true)
	case l.hasB && l.b == 0:
		h.note("line numbers start at 1; N.=M names the first and the last line to change", false)
	case l.sign == '<' && l.dollar:
		h.note("<$ is not a locator: append with PUT >$:, or insert before the last line with PUT <N: using its number", false)
	case l.dollar && l.star:
		h.note(">$ is the end of the file and takes no '*'", false)
	case l.sign == '<' && l.star:
		h.note("<N* is not a locator: a block is inserted before with PUT <N:, after with PUT >N*:", false)
	case l.sign != 0 && l.sep != "":
		h.note("a gap locator names one line: <N is before line N, >N after it", false)
	case l.star && l.sep != "":
		h.note("a block locator is one line number and '*', like 12*", false)
	case l.spaced:
		h.note("a locator has no blanks inside it", true)
	case l.zeroPad:
		h.note("write line numbers without leading zeros", true)
	case l.sep != "" && !l.hasB:
		h.note("a range names its first and last line", true)
	case l.sep != "" && l.sep != ".=":
		h.note("ranges are written N.=M, inclusive, with absolute line numbers", true)
	}
}

// lexLocator reads a locator at the start of s and returns it with the
// number of bytes used; 0 means s does not start with one.
func lexLocator(s string) (rawLoc, int) {
	var l rawLoc
	i := 0
	if i < len(s) && (s[i] == '<' || s[i] == '>') {
		l.sign = s[i]
		i++
		if j := skipBlanks(s, i); j > i {
			l.spaced, i = true, j
		}
	}
	if i < len(s) && s[i] == '$' {
		l.dollar = true
		i++
	} else {
		n, w := l.number(s[i:])
		if w == 0 {
			return l, 0
		}
		l.a = n
		i += w
	}
	if l.sign == 0 && !l.dollar {
		i = l.rangeEnd(s, i)
	}
	if i < len(s) && s[i] == '*' {
		l.star = true
		i++
	}
	return l, i
}

// rangeEnd reads an optional separator and second line number at s[i:].
func (l *rawLoc) rangeEnd(s string, i int) int {
	j := skipBlanks(s, i)
	for _, sep := range rangeSeps {
		if !strings.HasPrefix(s[j:], sep) {
			continue
		}
		l.sep = sep
		k := j + len(sep)
		k2 := skipBlanks(s, k)
		if k2 < len(s) && s[k2] == '$' {
			l.bDollar, l.hasB = true, true
			l.spaced = l.spaced || j > i || k2 > k
			return k2 + 1
		}
		if n, w := l.number(s[k2:]); w > 0 {
			l.b, l.hasB = n, true
			l.spaced = l.spaced || j > i || k2 > k
			return k2 + w
		}
		l.spaced = l.spaced || j > i
		return k
	}
	if j > i {
		if n, w := l.number(s[j:]); w > 0 {
			l.sep, l.b, l.hasB = " ", n, true
			return j + w
		}
	}
	return i
}

// number reads decimal digits; w is how many bytes it used.
func (l *rawLoc) number(s string) (n, w int) {
	for w < len(s) && s[w] >= '0' && s[w] <= '9' {
		w++
	}
	if w == 0 {
		return 0, 0
	}
	if w > 1 && s[0] == '0' {
		l.zeroPad = true
	}
	if w > 12 {
		l.tooLarge = true
		return 1, w
	}
	n, _ = strconv.Atoi(s[:w])
	return n, w
}

// isCanonical reports whether line is exactly suggestion(false), without
// building that string: every header of every call is checked.
func (h *rawHeader) isCanonical(line string) bool {
	switch h.verb {
	case "REM":
		return line == "REM"
	case "EOF":
		return line == h.eof.String()
	}
	op := h.op(false)
	var buf [96]byte
	if string(op.append(buf[:0])) == line {
		return true
	}
	return h.loc.oneLine() && op.OneLineHeader() == line
}

// oneLine reports whether l was written as a bare line number, the
// one-line spelling of the range N.=N.
func (l rawLoc) oneLine() bool {
	return l.sign == 0 && !l.star && !l.dollar && l.sep == "" && !l.hasB
}

// op is the op the header most likely means.
func (h *rawHeader) op(bodyFollows bool) Op {
	op := Op{Kind: OpPut, Loc: h.loc.canonical(), Register: h.reg}
	if h.verb == "CUT" {
		op.Kind = OpCut
	} else {
		op.Colon = h.colon || (bodyFollows && h.reg == "")
	}
	return op
}

// suggestion renders the header its author most likely meant; bodyFollows
// says whether '+' rows come after it.
func (h *rawHeader) suggestion(bodyFollows bool) string {
	switch h.verb {
	case "REM":
		return "REM"
	case "MV":
		return "MV " + formatDest(h.dest)
	case "EOF":
		return h.eof.String()
	}
	return h.op(bodyFollows).String()
}

// canonical is the locator l most likely means.
func (l rawLoc) canonical() Locator {
	switch {
	case l.sign == '>' && l.dollar:
		return Locator{Kind: LocEnd}
	case l.sign == '>' && l.a == 0:
		return Locator{Kind: LocBefore, Start: 1, End: 1}
	case l.sign == '>' && l.star:
		return Locator{Kind: LocAfterBlock, Start: l.a, End: l.a}
	case l.sign == '>':
		return Locator{Kind: LocAfter, Start: l.a, End: l.a}
	case l.sign == '<':
		return Locator{Kind: LocBefore, Start: max(l.a, 1), End: max(l.a, 1)}
	case l.star:
		return Locator{Kind: LocBlock, Start: max(l.a, 1), End: max(l.a, 1)}
	case l.hasB:
		return Locator{Kind: LocRange, Start: max(l.a, 1), End: l.b}
	}
	return Locator{Kind: LocRange, Start: max(l.a, 1), End: max(l.a, 1)}
}

func skipBlanks(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isRegisterByte(c byte) bool {
	return isLetter(c) || c >= '0' && c <= '9' || c == '_' || c == '-'
}
