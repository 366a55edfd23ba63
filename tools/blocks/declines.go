package blocks

import (
	"slices"

	sitter "github.com/smacker/go-tree-sitter"
)

// The declines below explain a line that opens no block and, for the
// alternative, name the plain range of the construct the line belongs to.

// commentDecline: comments are never blocks. A doc comment is its own node
// (edit-contract §8.2); letting a block op on it reach the declaration it
// describes would make "the block at this line" mean two things, and the
// comment alone is exactly its own lines, which a plain range names.
func (r *Resolver) commentDecline(line int, c *sitter.Node, withAlt bool) *UnresolvedError {
	ue := decline(ErrNoBlock, line,
		"line %d is a comment, and comments are never blocks: anchor the first line of the declaration it describes, or name the comment's lines",
		line)
	if withAlt {
		ue.withRange(r.startRow(c)+1, r.endRow(c)+1)
	}
	return ue
}

// noNamedDecline explains a line whose first token belongs to a construct
// that opened earlier: a closing delimiter or a continuation line.
func (r *Resolver) noNamedDecline(line, row int, cur *sitter.Node, withAlt bool) *UnresolvedError {
	p := cur.Parent()
	if p == nil || p.Equal(r.root) {
		return decline(ErrNoBlock, line, "line %d opens no multi-line construct", line)
	}
	if r.closes(p, cur, row) {
		return r.closerDecline(line, row, p, withAlt)
	}
	ue := decline(ErrNoBlock, line, "line %d continues the %s that opens at line %d; it opens no block of its own",
		line, p.Type(), r.startRow(p)+1)
	return r.enclosing(ue, p, row, withAlt)
}

// singleLineDecline explains a line whose construct ends on the same line.
func (r *Resolver) singleLineDecline(line, row int, cur, named *sitter.Node, withAlt bool) *UnresolvedError {
	p := cur.Parent()
	if p != nil && r.closes(p, cur, row) {
		return r.closerDecline(line, row, p, withAlt)
	}
	// The construct's last line: the line ends something that opened
	// earlier (a Python body's last statement, a YAML mapping's last
	// pair). Lists are looked through: they hold items, not constructs.
	for p != nil && !p.Equal(r.root) && slices.Contains(r.lang.lists, p.Type()) {
		p = p.Parent()
	}
	if p != nil && !p.Equal(r.root) && !r.isSection(p) && r.startRow(p) < row && r.endRow(p) == row {
		ue := decline(ErrNoBlock, line, "line %d is the last line of the %s that opens at line %d, not the opening line of a block",
			line, p.Type(), r.startRow(p)+1)
		return r.enclosing(ue, p, row, withAlt)
	}
	ue := decline(ErrNoBlock, line, "line %d holds a single-line %s; a block op needs a construct that opens here and spans several lines",
		line, named.Type())
	if withAlt {
		ue.withRange(line, line)
	}
	return ue
}

func (r *Resolver) closerDecline(line, row int, p *sitter.Node, withAlt bool) *UnresolvedError {
	ue := decline(ErrNoBlock, line, "line %d is the closing line of the %s that opens at line %d; a block op anchors on a construct's first line",
		line, p.Type(), r.startRow(p)+1)
	return r.enclosing(ue, p, row, withAlt)
}

// closes reports whether x is the closing delimiter of p on row: p opened
// earlier and ends on row, and x, its last significant child, is a
// delimiter token or a closing tag.
func (r *Resolver) closes(p, x *sitter.Node, row int) bool {
	if p.Equal(r.root) || r.startRow(p) >= row || r.endRow(p) != row {
		return false
	}
	last := r.lastContentChild(p)
	if last == nil || !last.Equal(x) {
		return false
	}
	return !x.IsNamed() || slices.Contains(closers, x.Type())
}

// enclosing names, as the alternative, the smallest construct around row
// that resolves as a block from an earlier line: the function whose
// closing brace the anchor was, the statement a continuation line belongs
// to.
func (r *Resolver) enclosing(ue *UnresolvedError, from *sitter.Node, row int, withAlt bool) *UnresolvedError {
	if !withAlt {
		return ue
	}
	for q := from; q != nil && !q.Equal(r.root) && !r.isSection(q); q = q.Parent() {
		s := r.startRow(q)
		if s >= row {
			continue
		}
		if sp, err := r.resolveRow(s, false); err == nil && sp.end >= row {
			return ue.withRange(sp.start+1, sp.end+1)
		}
	}
	if sp, ok := r.sectionAround(row); ok {
		return ue.withRange(sp.start+1, sp.end+1)
	}
	return ue
}
