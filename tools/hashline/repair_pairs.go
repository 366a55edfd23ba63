package hashline

import "strings"

// The pairing rule of retention: a closer the range swallowed is kept only
// if the body did not re-author what it closed. Brackets are read from
// text alone, before any syntax check is spent.

// bracket is one bracket of a row: its byte and whether it opens.
type bracket struct {
	b    byte
	open bool
}

// rowBrackets returns the brackets ({}, (), []) of a row in order,
// skipping string literals ('...', "...", `...`, with backslash escapes)
// and a "//" comment. It is a reading for evidence, not a lexer: a
// template's ${...} and a language's other comment forms are read as
// they come, and a misreading can only withhold a retention (see
// reauthored), never cause one.
func rowBrackets(row string) []bracket {
	var out []bracket
	var quote byte
	for i := 0; i < len(row); i++ {
		c := row[i]
		if quote != 0 {
			switch c {
			case '\\':
				i++
			case quote:
				quote = 0
			}
			continue
		}
		switch c {
		case '\'', '"', '`':
			quote = c
		case '/':
			if i+1 < len(row) && row[i+1] == '/' {
				return out
			}
		case '{', '(', '[':
			out = append(out, bracket{c, true})
		case '}', ')', ']':
			out = append(out, bracket{c, false})
		}
	}
	return out
}

// partner finds, in the original lines, the opener that the first bracket
// of the closer on line at closes, scanning up through lines from..at-1
// only. It returns that opener's line and its index in rowBrackets of the
// line, or 0 when the row starts with no bracket closer or what it closes
// opened above from.
func partner(lines Text, from, at int) (line, idx int) {
	own := rowBrackets(lines.Line(at))
	if len(own) == 0 || own[0].open {
		return 0, 0
	}
	depth := 1
	for l := at - 1; l >= from; l-- {
		bs := rowBrackets(lines.Line(l))
		for i := len(bs) - 1; i >= 0; i-- {
			if !bs[i].open {
				depth++
				continue
			}
			if depth--; depth == 0 {
				return l, i
			}
		}
	}
	return 0, 0
}

// reauthored reports whether the body already holds the construct that
// the closer on original line at ends. That closer's opener (line open,
// inside the range from..at-1) appears in the body as a row with the same
// text apart from indentation, and the body itself closes that bracket
// further down. Then the body moved the whole construct, closer and all
// (say, one level deeper inside a new "try {"), and what stays open is
// something the body newly opened, which a later edit may close: keeping
// the original closer would close the new construct early, and a guess
// that is usually right is what repair must not make.
func reauthored(lines Text, from, at int, body []string) bool {
	open, idx := partner(lines, from, at)
	if open == 0 {
		return false
	}
	want := strings.TrimSpace(lines.Line(open))
	for j, row := range body {
		if strings.TrimSpace(row) != want {
			continue
		}
		depth := 1
		rest := rowBrackets(row)[idx+1:]
		for k := j; ; {
			for _, b := range rest {
				if b.open {
					depth++
				} else {
					depth--
				}
				if depth == 0 {
					return true
				}
			}
			if k++; k == len(body) {
				break
			}
			rest = rowBrackets(body[k])
		}
	}
	return false
}
