package blocks

import (
	"context"
	"fmt"
	"slices"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/hostd-dev/hostd/tools/syntax"
	"github.com/hostd-dev/hostd/workspace"
)

// Syntax feedback after a write or an edit (edit-contract §5.6): the
// error regions a change added to a file. Both versions are parsed the
// way the cache parses every version (the old one is usually cached, the
// new one is parsed incrementally from it and cached for the next
// change), the ERROR and MISSING nodes of each become line ranges, and a
// region of the new version counts as added unless a region of the old
// one explains it through the change's map of unchanged lines
// (addedRegions).

// maxErrorRegions bounds the regions one parse reports: past it the walk
// stops, and the last region reaches to the end of the text, so nothing
// after it goes unflagged.
const maxErrorRegions = 64

// errorRegions lists the error regions of a parse tree in line order,
// overlapping ones merged.
func errorRegions(root *sitter.Node, lines int) []syntax.ErrorRegion {
	var out []syntax.ErrorRegion
	walkErrors(root, func(n *sitter.Node, _ []int) bool {
		row := clampLine(int(n.StartPoint().Row)+1, lines)
		if n.IsMissing() {
			out = append(out, syntax.ErrorRegion{Start: row, End: row, Missing: n.Type()})
		} else {
			out = append(out, syntax.ErrorRegion{Start: row, End: clampLine(endLine(n), lines)})
		}
		if len(out) < maxErrorRegions {
			return true
		}
		out[len(out)-1].End = max(out[len(out)-1].End, lines)
		out[len(out)-1].Missing = ""
		return false
	})
	return mergeRegions(out)
}

// walkErrors calls visit with each ERROR and MISSING node of a parse tree
// in order, and the 1-based start lines of the nodes around it (the
// root's children down to its parent, outermost first), until visit
// returns false. It descends only into nodes that hold an error, with a
// cursor (stepping node by node is linear per step in tree-sitter), so a
// clean tree costs one check of its root.
func walkErrors(root *sitter.Node, visit func(n *sitter.Node, around []int) bool) {
	if root == nil || !root.HasError() {
		return
	}
	c := sitter.NewTreeCursor(root)
	defer c.Close()
	var around []int // the start lines of the nodes the cursor is in, below the root
	depth := 0       // the cursor's node's: the root's is 0
	for {
		n := c.CurrentNode()
		switch {
		case n.IsMissing() || n.IsError():
			if !visit(n, around) {
				return
			}
		case n.HasError() && c.GoToFirstChild():
			if depth > 0 {
				around = append(around, int(n.StartPoint().Row)+1)
			}
			depth++
			continue
		}
		for !c.GoToNextSibling() {
			if !c.GoToParent() {
				return
			}
			if depth--; depth > 0 {
				around = around[:len(around)-1]
			}
		}
	}
}

// endLine is the 1-based last line of n: a node that ends at the start
// of a line (its last byte is a newline) ends on the line before.
func endLine(n *sitter.Node) int {
	s, e := n.StartPoint(), n.EndPoint()
	if e.Column == 0 && e.Row > s.Row {
		return int(e.Row)
	}
	return int(e.Row) + 1
}

// clampLine keeps a line within the text: a node at the very end of a
// text that ends with a newline stands on the line after its last.
func clampLine(n, lines int) int { return max(min(n, lines), 1) }

// mergeRegions sorts regions by line and merges those that overlap. A
// merged region names a missing token only when all it merged did and
// they agree.
func mergeRegions(rs []syntax.ErrorRegion) []syntax.ErrorRegion {
	slices.SortStableFunc(rs, func(a, b syntax.ErrorRegion) int { return a.Start - b.Start })
	out := rs[:0]
	for _, r := range rs {
		if k := len(out) - 1; k >= 0 && r.Start <= out[k].End {
			if r.Missing != out[k].Missing {
				out[k].Missing = ""
			}
			out[k].End = max(out[k].End, r.End)
			continue
		}
		out = append(out, r)
	}
	return out
}

