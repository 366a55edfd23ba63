package blocks

import (
	"strings"
	"unicode/utf8"

	sitter "github.com/smacker/go-tree-sitter"
)

// An incremental parse needs the edits that turned the old text into the
// new one, in bytes and in points (row, byte column: tree-sitter counts
// rows at "\n" only, so a lone "\r" is an ordinary byte and a BOM is three
// bytes of the first row). editsBetween computes them from the two texts
// alone, so it needs nothing from the edit language: the bytes between
// their common prefix and their common suffix are one changed region, and
// a large region is split where a run of its old bytes reappears in the
// new ones, so that two ops far apart give two small regions rather than
// one spanning everything between them (which tree-sitter would reparse
// whole). However a region is split, the edits together turn the old
// text into the new one, so the reparse is exact; a poor split only
// costs time. Comparing and searching the texts costs a few passes over
// them, far below a parse.
//
// The edits are handed to tree-sitter by editTree (tsedit.go), not by
// the binding's Tree.Edit, which loses their new end points.

// compareChunk is how many bytes the prefix and suffix scans compare at
// once before looking at single bytes.
const compareChunk = 256

// Splitting a changed region: only regions of at least minSplitBytes (old
// and new together) are split, at most splitDepth times deep (so into at
// most 2^splitDepth edits), at a run of anchorBytes old bytes taken from
// the middle of the region and found again in the new region.
const (
	minSplitBytes = 4 << 10
	splitDepth    = 5
	anchorBytes   = 48
)

// region is one changed region: old[oldStart:oldEnd] became
// new[newStart:newEnd].
type region struct{ oldStart, oldEnd, newStart, newEnd int }

// editsBetween returns the edits that turn old into new, none when they
// are equal. They are in descending order of position, the order to apply
// them to old's tree in: each is in the coordinates of the text as the
// edits before it left it, which below their positions is old's.
func editsBetween(old, new string) []sitter.EditInput {
	if old == new {
		return nil
	}
	var regions []region
	changedRegions(old, new, region{0, len(old), 0, len(new)}, splitDepth, &regions)
	edits := make([]sitter.EditInput, len(regions))
	at, atPoint := 0, sitter.Point{}
	for i, r := range regions {
		start := pointAt(old, at, atPoint, r.oldStart)
		oldEnd := pointAt(old, r.oldStart, start, r.oldEnd)
		edits[len(regions)-1-i] = sitter.EditInput{
			StartIndex:  uint32(r.oldStart),
			OldEndIndex: uint32(r.oldEnd),
			NewEndIndex: uint32(r.oldStart + r.newEnd - r.newStart),
			StartPoint:  start,
			OldEndPoint: oldEnd,
			NewEndPoint: pointAt(new, r.newStart, start, r.newEnd),
		}
		at, atPoint = r.oldEnd, oldEnd
	}
	return edits
}

// changedRegions appends, in ascending order, the regions in which
// old[r.oldStart:r.oldEnd] and new[r.newStart:r.newEnd] differ, splitting
// at most depth times.
func changedRegions(old, new string, r region, depth int, out *[]region) {
	// Trim what the two have in common at either end, on character
	// boundaries of both, so no point splits a UTF-8 sequence.
	limit := min(r.oldEnd-r.oldStart, r.newEnd-r.newStart)
	p := commonPrefix(old[r.oldStart:r.oldEnd], new[r.newStart:r.newEnd], limit)
	for p > 0 && (!runeStart(old, r.oldStart+p) || !runeStart(new, r.newStart+p)) {
		p--
	}
	r.oldStart, r.newStart = r.oldStart+p, r.newStart+p
	s := commonSuffix(old[r.oldStart:r.oldEnd], new[r.newStart:r.newEnd], limit-p)
	for s > 0 && (!runeStart(old, r.oldEnd-s) || !runeStart(new, r.newEnd-s)) {
		s--
	}
	r.oldEnd, r.newEnd = r.oldEnd-s, r.newEnd-s
	if r.oldStart == r.oldEnd && r.newStart == r.newEnd {
		return
	}
	if depth > 0 && r.oldEnd-r.oldStart+r.newEnd-r.newStart >= minSplitBytes && r.oldEnd-r.oldStart > 2*anchorBytes {
		mid := r.oldStart + (r.oldEnd-r.oldStart-anchorBytes)/2
		for !runeStart(old, mid) {
			mid--
		}
		anchor := old[mid : mid+anchorBytes]
		if j := strings.Index(new[r.newStart:r.newEnd], anchor); j >= 0 && runeStart(new, r.newStart+j) {
			// old[mid:] and new[r.newStart+j:] start alike: the left
			// parts and the right parts are each one change.
			changedRegions(old, new, region{r.oldStart, mid, r.newStart, r.newStart + j}, depth-1, out)
			changedRegions(old, new, region{mid, r.oldEnd, r.newStart + j, r.newEnd}, depth-1, out)
			return
		}
	}
	*out = append(*out, r)
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

// nearer reports whether new is nearer to a than to b, for an
// incremental parse of new from the tree of one of them: fewer lines
// added or removed in the regions that differ, then fewer bytes changed.
// A reparse costs least when the structure around the change stays as it
// was, and a line added or removed (a closer, an opener) is what most
// often moves it; a changed line most often keeps it. Ties go to b.
func nearer(a, b, new string) bool {
	al, ab := distance(a, new)
	bl, bb := distance(b, new)
	return al < bl || al == bl && ab < bb
}

// distance is what editsBetween(old, new) changes: the lines added or
// removed, summed over its regions, and the bytes of old and new in them.
func distance(old, new string) (lines, bytes int) {
	if old == new {
		return 0, 0
	}
	var regions []region
	changedRegions(old, new, region{0, len(old), 0, len(new)}, splitDepth, &regions)
	for _, r := range regions {
		o, n := old[r.oldStart:r.oldEnd], new[r.newStart:r.newEnd]
		d := strings.Count(o, "\n") - strings.Count(n, "\n")
		lines += max(d, -d)
		bytes += len(o) + len(n)
	}
	return lines, bytes
}

// Delta is text as what differs from base: text is base's first prefix
// bytes, middle, and base's last suffix bytes. The cut never splits a
// UTF-8 sequence of either text, so middle stays valid text.
func Delta(base, text string) (prefix, suffix int, middle string) {
	limit := min(len(base), len(text))
	prefix = commonPrefix(base, text, limit)
	for prefix > 0 && (!runeStart(base, prefix) || !runeStart(text, prefix)) {
		prefix--
	}
	suffix = commonSuffix(base[prefix:], text[prefix:], limit-prefix)
	for suffix > 0 && (!runeStart(base, len(base)-suffix) || !runeStart(text, len(text)-suffix)) {
		suffix--
	}
	return prefix, suffix, text[prefix : len(text)-suffix]
}
