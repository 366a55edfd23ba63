package hashline

import "strings"

// The row rules of boundary repair: which swallowed rows may be kept at
// all, judged from text alone before any syntax check is spent.

// shape is what a boundary row does structurally.
type shape struct {
	closesFirst bool // its first delimiter closes something: "}", "});", "*/", "</div>"
	opensLast   bool // its last delimiter opens something: "{", "/**", "<div>"
	onlyOpeners bool
	onlyClosers bool
}

// Delimiter tokens, longest first so "/**" is not read as "/*" then "*".
var (
	openTokens  = []string{"/**", "<!--", "/*", "<>", "{", "(", "["}
	closeTokens = []string{"-->", "</>", "*/", "/>", "}", ")", "]"}
	// Words that close a block on their own in the shell grammar.
	closeWords = []string{"done", "esac", "fi"}
)

// boundaryRow reports whether a row is only structure: delimiters
// ({}()[]), comment fences (/*, /**, */, <!--, -->), bare tags (<div>,
// </div>, <>, </>, />), the shell's fi/done/esac, with ';' and ',' between
// them, and at least one opener or closer. A row with anything else on it
// (a name, a keyword, an operator) is code, and code is never kept: the
// model may have meant to change it.
func boundaryRow(row string) (shape, bool) {
	t := strings.TrimSpace(row)
	var kinds []bool // true: opener
	for t != "" {
		switch {
		case t[0] == ' ' || t[0] == '\t' || t[0] == ';' || t[0] == ',':
			t = t[1:]
			continue
		}
		if n, open, ok := delimiter(t); ok {
			kinds = append(kinds, open)
			t = t[n:]
			continue
		}
		return shape{}, false
	}
	if len(kinds) == 0 {
		return shape{}, false
	}
	sh := shape{closesFirst: !kinds[0], opensLast: kinds[len(kinds)-1], onlyOpeners: true, onlyClosers: true}
	for _, open := range kinds {
		sh.onlyOpeners = sh.onlyOpeners && open
		sh.onlyClosers = sh.onlyClosers && !open
	}
	// A row that opens first and closes last ("{}", "()") is balanced: it
	// neither ends nor starts a construct around the body.
	return sh, sh.closesFirst || sh.opensLast
}

// delimiter reads one delimiter token at the start of t.
func delimiter(t string) (n int, open, ok bool) {
	for _, tok := range closeTokens {
		if strings.HasPrefix(t, tok) {
			return len(tok), false, true
		}
	}
	for _, tok := range openTokens {
		if strings.HasPrefix(t, tok) {
			return len(tok), true, true
		}
	}
	if n := tagLen(t); n > 0 {
		return n, t[1] != '/', true
	}
	for _, w := range closeWords {
		if strings.HasPrefix(t, w) && (len(t) == len(w) || !isWordByte(t[len(w)])) {
			return len(w), false, true
		}
	}
	return 0, false, false
}

// tagLen is the length of a bare tag at the start of t, <name> or
// </name>, 0 if there is none. A tag with attributes is code.
func tagLen(t string) int {
	i := 1
	if len(t) > 1 && t[1] == '/' {
		i = 2
	}
	if len(t) <= i || !isLetter(t[i]) {
		return 0
	}
	for i < len(t) && (isWordByte(t[i]) || t[i] == '-' || t[i] == '.' || t[i] == ':') {
		i++
	}
	if i < len(t) && t[i] == '>' && t[0] == '<' {
		return i + 1
	}
	return 0
}

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// indent is a row's leading blanks.
func indent(row string) string {
	return row[:len(row)-len(strings.TrimLeft(row, " \t"))]
}

// deeper reports whether a is indented inside b: b's indentation is a
// proper prefix of a's. Mixed tabs and spaces that do not nest are not
// deeper, and then not equal either, so they keep nothing.
func deeper(a, b string) bool {
	ia, ib := indent(a), indent(b)
	return len(ia) > len(ib) && strings.HasPrefix(ia, ib)
}

func blank(row string) bool { return strings.TrimSpace(row) == "" }

