package grep

import (
	"bytes"
	"fmt"
	"regexp"
	"regexp/syntax"
)

// Matcher finds the lines of a text that an RE2 pattern matches. Matching
// is per line: a match never spans a newline, ^ and $ hold at line starts
// and ends, \A and \z at the start and end of the line.
//
// It never runs the regexp line by line over a whole file unless it must:
// a run of bytes every match contains (a literal, or bytes of known sets:
// prefilter.go) is found without the regexp and only lines holding
// it are tried; a pattern without one is run over the whole text in
// multi-line mode and each hit is checked against its own line.
type Matcher struct {
	re      *regexp.Regexp // (?m) plus the pattern; applied to a whole text or one line
	pre     *prefilter     // finds the lines that may match; nil if nothing selective is known
	perLine bool           // the pattern asserts \A or \z, which mean the line's ends
}

// errNewline rejects a pattern that spells a newline: it could never match
// within one line.
var errNewline = fmt.Errorf("the pattern contains a newline, but grep matches one line at a time")

// Compile returns the Matcher of pattern, an RE2 expression matched
// within one line, ignoring case when asked. A pattern that spells a
// newline is refused: it could never match.
func Compile(pattern string, ignoreCase bool) (*Matcher, error) {
	flags := "(?m)"
	if ignoreCase {
		flags = "(?mi)"
	}
	src := flags + pattern
	re, err := regexp.Compile(src)
	if err != nil {
		return nil, err
	}
	tree, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return nil, err
	}
	tree = tree.Simplify()
	m := &Matcher{re: re}
	if hasNewlineLiteral(tree) {
		return nil, errNewline
	}
	m.perLine = hasTextAnchor(tree)
	m.pre = newPrefilter(tree)
	return m, nil
}

func hasNewlineLiteral(re *syntax.Regexp) bool {
	if re.Op == syntax.OpLiteral {
		for _, r := range re.Rune {
			if r == '\n' {
				return true
			}
		}
	}
	for _, sub := range re.Sub {
		if hasNewlineLiteral(sub) {
			return true
		}
	}
	return false
}

func hasTextAnchor(re *syntax.Regexp) bool {
	if re.Op == syntax.OpBeginText || re.Op == syntax.OpEndText {
		return true
	}
	for _, sub := range re.Sub {
		if hasTextAnchor(sub) {
			return true
		}
	}
	return false
}

// each calls fn with the 1-based number and the text of every matching
// line of body, in order, until fn returns false. body is normalized text
// (LF endings); a terminal newline does not start another line.
func (m *Matcher) each(body []byte, fn func(n int, line []byte) bool) {
	lc := lineCounter{body: body}
	switch {
	case m.pre != nil:
		for pos := 0; pos < len(body); {
			i := m.pre.index(body, pos)
			if i < 0 {
				return
			}
			start, end := lineAround(body, i)
			if line := body[start:end]; m.re.Match(line) && !fn(lc.number(start), line) {
				return
			}
			pos = end + 1
		}
	case m.perLine:
		for pos := 0; pos < len(body); {
			_, end := lineAround(body, pos)
			if line := body[pos:end]; m.re.Match(line) && !fn(lc.number(pos), line) {
				return
			}
			pos = end + 1
		}
	default:
		for pos := 0; pos < len(body); {
			loc := m.re.FindIndex(body[pos:])
			if loc == nil {
				return
			}
			at := pos + loc[0]
			if at == len(body) && body[at-1] == '\n' {
				return // an empty match after the final newline: no line there
			}
			start, end := lineAround(body, at)
			line := body[start:end]
			// A hit inside its line is a line match: pos is always a line
			// start, so ^ $ and \b mean the same in both views. A hit that
			// runs past the line's end is checked on the line alone.
			if (pos+loc[1] <= end || m.re.Match(line)) && !fn(lc.number(start), line) {
				return
			}
			pos = end + 1
		}
	}
}

// lineAround returns the bounds of the line holding body[at], without its
// newline.
func lineAround(body []byte, at int) (start, end int) {
	start = bytes.LastIndexByte(body[:at], '\n') + 1
	end = bytes.IndexByte(body[at:], '\n')
	if end < 0 {
		return start, len(body)
	}
	return start, at + end
}

// lineCounter turns ascending offsets of line starts into line numbers,
// counting newlines once overall.
type lineCounter struct {
	body []byte
	pos  int // offset counted up to
	n    int // newlines before pos
}

func (c *lineCounter) number(start int) int {
	c.n += bytes.Count(c.body[c.pos:start], []byte{'\n'})
	c.pos = start
	return c.n + 1
}
