package blocks

import (
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// Node helpers. Positions are computed from the text, not only from the
// tree, because grammars disagree on where whitespace belongs.

// descend returns the path from the root to the smallest node whose bytes
// contain at; just the root when no child does. It walks with a cursor:
// indexing children one by one costs time linear in the index, which is
// quadratic over a wide node.
func (r *Resolver) descend(at uint32) path {
	c := sitter.NewTreeCursor(r.root)
	defer c.Close()
	p := path{r.root}
	for c.GoToFirstChild() {
		for c.CurrentNode().EndByte() <= at {
			if !c.GoToNextSibling() {
				return p
			}
		}
		n := c.CurrentNode()
		if n.StartByte() > at {
			// at falls in the space before this child.
			return p
		}
		p = append(p, n)
	}
	return p
}

// eachChild calls f for every child of n in order until f returns false,
// with a cursor for the same reason as descend.
func eachChild(n *sitter.Node, f func(c *sitter.Node) bool) {
	c := sitter.NewTreeCursor(n)
	defer c.Close()
	for ok := c.GoToFirstChild(); ok; ok = c.GoToNextSibling() {
		if !f(c.CurrentNode()) {
			return
		}
	}
}

// lastRow is the row of n's last significant byte. Trailing comments are
// not part of a block ("standalone line comments are never swept in"), nor
// is trailing whitespace, which some grammars keep inside a node (Markdown
// blocks end at the start of the next line).
func (r *Resolver) lastRow(n *sitter.Node) int {
	for {
		c := r.lastContentChild(n)
		if c == nil {
			return r.endRow(n)
		}
		n = c
	}
}

// lastContentChild returns n's last child that is not a comment and not
// blank, provided nothing but whitespace and comments follows it inside
// n. Otherwise (a leaf, or a node whose own text runs past its children,
// such as Markdown inline text) it returns nil.
func (r *Resolver) lastContentChild(n *sitter.Node) *sitter.Node {
	tail := n.EndByte()
	for i := int(n.ChildCount()) - 1; i >= 0; i-- {
		c := n.Child(i)
		if !r.blank(c.EndByte(), tail) {
			return nil
		}
		tail = c.StartByte()
		if isComment(c) || r.blank(c.StartByte(), c.EndByte()) {
			continue
		}
		return c
	}
	return nil
}

// isComment reports comment nodes of every supported grammar: "comment",
// "line_comment", "block_comment", "doc_comment".
func isComment(n *sitter.Node) bool {
	t := n.Type()
	return t == "comment" || strings.HasSuffix(t, "_comment")
}

// closers are named node types that close a construct on their own line.
// Anonymous closing tokens (}, ), ], fi, done, esac) need no list: an
// anonymous last child is a delimiter.
var closers = []string{
	"end_tag", "erroneous_end_tag", "jsx_closing_element", "string_end", "heredoc_end",
	"fenced_code_block_delimiter", "setext_h1_underline", "setext_h2_underline",
	"block_end", "object_end", "tuple_end", // hcl
	"function_end", "if_end", "do_end", "for_end", "while_end", // lua
}

func firstNonBlank(s string) int {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\r', '\f', '\v':
		default:
			return i
		}
	}
	return -1
}

func isSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\f' || b == '\v'
}

// blank reports whether text[from:to) is all whitespace.
func (r *Resolver) blank(from, to uint32) bool {
	for i := from; i < to; i++ {
		if !isSpace(r.text[i]) {
			return false
		}
	}
	return true
}

// startByte is where n's content begins. Some grammars let an anonymous
// token absorb the whitespace before it (JSX's "<" can start at the end of
// the previous line), so when n begins with such a token its first
// non-space byte counts. A named leaf (string content, raw text) keeps its
// start: its leading whitespace is content, except in a grammar whose
// named keyword tokens absorb the whitespace before them (Lua's
// "function_start", "local", even "identifier").
func (r *Resolver) startByte(n *sitter.Node) uint32 {
	b, _ := r.contentStart(n)
	return b
}

// startRow is the row of startByte(n).
func (r *Resolver) startRow(n *sitter.Node) int {
	_, row := r.contentStart(n)
	return row
}

func (r *Resolver) contentStart(n *sitter.Node) (uint32, int) {
	b, row := n.StartByte(), int(n.StartPoint().Row)
	if b >= n.EndByte() || !isSpace(r.text[b]) {
		// The common case, decided without walking down the tree.
		return b, row
	}
	first := n
	for first.ChildCount() > 0 {
		first = first.Child(0)
	}
	if (first.IsNamed() && !r.lang.spacedLeaves) || first.StartByte() != b {
		return b, row
	}
	for e := first.EndByte(); b < e && isSpace(r.text[b]); b++ {
		if r.text[b] == '\n' {
			row++
		}
	}
	if b == first.EndByte() {
		return n.StartByte(), int(n.StartPoint().Row)
	}
	return b, row
}

// endRow is the row of n's last non-space byte.
func (r *Resolver) endRow(n *sitter.Node) int {
	row := int(n.EndPoint().Row)
	b, e := n.StartByte(), n.EndByte()
	for e > b && isSpace(r.text[e-1]) {
		if r.text[e-1] == '\n' {
			row--
		}
		e--
	}
	if e == b {
		return int(n.StartPoint().Row)
	}
	return row
}