// keepCandidates returns the rows of r's range that pass the row rules
// against its body once restatements are dropped: the first row, kept
// before the body, and the effective-last row (the last non-blank one),
// kept after it. A closer that passes them but whose construct the body
// re-authored (reauthored) is no candidate: it is returned as withheld.
func keepCandidates(lines Text, ir IR, r *replacement) (keeps, withheld []action) {
	last := r.end
	for last >= r.start && blank(lines.Line(last)) {
		last--
	}
	if last < r.start {
		return nil, nil
	}
	// Only a row that is structure can be kept: most ranges start and end
	// on code, and cost no more than these two reads.
	_, firstOK := boundaryRow(lines.Line(r.start))
	_, lastOK := boundaryRow(lines.Line(last))
	if !firstOK && !lastOK {
		return nil, nil
	}
	dropped := map[int]bool{}
	for _, d := range r.drops {
		dropped[d.row] = true
	}
	var body []string
	for i, idx := range r.ins {
		if !dropped[i] && !blank(ir.Edits[idx].Text) {
			body = append(body, ir.Edits[idx].Text)
		}
	}
	if len(body) == 0 {
		return nil, nil
	}
	var out []action
	head, tail := body[0], body[len(body)-1]
	if row := lines.Line(r.start); row != head {
		if sh, ok := boundaryRow(row); ok &&
			(sh.opensLast && deeper(head, row) || sh.onlyClosers && indent(head) == indent(row)) {
			out = append(out, action{kind: keepFirst, src: r.src, line: r.start, text: row})
		}
	}
	if row := lines.Line(last); row != tail {
		if sh, ok := boundaryRow(row); ok &&
			(sh.closesFirst && (deeper(tail, row) || commentClose(row) && indent(tail) == indent(row)) ||
				sh.onlyOpeners && indent(tail) == indent(row)) {
			k := action{kind: keepLast, src: r.src, line: last, text: row}
			if sh.closesFirst && reauthored(lines, r.start, last, body) {
				return out, []action{k}
			}
			out = append(out, k)
		}
	}
	return out, nil
}

// commentClose reports whether a row closes a block comment. The rows of
// a "/** ... */" comment sit at the indentation of its " */", not inside
// it, so a body of comment rows ends at the closer's own depth.
func commentClose(row string) bool {
	t := strings.TrimSpace(row)
	return strings.HasPrefix(t, "*/") || strings.HasPrefix(t, "-->")
}

// linesUp checks a kept row that starts by closing something against the
// candidate's result out: the nearest non-blank line above it that is not
// indented deeper must have exactly its indentation and end by opening
// something, so the closer lines up with the opener it closes. A comment
// closer "*/" instead needs the comment's opening "/*" above it, at its
// indentation or one space less (" */" under "/**"). Rows that only open
// pass.
func linesUp(out []string, ir IR, k action) bool {
	sh, _ := boundaryRow(k.text)
	if !sh.closesFirst {
		return true
	}
	at := resultIndex(ir, k.line)
	if at < 0 || at >= len(out) || out[at] != k.text {
		return false // the kept line is not where the IR says: keep nothing
	}
	own := indent(k.text)
	if commentClose(k.text) {
		opener := "/*"
		if strings.HasPrefix(strings.TrimSpace(k.text), "-->") {
			opener = "<!--"
		}
		for i := at - 1; i >= 0; i-- {
			if strings.HasPrefix(strings.TrimSpace(out[i]), opener) {
				ind := indent(out[i])
				return ind == own || ind+" " == own
			}
		}
		return false
	}
	for i := at - 1; i >= 0; i-- {
		if blank(out[i]) || deeper(out[i], k.text) {
			continue
		}
		return indent(out[i]) == own && endsOpen(out[i])
	}
	return false
}

// resultIndex is the 0-based index in the applied result of original line
// line, which the IR keeps: the surviving lines before it plus every row
// inserted at or before its gap.
func resultIndex(ir IR, line int) int {
	dels := map[int]bool{}
	ins := 0
	for _, e := range ir.Edits {
		switch e.Kind {
		case KindDelete:
			if e.Line < line {
				dels[e.Line] = true
			}
		case KindInsert:
			if gapOf(e.Cursor, ir.NumLines) <= line {
				ins++
			}
		}
	}
	return line - 1 - len(dels) + ins
}

// endsOpen reports whether a line ends by opening a construct: a bracket,
// a comment fence, an opening tag (<div ...>, <>), or the shell's then,
// do, else, or the in of a case.
func endsOpen(line string) bool {
	t := strings.TrimRight(line, " \t")
	for _, s := range []string{"{", "(", "[", "/*", "/**", "<!--", "<>"} {
		if strings.HasSuffix(t, s) {
			return true
		}
	}
	if strings.HasSuffix(t, ">") && !strings.HasSuffix(t, "/>") {
		if i := strings.LastIndexByte(t, '<'); i >= 0 && i+1 < len(t) && isLetter(t[i+1]) && !strings.ContainsAny(t[i+1:len(t)-1], "<>") {
			return true
		}
	}
	f := strings.Fields(t)
	if len(f) == 0 {
		return false
	}
	switch last := strings.TrimLeft(f[len(f)-1], ";"); last {
	case "then", "do", "else":
		return true
	case "in":
		return f[0] == "case"
	}
	return false
}
