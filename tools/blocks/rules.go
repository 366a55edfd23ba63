package blocks

import (
	"slices"

	sitter "github.com/smacker/go-tree-sitter"
)

// span is an inclusive range of 0-based rows and the node it resolved to
// (nil for a Markdown section).
type span struct {
	start, end int
	node       *sitter.Node
}

// path is the chain of nodes from the root (path[0]) down to the node at
// the anchor. Resolution walks up it instead of asking nodes for their
// parents: tree-sitter finds a parent by descending from the root, so
// climbing a deeply nested file that way is quadratic.
type path []*sitter.Node

// resolveRow applies the resolution rules (see the package comment) to
// the 0-based row. withAlt asks for the plain-range alternative on a
// decline; finding it resolves other rows, which never ask for theirs.
func (r *Resolver) resolveRow(row int, withAlt bool) (span, *UnresolvedError) {
	line := row + 1
	lineStart, lineEnd := r.lineBounds(row)
	col := firstNonBlank(r.text[lineStart:lineEnd])
	if col < 0 {
		return span{}, Decline(ErrNoBlock, line, "line %d is blank; a block op anchors on the first line of a construct", line)
	}
	at := uint32(lineStart + col)
	if r.lang.markdown {
		if s, ue, ok := r.section(row); ok {
			return s, ue
		}
	}

	p := r.descend(at)
	for r.lang.markdown && len(p) > 1 && p[len(p)-1].Type() == "block_continuation" {
		// A block quote's "> " or a list item's indentation on a
		// continuation line belongs to the container, not to the line's
		// own construct: anchor after it.
		cont := p[len(p)-1]
		rest := firstNonBlank(r.text[cont.EndByte():lineEnd])
		if rest < 0 {
			return span{}, Decline(ErrNoBlock, line, "line %d holds only a continuation marker; a block op anchors on the first line of a construct", line)
		}
		at = cont.EndByte() + uint32(rest)
		p = r.descend(at)
	}
	if len(p) < 2 {
		return span{}, Decline(ErrNoBlock, line, "line %d holds no syntax node of its own", line)
	}
	leaf := p[len(p)-1]
	if r.startByte(leaf) < at {
		// The anchor is inside a token that began earlier: a multi-line
		// string, comment, heredoc or raw text.
		if isComment(leaf) {
			return span{}, r.commentDecline(line, leaf, withAlt)
		}
		ue := Decline(ErrNoBlock, line, "line %d is inside the %s that opens at line %d; it opens no block of its own",
			line, leaf.Type(), r.startRow(leaf)+1)
		return span{}, r.enclosing(ue, p, len(p)-1, row, withAlt)
	}

	cur, named, attached, comment := r.climb(p, row, at)
	if comment != nil {
		return span{}, r.commentDecline(line, comment, withAlt)
	}
	if named < 0 {
		return span{}, r.noNamedDecline(line, row, p, cur, withAlt)
	}
	if attached >= 0 {
		if prev, _ := r.attachedRun(p[attached-1], p[attached]); prev != nil {
			// A later attached node opens the line. When the declaration
			// itself starts on this line after it ("@objc func f() {"
			// under "@discardableResult"), the line is the declaration's
			// own line: resolve from the declaration's first token, which
			// orphans the whole run. Otherwise "from this attached node
			// on" is neither unit.
			decl, ok := r.declarationAfter(p[attached], lineEnd)
			if !ok {
				first := r.startRow(prev) + 1
				return span{}, Decline(ErrNoBlock, line,
					"line %d: this %s is not the first of the run that starts at line %d; anchor line %d for the declaration with everything attached to it, or the declaration's own line for the declaration alone",
					line, p[attached].Type(), first, first)
			}
			p = r.descend(decl)
			cur, named, _, _ = r.climb(p, row, decl)
			if named < 0 {
				return span{}, r.noNamedDecline(line, row, p, cur, withAlt)
			}
		}
	}
	last := p[named]
	if r.lang.isAttached(last) {
		// Attributes and decorators placed beside their item (Rust, class
		// members in TypeScript): the first of them carries the item.
		_, decl := r.attachedRun(p[named-1], last)
		if decl == nil {
			return span{}, Decline(ErrNoBlock, line, "line %d is a %s with no declaration after it", line, last.Type())
		}
		last = decl
	}
	end := r.lastRow(last)
	if end <= row {
		return span{}, r.singleLineDecline(line, row, p, cur, named, withAlt)
	}
	return span{row, end, p[named]}, nil
}

