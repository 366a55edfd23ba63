package tools

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/session"
	"github.com/hostd-dev/hostd/tools/drift"
	"github.com/hostd-dev/hostd/tools/linewindow"
	"github.com/hostd-dev/hostd/workspace"
)

// read {path, since: TAG} (edit-contract §5.7): after a formatter, a
// build, a checkout or another session changed a file, the model reads
// only what changed since a version it holds, and what it saw of the
// lines the change left alone stays seen at their new numbers.

// sinceContext is how many unchanged lines a since read shows either
// side of a change.
const sinceContext = 2

// readSince answers a read with since: the lines of w's file that
// differ from the version this session holds under tag, with a few
// lines of context, in the file's new numbers. It answers as a plain
// read of the default window, saying why, when the session holds no
// text under tag for the file, when the file is too large to keep or to
// diff, and when the changes shown would be no smaller than the file.
func readSince(c *Call, p workspace.Path, w *linewindow.Window, since string, limit int, capped bool) *wire.ReadResult {
	tag := strings.ToUpper(strings.TrimSpace(since))
	plain := func(carried session.LineSet, why string) *wire.ReadResult {
		return plainRead(c, p, w, 1, limit, capped, carried, why)
	}
	if !validTag(tag) {
		return plain(session.Empty(), fmt.Sprintf("since %q is not a tag (4 hex digits from a [PATH#TAG] header), so this is a plain read", clipMessageTo(since, 40)))
	}
	old, ok := c.State.Store.Held(p.Abs, tag)
	switch {
	case !ok:
		return plain(session.Empty(), fmt.Sprintf("this session holds no version %s of %s (never read here, or no longer kept), so this is a plain read", tag, p.Display))
	case !w.Retained:
		return plain(session.Empty(), fmt.Sprintf("%s is too large to compare with %s (over %d bytes), so this is a plain read", p.Display, tag, c.Limits.MaxRetainedFileBytes))
	}
	before, now := workspace.Lines(old.Text), workspace.Lines(w.Body)
	m, err := drift.Diff(before, now, time.Duration(c.Limits.RecoveryDiffTimeoutMs)*time.Millisecond)
	if err != nil {
		return plain(session.Empty(), fmt.Sprintf("%s could not be compared with %s (%v), so this is a plain read", p.Display, tag, err))
	}
	carried := mapSeen(old.Seen, m)
	d := sinceDiff(m, len(before), len(now))
	if d.changed == 0 && len(d.removed) == 0 && old.Text != w.Body && len(now) > 0 {
		// Only the last line's newline changed: that line is the change.
		d.isNew[len(now)] = true
		d.changed, d.unchanged = 1, d.unchanged-1
	}
	content, shown := renderSince(p.Display, w.Digest.Tag(), tag, now, d, w.Unterminated, c.Limits.MaxLineChars)
	switch {
	case int64(len(content)) > c.Limits.MaxResultBytes:
		return plain(carried, fmt.Sprintf("the changes since %s are over the %d-byte output limit, so this is a plain read; what you saw of the lines they left alone is still seen", tag, c.Limits.MaxResultBytes))
	case d.changed+len(d.removed) > 0 && len(content) >= len(w.Body):
		return plain(carried, fmt.Sprintf("the changes since %s are as large as the file, so this is a plain read; what you saw of the lines they left alone is still seen", tag))
	}
	newTag := c.State.Store.Record(p.Abs, session.Snapshot{
		Digest: w.Digest, Text: w.Body, HasText: true,
		Lines: w.TotalLines, Bytes: w.FileBytes, Seen: carried.Union(shown),
	})
	c.warm(p.Abs, w)
	return &wire.ReadResult{
		Path: p.Display, Root: string(p.Root), Offset: 1, LineCount: shown.Len(),
		TotalLines: w.TotalLines, FileBytes: w.FileBytes, Tag: newTag,
		Since: tag, Unchanged: d.unchanged,
		ToolResult: wire.ToolResult{Content: content},
	}
}

// sinceChanges is what a diff left of a file: its new lines that are
// not old ones (changed), and the gaps where old lines went with
// nothing in their place, as the new line they follow and how many.
type sinceChanges struct {
	isNew     []bool // isNew[n]: new line n is not an old line
	removed   map[int]int
	changed   int // new lines that are not old ones
	unchanged int
}

// sinceDiff reads the changes out of a map of unchanged lines from an
// old text of oldN lines to a new one of newN.
func sinceDiff(m drift.Map, oldN, newN int) sinceChanges {
	d := sinceChanges{isNew: make([]bool, newN+2), removed: map[int]int{}}
	for n := 1; n <= newN; n++ {
		d.isNew[n] = true
	}
	at := 0 // the new line the last kept old line is
	for o := 1; o <= oldN; o++ {
		n, ok := m.Lookup(o)
		if !ok {
			d.removed[at]++
			continue
		}
		d.isNew[n] = false
		d.unchanged++
		at = n
	}
	for n := 1; n <= newN; n++ {
		if d.isNew[n] {
			d.changed++
		}
	}
	// Removed lines with new ones in their place read as a change there.
	for at := range d.removed {
		if at+1 <= newN && d.isNew[at+1] {
			delete(d.removed, at)
		}
	}
	return d
}

// renderSince shows the changes under the new header: each run of new
// lines with sinceContext unchanged lines either side, a note where old
// lines were removed, "…" between runs, and a last line saying how much
// is unchanged. shown is the set of lines shown in full.
func renderSince(display, newTag, oldTag string, lines []string, d sinceChanges, unterminated bool, maxChars int) (string, session.LineSet) {
	want := session.Empty()
	for n := 1; n < len(d.isNew)-1; n++ {
		if d.isNew[n] {
			want = want.Add(max(n-sinceContext, 1), min(n+sinceContext, len(lines)))
		}
	}
	for at := range d.removed {
		if lo, hi := max(at-sinceContext+1, 1), min(at+sinceContext, len(lines)); lo <= hi {
			want = want.Add(lo, hi)
		}
	}
	var b strings.Builder
	b.WriteString(tagHeader(display, newTag))
	if d.changed == 0 && len(d.removed) == 0 {
		fmt.Fprintf(&b, "\n(unchanged since %s: all %d lines are as they were)", oldTag, len(lines))
		return b.String(), session.Empty()
	}
	shown := session.Empty()
	prev := 0
	if k := d.removed[0]; k > 0 {
		fmt.Fprintf(&b, "\n(%d %s of %s removed at the top)", k, plural(k, "line", "lines"), oldTag)
	}
	for _, r := range want.Ranges() {
		if prev != 0 && r.From > prev+1 {
			b.WriteString("\n…")
		}
		for n := r.From; n <= r.To; n++ {
			text, clipped := clipLine(lines[n-1], maxChars)
			b.WriteString("\n" + strconv.Itoa(n) + ":" + text)
			if clipped {
				b.WriteString(clipMarker(maxChars))
			} else {
				shown = shown.Add(n, n)
			}
			if n == len(lines) && unterminated {
				b.WriteString("\n" + noFinalNewline)
			}
			if k := d.removed[n]; k > 0 {
				fmt.Fprintf(&b, "\n(%d %s of %s removed here)", k, plural(k, "line", "lines"), oldTag)
			}
		}
		prev = r.To
	}
	fmt.Fprintf(&b, "\n(since %s: %d of %d lines unchanged and not shown but around changes; the ones you saw stay seen)", oldTag, d.unchanged, len(lines))
	return b.String(), shown
}
