package tools

import (
	"fmt"
	"strings"

	"github.com/hostd-dev/hostd/session"
)

// lineShow shows the lines a result names (the lines of a change's new
// syntax errors, of its new language-server errors) under its message,
// as "N:text": each line once, clipped to maxChars, at most limit lines
// in all. The lines shown in full are shown, the set that becomes seen.
type lineShow struct {
	lines           []string
	maxChars, limit int
	count           int
	shown           session.LineSet
}

func newLineShow(lines []string, maxChars, limit int) *lineShow {
	return &lineShow{lines: lines, maxChars: maxChars, limit: limit, shown: session.Empty()}
}

// line writes line l to b, unless it is not a line of the text, was
// shown already, or the limit is reached.
func (s *lineShow) line(b *strings.Builder, l int) {
	if l < 1 || l > len(s.lines) || s.shown.Contains(l) || s.count == s.limit {
		return
	}
	text, clipped := clipRunes(s.lines[l-1], s.maxChars)
	fmt.Fprintf(b, "\n%d:%s", l, text)
	if !clipped {
		s.shown = s.shown.Add(l, l)
	}
	s.count++
}
