package blocks

import (
	"slices"

	sitter "github.com/smacker/go-tree-sitter"
)

// The declines below explain a line that opens no block and, for the
// alternative, name the plain range of the construct the line belongs to.

// maxAlternativeTries bounds how many enclosing constructs enclosing
// tries to resolve. The alternative is a courtesy; on a pathological file
// it must not cost more than a few resolutions.
const maxAlternativeTries = 16

// commentDecline: comments are never blocks. A doc comment is its own node
// (edit-contract §8.2); letting a block op on it reach the declaration it
// describes would make "the block at this line" mean two things, and the
// comment alone is exactly its own lines, which a plain range names.
func (r *Resolver) commentDecline(line int, c *sitter.Node, withAlt bool) *UnresolvedError {
	ue := Decline(ErrNoBlock, line,
		"line %d is a comment, and comments are never blocks: anchor the first line of the declaration it describes, or name the comment's lines",
		line)
	if withAlt {
		ue.withRange(r.startRow(c)+1, r.endRow(c)+1)
	}
	return ue
}

// noNamedDecline explains a line whose first token belongs to a construct
// that opened earlier: a closing delimiter or a continuation line. p[cur]
// is the outermost node the climb reached.
func (r *Resolver) noNamedDecline(line, row int, p path, cur int, withAlt bool) *UnresolvedError {
	if cur-1 == 0 {
		return Decline(ErrNoBlock, line, "line %d opens no multi-line construct", line)
	}
	parent := p[cur-1]
	if r.closes(parent, p[cur], row) {
		return r.closerDecline(line, row, p, cur-1, withAlt)
	}
	ue := Decline(ErrNoBlock, line, "line %d continues the %s that opens at line %d; it opens no block of its own",
		line, parent.Type(), r.startRow(parent)+1)
	return r.enclosing(ue, p, cur-1, row, withAlt)
}

// singleLineDecline explains a line whose construct, p[named], ends on the
// same line.
func (r *Resolver) singleLineDecline(line, row int, p path, cur, named int, withAlt bool) *UnresolvedError {
	up := cur - 1
	if up > 0 && r.closes(p[up], p[cur], row) {
		return r.closerDecline(line, row, p, up, withAlt)
	}
	// The construct's last line: the line ends something that opened
	// earlier (a Python body's last statement, a YAML mapping's last
	// pair). Lists are looked through: they hold items, not constructs.
	for up > 0 && slices.Contains(r.lang.lists, p[up].Type()) {
		up--
	}
	if up > 0 && !r.isSection(p[up]) && r.startRow(p[up]) < row && r.endRow(p[up]) == row {
		ue := Decline(ErrNoBlock, line, "line %d is the last line of the %s that opens at line %d, not the opening line of a block",
			line, p[up].Type(), r.startRow(p[up])+1)
		return r.enclosing(ue, p, up, row, withAlt)
	}
	ue := Decline(ErrNoBlock, line, "line %d holds a single-line %s; a block op needs a construct that opens here and spans several lines",
		line, p[named].Type())
	if withAlt {
		ue.withRange(line, line)
	}
	return ue
}

// closerDecline: p[closed] is the construct the line closes.
func (r *Resolver) closerDecline(line, row int, p path, closed int, withAlt bool) *UnresolvedError {
	ue := Decline(ErrNoBlock, line, "line %d is the closing line of the %s that opens at line %d; a block op anchors on a construct's first line",
		line, p[closed].Type(), r.startRow(p[closed])+1)
	return r.enclosing(ue, p, closed, row, withAlt)
}

// closes reports whether x is the closing delimiter of p on row: p opened
// earlier and ends on row, and x, its last significant child, is a
// delimiter token or a closing tag.
func (r *Resolver) closes(p, x *sitter.Node, row int) bool {
	if r.startRow(p) >= row || r.endRow(p) != row {
		return false
	}
	last := r.lastContentChild(p)
	if last == nil || !last.Equal(x) {
		return false
	}
	return !x.IsNamed() || slices.Contains(closers, x.Type())
}

// enclosing names, as the alternative, the smallest construct around row
// that resolves as a block from an earlier line, searching up from
// p[from]: the function whose closing brace the anchor was, the statement
// a continuation line belongs to.
func (r *Resolver) enclosing(ue *UnresolvedError, p path, from, row int, withAlt bool) *UnresolvedError {
	if !withAlt {
		return ue
	}
	tries, tried := 0, -1
	for j := from; j > 0 && tries < maxAlternativeTries && !r.isSection(p[j]); j-- {
		s := r.startRow(p[j])
		if s >= row || s == tried {
			continue
		}
		tries, tried = tries+1, s
		if sp, err := r.resolveRow(s, false); err == nil && sp.end >= row {
			return ue.withRange(sp.start+1, sp.end+1)
		}
	}
	if sp, ok := r.sectionAround(row); ok {
		return ue.withRange(sp.start+1, sp.end+1)
	}
	return ue
}
