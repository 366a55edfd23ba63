// Package drift proves, or refuses to prove, that an edit authored against
// one version of a file can be replayed on the file as it is now
// (edit-contract §10). It is pure: it maps the unchanged lines between two
// texts and checks a set of anchor lines against that map. It never picks
// between candidates: when the proof fails it says why and the caller
// rejects the edit.
package drift

import (
	"fmt"
	"time"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// MaxLines bounds the texts Diff accepts (old plus new). Each distinct line
// becomes one code point of the diff's alphabet, which has about 1.1
// million of them.
const MaxLines = 1_000_000

// Map is the map of unchanged lines from an old text to a new one: only
// lines the diff proved equal and in place are present.
type Map struct {
	old2new []int // old2new[i-1] is the new line of old line i, or 0
	oldN    int
	newN    int
}

// Lookup returns the new line number of old line n, if n is unchanged.
func (m Map) Lookup(n int) (int, bool) {
	if n == 0 {
		return 0, true // the start of the file maps to itself
	}
	if n == m.oldN+1 {
		return m.newN + 1, true // so does the end
	}
	if n < 1 || n > m.oldN || m.old2new[n-1] == 0 {
		return 0, false
	}
	return m.old2new[n-1], true
}

// Diff maps the unchanged lines of old into new. timeout bounds the
// search: past it the diff coarsens, which only removes lines from the map
// (the caller then declines), never adds a wrong one.
func Diff(old, new []string, timeout time.Duration) (Map, error) {
	if len(old)+len(new) > MaxLines {
		return Map{}, fmt.Errorf("the file has %d lines, more than drift recovery maps (%d)", max(len(old), len(new)), MaxLines/2)
	}
	ids := make(map[string]rune, len(old))
	encode := func(lines []string) []rune {
		out := make([]rune, len(lines))
		for i, l := range lines {
			r, ok := ids[l]
			if !ok {
				r = codePoint(len(ids))
				ids[l] = r
			}
			out[i] = r
		}
		return out
	}
	a, b := encode(old), encode(new)
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = timeout
	m := Map{old2new: make([]int, len(old)), oldN: len(old), newN: len(new)}
	i, j := 0, 0 // lines consumed so far
	for _, d := range dmp.DiffMainRunes(a, b, false) {
		n := len([]rune(d.Text))
		switch d.Type {
		case diffmatchpatch.DiffEqual:
			for k := 0; k < n; k++ {
				m.old2new[i+k] = j + k + 1
			}
			i, j = i+n, j+n
		case diffmatchpatch.DiffDelete:
			i += n
		case diffmatchpatch.DiffInsert:
			j += n
		}
	}
	if i != len(old) || j != len(new) {
		return Map{}, fmt.Errorf("line diff covered %d/%d old and %d/%d new lines", i, len(old), j, len(new))
	}
	return m, nil
}

// codePoint maps a line id onto a valid Unicode scalar, skipping the
// surrogate range so every id survives a trip through a Go string.
func codePoint(id int) rune {
	if id >= 0xD800 {
		id += 0x800
	}
	return rune(id)
}

// Decline is why a replay could not be proven safe.
type Decline struct {
	Line   int // the old line the proof failed at, 0 if none
	Reason string
}

func (d *Decline) Error() string { return d.Reason }

// Check proves that every anchor (ascending, deduplicated old line
// numbers) still maps to one unchanged region of new under m, following
// edit-contract §10 steps 3-5, and returns the one offset every anchor
// moved by.
func Check(old, new []string, m Map, anchors []int) (offset int, err error) {
	if len(anchors) == 0 {
		return 0, &Decline{Reason: "the edit has no anchor line to place it by"}
	}
	isAnchor := make(map[int]bool, len(anchors))
	for _, a := range anchors {
		isAnchor[a] = true
	}
	oldCount, newCount := counts(old), counts(new)
	first := true
	for _, a := range anchors {
		na, ok := m.Lookup(a)
		if !ok || a < 1 || a > len(old) {
			return 0, &Decline{Line: a, Reason: fmt.Sprintf("line %d changed since the tagged version", a)}
		}
		off := na - a
		if first {
			offset, first = off, false
		} else if off != offset {
			return 0, &Decline{Line: a, Reason: fmt.Sprintf("line %d moved by %+d but an earlier anchor moved by %+d", a, off, offset)}
		}
		above, below := a-1, a+1
		for above >= 1 && isAnchor[above] {
			above--
		}
		for below <= len(old) && isAnchor[below] {
			below++
		}
		aboveOK := sameOffset(m, above, off)
		belowOK := sameOffset(m, below, off)
		text := old[a-1]
		if oldCount[text] == 1 && newCount[text] == 1 {
			if !aboveOK && !belowOK {
				return 0, &Decline{Line: a, Reason: fmt.Sprintf("line %d is unique but neither neighbour kept its place around it", a)}
			}
		} else if !aboveOK || !belowOK {
			return 0, &Decline{Line: a, Reason: fmt.Sprintf("line %d repeats elsewhere in the file and a neighbour of it changed", a)}
		}
	}
	return offset, nil
}

func sameOffset(m Map, line, off int) bool {
	n, ok := m.Lookup(line)
	return ok && n-line == off
}

func counts(lines []string) map[string]int {
	c := make(map[string]int, len(lines))
	for _, l := range lines {
		c[l]++
	}
	return c
}
