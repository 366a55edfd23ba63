package blocks

import (
	"slices"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// span is an inclusive range of 0-based rows and the node it resolved to
// (nil for a Markdown section).
type span struct {
	start, end int
	node       *sitter.Node
}

// resolveRow applies the resolution rules (see the package comment) to
// the 0-based row. withAlt asks for the plain-range alternative on a
// decline; finding it resolves other rows, which never ask for theirs.
func (r *Resolver) resolveRow(row int, withAlt bool) (span, *UnresolvedError) {
	line := row + 1
	lineStart, lineEnd := r.lineBounds(row)
	col := firstNonBlank(r.text[lineStart:lineEnd])
	if col < 0 {
		return span{}, decline(ErrNoBlock, line, "line %d is blank; a block op anchors on the first line of a construct", line)
	}
	at := uint32(lineStart + col)
	if r.lang.markdown {
		if s, ue, ok := r.section(row); ok {
			return s, ue
		}
	}

	leaf := r.descend(at)
	for r.lang.markdown && leaf != nil && leaf.Type() == "block_continuation" {
		// A block quote's "> " or a list item's indentation on a
		// continuation line belongs to the container, not to the line's
		// own construct: anchor after it.
		rest := firstNonBlank(r.text[leaf.EndByte():lineEnd])
		if rest < 0 {
			return span{}, decline(ErrNoBlock, line, "line %d holds only a continuation marker; a block op anchors on the first line of a construct", line)
		}
		at = leaf.EndByte() + uint32(rest)
		leaf = r.descend(at)
	}
	if leaf == nil {
		return span{}, decline(ErrNoBlock, line, "line %d holds no syntax node of its own", line)
	}
	if r.startByte(leaf) < at {
		// The anchor is inside a token that began earlier: a multi-line
		// string, comment, heredoc or raw text.
		if isComment(leaf) {
			return span{}, r.commentDecline(line, leaf, withAlt)
		}
		ue := decline(ErrNoBlock, line, "line %d is inside the %s that opens at line %d; it opens no block of its own",
			line, leaf.Type(), r.startRow(leaf)+1)
		return span{}, r.enclosing(ue, leaf, row, withAlt)
	}

	// Climb from the leaf to the outermost ancestor that opens on this row.
	cur, named, attached := leaf, (*sitter.Node)(nil), (*sitter.Node)(nil)
	for {
		if isComment(cur) {
			return span{}, r.commentDecline(line, cur, withAlt)
		}
		if cur.IsNamed() {
			named = cur
		}
		if attached == nil && r.lang.isAttached(cur) {
			attached = cur
		}
		p := cur.Parent()
		if p == nil || p.Equal(r.root) || slices.Contains(r.lang.lists, p.Type()) {
			break
		}
		if r.startRow(p) != row && !r.orphans(p, cur) {
			break
		}
		cur = p
	}

	if named == nil {
		return span{}, r.noNamedDecline(line, row, cur, withAlt)
	}
	if attached != nil && !r.firstOfRun(attached) {
		prev := r.prevAttached(attached)
		ue := decline(ErrNoBlock, line,
			"line %d: this %s is not the first of the run that starts at line %d; anchor line %d for the declaration with everything attached to it, or the declaration's own line for the declaration alone",
			line, attached.Type(), r.startRow(prev)+1, r.startRow(prev)+1)
		return span{}, ue
	}
	last := named
	if r.lang.isAttached(named) {
		// Attributes and decorators placed beside their item (Rust, class
		// members in TypeScript): the first of them carries the item.
		decl := r.declarationAfter(named)
		if decl == nil {
			return span{}, decline(ErrNoBlock, line, "line %d is a %s with no declaration after it", line, named.Type())
		}
		last = decl
	}
	end := r.lastRow(last)
	if end <= row {
		return span{}, r.singleLineDecline(line, row, cur, named, withAlt)
	}
	return span{row, end, named}, nil
}

// descend returns the smallest node whose bytes contain at, or nil when
// only the root does. It walks with a cursor: indexing children one by one
// costs time linear in the index, which is quadratic over a wide node.
func (r *Resolver) descend(at uint32) *sitter.Node {
	c := sitter.NewTreeCursor(r.root)
	defer c.Close()
descent:
	for c.GoToFirstChild() {
		for c.CurrentNode().EndByte() <= at {
			if !c.GoToNextSibling() {
				c.GoToParent()
				break descent
			}
		}
		if c.CurrentNode().StartByte() > at {
			// at falls in the space before this child.
			c.GoToParent()
			break
		}
	}
	n := c.CurrentNode()
	if n.Equal(r.root) {
		return nil
	}
	return n
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

// orphans reports whether climbing from child into p keeps the block
// opening at the anchor although p starts earlier: everything in p before
// child is attached nodes (and comments), and child is not one of them.
// That is the declaration line of a decorated class or an attributed item
// whose grammar puts the decorators inside the item; the decorators are
// left out of the span (edit-contract §8.2, "anchoring the declaration
// line orphans them").
func (r *Resolver) orphans(p, child *sitter.Node) bool {
	if len(r.lang.attached) == 0 || r.lang.isAttached(child) {
		return false
	}
	seen, ok := false, false
	eachChild(p, func(c *sitter.Node) bool {
		if c.StartByte() >= child.StartByte() {
			ok = seen && c.Equal(child)
			return false
		}
		switch {
		case r.lang.isAttached(c):
			seen = true
			return true
		case isComment(c):
			return true
		}
		return false
	})
	return ok
}

// firstOfRun reports whether no attached node precedes n among its
// siblings (comments between them do not break a run).
func (r *Resolver) firstOfRun(n *sitter.Node) bool { return r.prevAttached(n) == nil }

// prevAttached returns the attached node right before n in its run, or nil.
func (r *Resolver) prevAttached(n *sitter.Node) *sitter.Node {
	for p := n.PrevNamedSibling(); p != nil; p = p.PrevNamedSibling() {
		if r.lang.isAttached(p) {
			return p
		}
		if !isComment(p) {
			return nil
		}
	}
	return nil
}

// declarationAfter returns the first sibling after n that is neither
// attached nor a comment: the item a run of attributes belongs to.
func (r *Resolver) declarationAfter(n *sitter.Node) *sitter.Node {
	for s := n.NextNamedSibling(); s != nil; s = s.NextNamedSibling() {
		if !r.lang.isAttached(s) && !isComment(s) {
			return s
		}
	}
	return nil
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

func (l *language) isAttached(n *sitter.Node) bool {
	return len(l.attached) > 0 && n.IsNamed() && slices.Contains(l.attached, n.Type())
}

// closers are named node types that close a construct on their own line.
// Anonymous closing tokens (}, ), ], fi, done, esac) need no list: an
// anonymous last child is a delimiter.
var closers = []string{
	"end_tag", "erroneous_end_tag", "jsx_closing_element", "string_end", "heredoc_end",
	"fenced_code_block_delimiter", "setext_h1_underline", "setext_h2_underline",
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
// start: its leading whitespace is content.
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
	first := n
	for first.ChildCount() > 0 {
		first = first.Child(0)
	}
	b, row := n.StartByte(), int(n.StartPoint().Row)
	if first.IsNamed() || first.StartByte() != b {
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
