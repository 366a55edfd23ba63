package tools

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/session"
	"github.com/hostd-dev/hostd/tools/drift"
	"github.com/hostd-dev/hostd/tools/hashline"
	"github.com/hostd-dev/hostd/workspace"
)

// The compact edit result (wire-contract session.create editResult, the
// edit tool's result argument): instead of re-displaying every changed
// line, the content is the new tag and, per changed region, its old and
// new span and the shift of the lines below it. A row is re-displayed only
// when it landed differently from what the ops said: the file changed as
// it was saved. Everything
// else is exactly what the model sent, so showing it again only costs
// tokens.

// renderCompact fills a compact result: the regions, and the content
// with the lines that landed differently from what the ops said. intended
// is the text the edit meant to write (the ops as sent: boundary repair
// never changes them, edit-contract §8.4), landed what is on disk.
func (ed *editor) renderCompact(res *wire.EditResult, target workspace.Path, tag string, intended, landed []string, changed []hashline.Region) {
	res.Regions = regionSpans(changed)
	differ := landedDifferently(intended, landed, res.Regions)
	res.Content = renderCompact(target.Display, tag, res.MovedTo != "", res.Regions, landed, differ, ed.c.Limits.MaxResultBytes)
}

// regionSpans turns the regions Apply reports (new numbering, with the
// lines inserted and removed) into old and new spans with their shift.
func regionSpans(changed []hashline.Region) []wire.RegionSpan {
	out := make([]wire.RegionSpan, 0, len(changed))
	shift := 0 // of the lines above the current region
	for _, r := range changed {
		oldStart := r.Start - shift
		shift += r.Inserted - r.Removed
		out = append(out, wire.RegionSpan{
			OldStart: oldStart, OldEnd: oldStart + r.Removed - 1,
			NewStart: r.Start, NewEnd: r.Start + r.Inserted - 1,
			Shift: shift,
		})
	}
	return out
}

// span renders an inclusive span as the edit language names it: "5" for
// one line, "5-7" for several, and for an empty span the gap it leaves,
// ">4" (after line 4).
func span(start, end int) string {
	switch {
	case end < start:
		return ">" + strconv.Itoa(start-1)
	case end == start:
		return strconv.Itoa(start)
	}
	return strconv.Itoa(start) + "-" + strconv.Itoa(end)
}

// renderCompact is the compact content: "#TAG" (the whole header after a
// move) and one "old→new" entry per region that moved or changed size,
// with " +k"/" -k" when the lines below moved (a region whose old and new
// spans are the same is where the ops put it, so it is left out: "#TAG"
// alone says every change landed in place); then the rows listed in differ, as "N:text", each
// one a line that landed differently from what was sent.
func renderCompact(display, tag string, moved bool, regions []wire.RegionSpan, lines []string, differ []int, maxBytes int64) string {
	var b strings.Builder
	if moved {
		fmt.Fprintf(&b, "[%s#%s] (moved here)", display, tag)
	} else {
		b.WriteString("#" + tag)
	}
	listed := 0
	for i, r := range regions {
		if r.OldStart == r.NewStart && r.OldEnd == r.NewEnd {
			continue // in place and the same size: nothing the ops did not say
		}
		if listed > 0 {
			b.WriteByte(',')
		}
		listed++
		b.WriteByte(' ')
		b.WriteString(span(r.OldStart, r.OldEnd))
		b.WriteString("→")
		b.WriteString(span(r.NewStart, r.NewEnd))
		if r.Shift != 0 {
			fmt.Fprintf(&b, " %+d", r.Shift)
		}
		if int64(b.Len()) > maxBytes {
			fmt.Fprintf(&b, " (and %d more regions: the output limit is %d bytes; read the file to see them)", len(regions)-i-1, maxBytes)
			return b.String()
		}
	}
	if len(differ) > 0 {
		b.WriteString("\nlanded differently from what you sent:")
	}
	for _, n := range differ {
		if int64(b.Len()) > maxBytes {
			fmt.Fprintf(&b, "\n(lines from %d on that landed differently are not shown: the output limit is %d bytes; read them)", n, maxBytes)
			break
		}
		fmt.Fprintf(&b, "\n%d:%s", n, lines[n-1])
	}
	return b.String()
}

// landedDifferently lists the lines of landed (numbered as in landed) that
// are not what the ops said: lines the authored text does not have, and
// the lines either side of where an authored line was dropped. authored is
// the result of the ops as sent, before boundary repair; landed is what is
// on disk. Equal texts, the common case, cost one comparison. When the
// two cannot be compared within the diff's time, every changed line is
// listed, which shows more but never hides a difference.
func landedDifferently(authored, landed []string, changed []wire.RegionSpan) []int {
	if equalLines(authored, landed) {
		return nil
	}
	set := session.Empty()
	m, err := drift.Diff(authored, landed, time.Second)
	if err != nil {
		for _, r := range changed {
			if r.NewEnd >= r.NewStart {
				set = set.Add(r.NewStart, r.NewEnd)
			}
		}
		return expand(set)
	}
	mapped := make([]bool, len(landed)+2)
	for a := 1; a <= len(authored); a++ {
		if n, ok := m.Lookup(a); ok {
			mapped[n] = true
		}
	}
	for n := 1; n <= len(landed); n++ {
		if !mapped[n] {
			set = set.Add(n, n)
		}
	}
	// A run of authored lines with nothing in its place was dropped: show
	// the landed lines either side of the join.
	prev := 0 // landed line of the last authored line that maps
	for a := 1; a <= len(authored); a++ {
		n, ok := m.Lookup(a)
		if ok {
			prev = n
			continue
		}
		next := len(landed) + 1
		for b := a + 1; b <= len(authored); b++ {
			if nb, ok := m.Lookup(b); ok {
				next = nb
				break
			}
		}
		if next == prev+1 {
			if prev >= 1 {
				set = set.Add(prev, prev)
			}
			if next <= len(landed) {
				set = set.Add(next, next)
			}
		}
		for a+1 <= len(authored) {
			if _, ok := m.Lookup(a + 1); ok {
				break
			}
			a++
		}
	}
	return expand(set)
}

func equalLines(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func expand(s session.LineSet) []int {
	var out []int
	for _, r := range s.Ranges() {
		for n := r.From; n <= r.To; n++ {
			out = append(out, n)
		}
	}
	return out
}
