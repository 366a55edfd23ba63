package rollback

import (
	"fmt"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
)

// undoKeeping is the three-way merge of a rewind that keeps another's
// later work: base is what the agent's change left, theirs is what the
// file holds now (base with someone else's edits), and target is what
// the agent's change found. The result is target with theirs' edits, when
// theirs' edits and the agent's touch different lines. Otherwise ok is
// false and overlaps shows each region both touched.
//
// The merge is go-udiff's (the Go team's diff package of gopls, which
// hostd already uses for its diffs): both sides are line edits of base,
// and Merge refuses two different edits of the same lines.
func undoKeeping(base, theirs, target string) (merged string, overlaps []string, ok bool) {
	x := udiff.Lines(base, theirs)
	y := udiff.Lines(base, target)
	edits, ok := udiff.Merge(x, y)
	if ok {
		out, err := udiff.Apply(base, edits)
		if err == nil {
			return out, nil, true
		}
	}
	for _, a := range x {
		for _, b := range y {
			if a == b || !touchSame(a, b) {
				continue
			}
			overlaps = append(overlaps, showOverlap(base, a, b))
		}
	}
	if len(overlaps) == 0 {
		overlaps = []string{"the two sets of edits could not be combined"}
	}
	return "", overlaps, false
}

// touchSame reports whether two line edits of one text change the same
// lines, as go-udiff's Merge judges it: overlapping ranges, or two
// different edits starting at one line that both replace something.
func touchSame(a, b udiff.Edit) bool {
	if a.Start == b.Start {
		return a.End > a.Start || b.End > b.Start
	}
	return a.Start < b.End && b.Start < a.End
}

// showOverlap prints one region both sides changed: the lines of base,
// what the file holds there now, and what the rewind would put there.
func showOverlap(base string, now, rewind udiff.Edit) string {
	start, end := min(now.Start, rewind.Start), max(now.End, rewind.End)
	first := strings.Count(base[:start], "\n") + 1
	var b strings.Builder
	last := first + strings.Count(base[start:end], "\n") - 1
	if last < first {
		fmt.Fprintf(&b, "at line %d:\n", first)
	} else {
		fmt.Fprintf(&b, "lines %d-%d:\n", first, last)
	}
	quoteLines(&b, "  agent's: ", base[start:end])
	quoteLines(&b, "  now:     ", base[start:now.Start]+now.New+base[now.End:end])
	quoteLines(&b, "  rewind:  ", base[start:rewind.Start]+rewind.New+base[rewind.End:end])
	return b.String()
}

func quoteLines(b *strings.Builder, prefix, text string) {
	if text == "" {
		b.WriteString(prefix + "(nothing)\n")
		return
	}
	for _, l := range strings.SplitAfter(strings.TrimSuffix(text, "\n"), "\n") {
		b.WriteString(prefix + strings.TrimSuffix(l, "\n") + "\n")
	}
}