// addedRegions returns the regions of the new version (after, numbered
// as in it) that the old version's regions (before) do not explain.
// copies map the lines the change left as they were; every other new
// line is changed. A new region is explained by an old one when the old
// region's place in the new version overlaps it and either holds every
// changed line of it (an error the change did not touch, or one inside
// lines that were broken before and were rewritten still broken), or the
// new region's first and last lines are both lines the change left as
// they were: the change's own lines neither start it nor close it, so it
// is the old error, grown by lines the change wrote into it, shrunk or
// moved. So an error in unchanged lines that the change caused with no
// old error there (a brace removed above it) is added, and so is one
// that starts or ends on a line the change wrote. An old region's place
// is its first and last line carried through the copies; an end the
// change rewrote reaches to the nearest line it did not.
func addedRegions(before, after []syntax.ErrorRegion, copies []workspace.Copy, oldLines, newLines int) []syntax.ErrorRegion {
	if len(after) == 0 {
		return nil
	}
	if len(before) == 0 {
		return after
	}
	newOf := make([]int, oldLines+2) // old line -> new line, 0 when changed
	copied := make([]bool, newLines+2)
	for _, c := range copies {
		for i := range c.N {
			if o, n := c.Old+i, c.New+i; o >= 1 && o <= oldLines && n >= 1 && n <= newLines {
				newOf[o], copied[n] = n, true
			}
		}
	}
	// changedUpTo[n] counts the changed new lines 1..n.
	changedUpTo := make([]int, newLines+1)
	for n := 1; n <= newLines; n++ {
		changedUpTo[n] = changedUpTo[n-1]
		if !copied[n] {
			changedUpTo[n]++
		}
	}
	changedIn := func(a, b int) int {
		a, b = max(a, 1), min(b, newLines)
		if a > b {
			return 0
		}
		return changedUpTo[b] - changedUpTo[a-1]
	}
	place := func(o syntax.ErrorRegion) (lo, hi int) {
		lo, hi = 1, newLines
		for k := min(o.Start, oldLines); k >= 1; k-- {
			if newOf[k] != 0 {
				lo = newOf[k]
				if k < o.Start {
					lo++
				}
				break
			}
		}
		for k := max(o.End, 1); k <= oldLines; k++ {
			if newOf[k] != 0 {
				hi = newOf[k]
				if k > o.End {
					hi--
				}
				break
			}
		}
		return lo, hi
	}
	var out []syntax.ErrorRegion
	for _, r := range after {
		// The change's own lines neither start nor close r: an old error
		// that r overlaps grew, shrank or moved, and is still the old one.
		kept := copied[clampLine(r.Start, newLines)] && copied[clampLine(r.End, newLines)]
		explained := false
		for _, o := range before {
			lo, hi := place(o)
			if lo > r.End || hi < r.Start {
				continue
			}
			if kept || changedIn(r.Start, r.End) == changedIn(max(r.Start, lo), min(r.End, hi)) {
				explained = true
				break
			}
		}
		if !explained {
			out = append(out, r)
		}
	}
	return out
}

// reachBack moves the start of each added region that holds no line the
// change wrote (an error the parser noticed after the change that caused
// it: a bracket opened in the lines it wrote, a closer it left out) back
// to the start of the innermost node around its error that begins on a
// line the change wrote, when there is one: the construct the change
// opened or rewrote, inside which the parse went wrong; else to the first
// line of the nearest run of lines the change wrote above it. Regions
// that come to overlap are merged. copies map the lines the change left
// as they were, as for addedRegions.
func reachBack(root *sitter.Node, added []syntax.ErrorRegion, copies []workspace.Copy, lines int) []syntax.ErrorRegion {
	copied := make([]bool, lines+2)
	for _, c := range copies {
		for n := max(c.New, 1); n < c.New+c.N && n <= lines; n++ {
			copied[n] = true
		}
	}
	untouched := make([]bool, len(added)) // holds no line the change wrote
	someUntouched := false
	for i, r := range added {
		untouched[i] = true
		for n := r.Start; n <= r.End; n++ {
			if !copied[n] {
				untouched[i] = false
				break
			}
		}
		someUntouched = someUntouched || untouched[i]
	}
	if !someUntouched {
		return added
	}
	out := slices.Clone(added)
	opened := make([]bool, len(added)) // moved back to a node's start
	last := added[len(added)-1].End
	walkErrors(root, func(n *sitter.Node, around []int) bool {
		row := clampLine(int(n.StartPoint().Row)+1, lines)
		if row > last {
			return false
		}
		i, found := slices.BinarySearchFunc(added, row, func(r syntax.ErrorRegion, row int) int {
			switch {
			case r.End < row:
				return -1
			case r.Start > row:
				return 1
			}
			return 0
		})
		if !found || !untouched[i] {
			return true
		}
		for k := len(around) - 1; k >= 0; k-- {
			if a := around[k]; a < added[i].Start && !copied[a] {
				out[i].Start = min(out[i].Start, a)
				opened[i] = true
				break
			}
		}
		return true
	})
	for i, r := range added {
		if !untouched[i] || opened[i] {
			continue
		}
		// No node links the error to the change (a closer left out, so a
		// later one closed the wrong construct): the parse still read
		// the text before the change's lines as it did before, so the
		// cause lies from them on; the nearest run of them above is
		// where to look first.
		w := r.Start - 1
		for w >= 1 && copied[w] {
			w--
		}
		for w > 1 && !copied[w-1] {
			w--
		}
		if w >= 1 {
			out[i].Start = w
		}
	}
	return mergeRegions(out)
}

