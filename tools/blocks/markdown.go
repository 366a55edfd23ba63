package blocks

import (
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// heading is a Markdown section heading: an ATX or setext heading at the
// top level of the document (not inside a list or a block quote).
type heading struct {
	row, level int
	start      uint32 // first byte of the heading
}

// collectHeadings lists the section headings in document order. The
// grammar's own section nodes are not used for spans: it opens sections
// for ATX headings only, so a setext heading would not bound one.
func collectHeadings(root *sitter.Node) []heading {
	var out []heading
	var walk func(n *sitter.Node)
	walk = func(n *sitter.Node) {
		eachChild(n, func(c *sitter.Node) bool {
			switch c.Type() {
			case "section":
				walk(c)
			case "atx_heading", "setext_heading":
				if lvl := headingLevel(c); lvl > 0 {
					out = append(out, heading{row: int(c.StartPoint().Row), level: lvl, start: c.StartByte()})
				}
			}
			return true
		})
	}
	walk(root)
	return out
}

// headingLevel reads the level from the ATX marker (atx_h2_marker) or the
// setext underline (setext_h1_underline).
func headingLevel(n *sitter.Node) int {
	for i := 0; i < int(n.ChildCount()); i++ {
		t := n.Child(i).Type()
		for _, prefix := range []string{"atx_h", "setext_h"} {
			if rest, ok := strings.CutPrefix(t, prefix); ok && len(rest) > 1 && rest[0] >= '1' && rest[0] <= '6' {
				return int(rest[0] - '0')
			}
		}
	}
	return 0
}

// section resolves a Markdown heading line: the section runs through
// deeper headings up to the next heading of the same or a higher level
// (edit-contract §8.2), without the blank lines before that heading. ok is
// false when row is not a heading line.
func (r *Resolver) section(row int) (s span, ue *UnresolvedError, ok bool) {
	i := -1
	for k, h := range r.headings {
		if h.row == row {
			i = k
			break
		}
	}
	if i < 0 {
		return span{}, nil, false
	}
	limit, limitRow := uint32(len(r.text)), strings.Count(r.text, "\n")
	for _, h := range r.headings[i+1:] {
		if h.level <= r.headings[i].level {
			limit, limitRow = h.start, h.row
			break
		}
	}
	end := limitRow
	for b := limit; b > r.headings[i].start && isSpace(r.text[b-1]); b-- {
		if r.text[b-1] == '\n' {
			end--
		}
	}
	if end <= row {
		ue := Decline(ErrNoBlock, row+1, "line %d is a heading whose section holds nothing else; a block op needs several lines", row+1)
		return span{}, ue.withRange(row+1, row+1), true
	}
	return span{row, end, nil}, nil, true
}

// isSection reports the grammar's own Markdown section nodes, which the
// generic rules look past: sections are bounded by collectHeadings.
func (r *Resolver) isSection(n *sitter.Node) bool {
	return r.lang.markdown && n.Type() == "section"
}

// sectionAround is the section of the nearest heading above row, which
// holds every line up to the next heading.
func (r *Resolver) sectionAround(row int) (span, bool) {
	for i := len(r.headings) - 1; i >= 0; i-- {
		if h := r.headings[i]; h.row < row {
			s, ue, _ := r.section(h.row)
			return s, ue == nil && s.end >= row
		}
	}
	return span{}, false
}