// climb goes from the leaf of p, which starts at the anchor (byte at on
// row), to the outermost ancestor that opens on this row, through
// ancestors that start earlier only where that orphans attached nodes.
// It returns where it stopped (cur), the outermost named node and the
// first attached node on the way (indexes into p, -1 for none), or the
// comment it met: comments are never blocks.
func (r *Resolver) climb(p path, row int, at uint32) (cur, named, attached int, comment *sitter.Node) {
	cur, named, attached = len(p)-1, -1, -1
	for {
		n := p[cur]
		if isComment(n) {
			return cur, named, attached, n
		}
		if n.IsNamed() {
			named = cur
		}
		if attached < 0 && r.lang.isAttached(n) {
			attached = cur
		}
		parent := p[cur-1]
		if cur-1 == 0 || slices.Contains(r.lang.lists, parent.Type()) {
			return cur, named, attached, nil
		}
		if r.startRow(parent) != row && !r.orphans(parent, n, at) {
			return cur, named, attached, nil
		}
		cur--
	}
}

// declarationAfter finds where, on the rest of the line that ends at
// lineEnd, the declaration begins after the attached node n: past n and
// any further attached nodes and comments on the line. ok is false when
// the line ends first.
func (r *Resolver) declarationAfter(n *sitter.Node, lineEnd int) (at uint32, ok bool) {
	pos := int(n.EndByte())
	for pos < lineEnd {
		if isSpace(r.text[pos]) {
			pos++
			continue
		}
		q := r.descend(uint32(pos))
		skip := -1
		for _, m := range q[1:] {
			if r.lang.isAttached(m) || isComment(m) {
				skip = int(m.EndByte())
				break
			}
		}
		if skip < 0 {
			return uint32(pos), true
		}
		pos = max(skip, pos+1)
	}
	return 0, false
}

// orphans reports whether climbing from child into p keeps the block
// opening at the anchor (byte at) although p starts earlier: everything
// in p before the anchor is attached nodes (and comments), at least one
// of them, and child is not one of them. That is the declaration line of
// a decorated class or an attributed item whose grammar puts the
// decorators inside the item; the decorators are left out of the span
// (edit-contract §8.2, "anchoring the declaration line orphans them").
// A wrapper (Java's modifiers) is looked into: its annotations before the
// anchor count, and the keywords from the anchor on are the declaration
// line's own.
func (r *Resolver) orphans(p, child *sitter.Node, at uint32) bool {
	if len(r.lang.attached) == 0 || r.lang.isAttached(child) {
		return false
	}
	seen, ok := r.attachedBefore(p, at)
	return seen && ok
}

// attachedBefore looks at n's children that start before at: ok when
// each is an attached node, a comment or a wrapper whose own children
// before at are such; seen when at least one attached node is among them.
func (r *Resolver) attachedBefore(n *sitter.Node, at uint32) (seen, ok bool) {
	ok = true
	eachChild(n, func(c *sitter.Node) bool {
		if r.startByte(c) >= at {
			return false
		}
		switch {
		case r.lang.isAttached(c):
			seen = true
		case isComment(c):
		case c.IsNamed() && slices.Contains(r.lang.wrappers, c.Type()):
			s, o := r.attachedBefore(c, at)
			seen, ok = seen || s, o
		default:
			ok = false
		}
		return ok
	})
	return seen, ok
}

// attachedRun looks at the siblings of the attached node n inside parent:
// prev is the attached node right before n in its run (nil when n is the
// first; comments do not break a run), decl the first later sibling that
// is neither attached nor a comment, the item the run belongs to. One
// cursor pass: tree-sitter's sibling steps are linear in the sibling
// count, so stepping through a long run of comments would be quadratic.
func (r *Resolver) attachedRun(parent, n *sitter.Node) (prev, decl *sitter.Node) {
	var last *sitter.Node // last named non-comment sibling before n
	after := false
	eachChild(parent, func(c *sitter.Node) bool {
		switch {
		case !after && c.Equal(n):
			after = true
			if last != nil && r.lang.isAttached(last) {
				prev = last
			}
		case !c.IsNamed() || isComment(c):
		case !after:
			last = c
		case !r.lang.isAttached(c):
			decl = c
			return false
		}
		return true
	})
	return prev, decl
}

func (l *Language) isAttached(n *sitter.Node) bool {
	return len(l.attached) > 0 && n.IsNamed() && slices.Contains(l.attached, n.Type())
}