// AddedErrors reports the error regions a change added to the file at
// path (edit-contract §5.6): after's regions that before's, and known, do
// not explain (addedRegions), numbered as in after; and old, before's own
// regions, so that the caller can carry them along a chain of changes.
// known are regions in before's numbers that count as before's too: the
// errors of the version a chain of changes started from, carried to
// before (an error an earlier change of the chain hid is still not the
// next change's). hadBefore false says the file did
// not exist or was not text before, so every region of after is added.
// copies map the lines the change left as they were. Both texts are
// parsed through the cache (before's tree is usually there already;
// after's is parsed incrementally from it and cached, the base of the
// next change), within ctx's deadline. The grammar is the one the file
// had before the change (else after's, for a new file), as for a syntax
// check. A language with no syntax errors (markdown) has none to add,
// and nothing is parsed.
//
// An error, when the check could not be made, unwraps to ErrUnsupported
// (no grammar for the file type), ErrTooLarge (a text over
// maxParseBytes), ErrUnsafe (a text its grammar's guard refuses) or
// ErrParseTime (a parse past ctx's deadline): nothing is known then.
func (t *Trees) AddedErrors(ctx context.Context, path, before string, hadBefore bool, after string, copies []workspace.Copy, known []syntax.ErrorRegion, maxParseBytes int64) (added, old []syntax.ErrorRegion, err error) {
	if maxParseBytes <= 0 {
		return nil, nil, fmt.Errorf("%w: got %d", ErrInvalidLimit, maxParseBytes)
	}
	lang := LanguageFor(path, after)
	if hadBefore {
		lang = LanguageFor(path, before)
	}
	switch {
	case lang == nil:
		return nil, nil, fmt.Errorf("%w: %s", ErrUnsupported, path)
	case int64(len(after)) > maxParseBytes || hadBefore && int64(len(before)) > maxParseBytes:
		return nil, nil, fmt.Errorf("%w: over %d bytes", ErrTooLarge, maxParseBytes)
	case lang.everyTextParses:
		return nil, nil, nil
	}
	rq := request{path: path, lang: lang, text: after, keep: true, backstop: ParseTimeout}
	if hadBefore {
		l, why, reason := t.get(ctx, request{path: path, lang: lang, text: before, keep: true, backstop: ParseTimeout})
		if l == nil {
			return nil, nil, feedbackFailure(why, reason)
		}
		old = errorRegions(l.tree.RootNode(), CountLines(before))
		l.release()
		rq.base, rq.hasBase = before, true
	}
	l, why, reason := t.get(ctx, rq)
	if l == nil {
		return nil, nil, feedbackFailure(why, reason)
	}
	defer l.release()
	lines := CountLines(after)
	root := l.tree.RootNode()
	explain := old
	if len(known) > 0 {
		explain = mergeRegions(append(slices.Clone(old), known...))
	}
	added = addedRegions(explain, errorRegions(root, lines), copies, CountLines(before), lines)
	if len(added) == 0 {
		return nil, old, nil
	}
	added = reachBack(root, added, copies, lines)
	for i := range added {
		added[i].Unsure = !trustedRegion(lang.name, added[i])
	}
	return added, old, nil
}

// feedbackFailure is the error of a text AddedErrors could not parse.
func feedbackFailure(why Failure, reason string) error {
	if why == refused {
		return fmt.Errorf("%w: %s", ErrUnsafe, reason)
	}
	return fmt.Errorf("%w: the parse did not finish within the call's parse time", ErrParseTime)
}
