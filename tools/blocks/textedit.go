package blocks

import (
	"strings"
	"unicode/utf8"

	sitter "github.com/smacker/go-tree-sitter"
)

// An incremental parse needs the edit that turned the old text into the
// new one, in bytes and in points (row, byte column: tree-sitter counts
// rows at "\n" only, so a lone "\r" is an ordinary byte and a BOM is three
// bytes of the first row). editBetween computes it from the two texts
// alone: the bytes between their common prefix and their common suffix.
// That one region covers every change an edit made, however many ops it
// had, so the reparse is exact; ops far apart only make the region, and
// the reparse, larger. Comparing the texts costs a few memory compares,
// far below a parse, and needs nothing from the edit language.
//
// The Go binding hands tree-sitter the old end point as the new one
// (EditInput's conversion to C). That does not make the result wrong:
// tree-sitter reuses no node the edit touches, it lexes those again and
// takes their positions from the text, and a reused node keeps its own
// relative size; TestIncrementalParseEqualsFullParse checks every node's
// points after edits that add and remove lines.

// compareChunk is how many bytes the prefix and suffix scans compare at
// once before looking at single bytes.
const compareChunk = 256

// editBetween returns the edit that turns old into new. same is true when
// the texts are equal (no edit).
func editBetween(old, new string) (edit sitter.EditInput, same bool) {
	if old == new {
		return sitter.EditInput{}, true
	}
	limit := min(len(old), len(new))
	p := commonPrefix(old, new, limit)
	// Start and end on character boundaries of both texts, so no point
	// splits a UTF-8 sequence.
	for p > 0 && (!runeStart(old, p) || !runeStart(new, p)) {
		p--
	}
	s := commonSuffix(old, new, limit-p)
	for s > 0 && (!runeStart(old, len(old)-s) || !runeStart(new, len(new)-s)) {
		s--
	}
	oldEnd, newEnd := len(old)-s, len(new)-s
	start := pointAt(old, 0, sitter.Point{}, p)
	return sitter.EditInput{
		StartIndex:  uint32(p),
		OldEndIndex: uint32(oldEnd),
		NewEndIndex: uint32(newEnd),
		StartPoint:  start,
		OldEndPoint: pointAt(old, p, start, oldEnd),
		NewEndPoint: pointAt(new, p, start, newEnd),
	}, false
}

// runeStart reports whether offset i of s starts a character (or is the
// end of s).
func runeStart(s string, i int) bool {
	return i >= len(s) || utf8.RuneStart(s[i])
}

// commonPrefix is the length of the longest common prefix of a and b, at
// most limit.
func commonPrefix(a, b string, limit int) int {
	i := 0
	for i+compareChunk <= limit && a[i:i+compareChunk] == b[i:i+compareChunk] {
		i += compareChunk
	}
	for i < limit && a[i] == b[i] {
		i++
	}
	return i
}

// commonSuffix is the length of the longest common suffix of a and b, at
// most limit.
func commonSuffix(a, b string, limit int) int {
	n := 0
	for n+compareChunk <= limit && a[len(a)-n-compareChunk:len(a)-n] == b[len(b)-n-compareChunk:len(b)-n] {
		n += compareChunk
	}
	for n < limit && a[len(a)-n-1] == b[len(b)-n-1] {
		n++
	}
	return n
}

// pointAt is the point of offset to in text, given the point at of an
// earlier offset from.
func pointAt(text string, from int, at sitter.Point, to int) sitter.Point {
	seg := text[from:to]
	rows := strings.Count(seg, "\n")
	if rows == 0 {
		return sitter.Point{Row: at.Row, Column: at.Column + uint32(len(seg))}
	}
	return sitter.Point{Row: at.Row + uint32(rows), Column: uint32(len(seg) - strings.LastIndexByte(seg, '\n') - 1)}
}
