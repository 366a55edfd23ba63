// Package syntax is what the tools and the grammars say to each other:
// the answers of a parse of a file's text, as plain values both sides
// use (the declarations of an outline, Decl; the error regions a change
// added, ErrorRegion, asked for by a Change and answered by Found), and
// the two kinds of state a parse leaves for an edit call (a block
// resolver, Resolver; a whole-text check, Checker). tools declares the
// one interface it parses through (tools.Parser) in these terms;
// tools/blocks (the grammars, in-process) and tools/parsepool (the
// daemon's parse worker processes) answer in them. It holds no logic,
// and imports nothing of hostd but workspace's map of kept lines, so the
// tools stay free of the cgo grammars.
package syntax

import "github.com/hostd-dev/hostd/workspace"

// Decl is one row of a file's outline: a declaration, the line that names
// it and the lines it spans.
type Decl struct {
	// Line is the declaration's own first line (1-based): the line of its
	// keyword or name, after any decorators or attributes attached to it.
	Line int
	// Start and End are the inclusive lines of the whole declaration. Start
	// is the first attached decorator or attribute when there are any
	// (the span a block op anchored there covers, edit-contract §8.2),
	// otherwise Line. End is the last line of its last significant token,
	// as block resolution ends a block (trailing comments are not in it).
	Start, End int
	// Depth is 0 for a top-level declaration, 1 for a member of one, and
	// so on; for Markdown, the heading level minus one.
	Depth int
}

// ErrorRegion is one place where a parse found a syntax error: the lines
// (1-based, inclusive) an ERROR node covers, or the line where a MISSING
// node stands (a token the parser had to assume, such as a closing brace
// or a semicolon), which Missing then names.
type ErrorRegion struct {
	Start, End int
	// Missing is the token the parser assumed ("}", ";"), when every node
	// of the region is a MISSING one; "" for text the grammar could not
	// place.
	Missing string
	// Unsure: the grammar finds errors in valid code too often to call
	// this one the text's (blocks' trust table); set on the regions a
	// change added only.
	Unsure bool
}

// Change is one change whose added syntax errors are asked for
// (edit-contract §5.6): Before (HadBefore false: the file is new, or was
// not text, so every error of After is added) became After, with Copies
// the lines the change left as they were. Known are error regions in
// Before's numbers that count as Before's own: those of the version a
// session's chain of changes started from.
type Change struct {
	Path, Before string
	HadBefore    bool
	After        string
	Copies       []workspace.Copy
	Known        []ErrorRegion
}

// Found is the answer to a Change: Added, the error regions of After that
// Before's (and Known) do not explain, in After's numbers; Old, Before's
// own regions, in its numbers. Why says why Added's Unsure regions are
// unsure: the measurement of the file's grammar ("22 of 32 valid files
// measured").
type Found struct {
	Added, Old []ErrorRegion
	Why        string
}

// Resolver resolves the block opening at a 1-based line of one text
// (edit-contract §8.2): its inclusive span, or a decline. Close frees
// what it holds (a tree, a worker's handle).
type Resolver interface {
	Resolve(line int) (start, end int, err error)
	Close()
}

// Checker says whether a whole candidate text of one file parses
// cleanly, for boundary repair (edit-contract §8.4): supported false
// when nothing is known (no grammar, over a bound, out of parse time, a
// worker that ended).
type Checker interface {
	Check(text string) (supported, clean bool)
}
