package tools

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/session"
)

// forty is a 40-line file whose lines are all distinct.
func forty() string {
	var b strings.Builder
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&b, "line %d of the file\n", i)
	}
	return b.String()
}

func withReads(e *editEnv) {
	e.x = NewExecutor(Options{Sessions: e.m, Limits: e.lim, Tools: Builtin()})
}

// A read since a tag shows only the changed lines with two of context,
// in the new numbers, notes where lines went, and keeps what was seen of
// the rest: an edit of an unchanged line needs no read.
func TestReadSinceShowsOnlyTheChanges(t *testing.T) {
	e := newEditEnv(t)
	withReads(e)
	e.write("f.txt", forty())
	r := e.read(map[string]any{"path": "f.txt"})
	old := r.Tag
	// Another program changes line 10, inserts two lines after 20 and
	// removes lines 30-31.
	text := strings.Replace(forty(), "line 10 of the file\n", "line ten, changed\n", 1)
	text = strings.Replace(text, "line 20 of the file\n", "line 20 of the file\nnew A\nnew B\n", 1)
	text = strings.Replace(text, "line 30 of the file\nline 31 of the file\n", "", 1)
	e.write("f.txt", text)
	r = e.read(map[string]any{"path": "f.txt", "since": strings.ToLower(old)})
	if !r.OK || r.Since != old || r.Tag == old || r.Unchanged != 37 || r.TotalLines != 40 {
		t.Fatalf("since read: %+v", r)
	}
	want := "[f.txt#" + r.Tag + "]\n" +
		"8:line 8 of the file\n9:line 9 of the file\n10:line ten, changed\n11:line 11 of the file\n12:line 12 of the file\n…\n" +
		"19:line 19 of the file\n20:line 20 of the file\n21:new A\n22:new B\n23:line 21 of the file\n24:line 22 of the file\n…\n" +
		"30:line 28 of the file\n31:line 29 of the file\n(2 lines of " + old + " removed here)\n32:line 32 of the file\n33:line 33 of the file\n" +
		"(since " + old + ": 37 of 40 lines unchanged and not shown but around changes; the ones you saw stay seen)"
	if r.Content != want {
		t.Fatalf("content\n%s\nwant\n%s", r.Content, want)
	}
	if seen := e.seenLines("f.txt"); seen.Len() != 40 {
		t.Errorf("seen %v, want every line: all were read before or shown now", seen.Ranges())
	}
	// Line 5 was never shown now: it was seen under the old tag.
	wantOK(t, e.edit("f.txt", r.Tag, "PUT 5:\n+line five"))
}

// What the session never saw of the old version stays unseen: the
// changes shown become seen, the rest of what was not read does not.
func TestReadSinceCarriesOnlyWhatWasSeen(t *testing.T) {
	e := newEditEnv(t)
	withReads(e)
	e.write("f.txt", forty())
	r := e.read(map[string]any{"path": "f.txt", "limit": 10})
	e.write("f.txt", strings.Replace(forty(), "line 30 of the file\n", "line thirty\n", 1))
	r = e.read(map[string]any{"path": "f.txt", "since": r.Tag})
	if r.Since == "" {
		t.Fatalf("since read answered as a plain read: %s", r.Content)
	}
	seen := e.seenLines("f.txt")
	want := session.Span(1, 10).Add(28, 32)
	if fmt.Sprint(seen.Ranges()) != fmt.Sprint(want.Ranges()) {
		t.Fatalf("seen %v, want %v", seen.Ranges(), want.Ranges())
	}
	wantCode(t, e.edit("f.txt", r.Tag, "PUT 20:\n+x"), wire.ToolLinesUnseen)
	wantOK(t, e.edit("f.txt", r.Tag, "PUT 30:\n+line 30 again"))
}

// A tag the session does not hold, a value that is no tag, and changes
// as large as the file are answered as a plain read that says so; since
// with a window is refused.
func TestReadSinceFallsBackToAPlainRead(t *testing.T) {
	e := newEditEnv(t)
	withReads(e)
	e.write("f.txt", forty())
	r := e.read(map[string]any{"path": "f.txt", "since": "ABCD"})
	if !r.OK || r.Since != "" || r.LineCount != 40 || !strings.Contains(r.Notice, "holds no version ABCD of f.txt") {
		t.Fatalf("an unknown tag: %+v", r)
	}
	r = e.read(map[string]any{"path": "f.txt", "since": "yesterday"})
	if !r.OK || r.Since != "" || !strings.Contains(r.Content, `since "yesterday" is not a tag`) {
		t.Fatalf("no tag: %+v", r)
	}
	old := r.Tag
	e.write("f.txt", strings.ReplaceAll(forty(), "of the", "in the"))
	r = e.read(map[string]any{"path": "f.txt", "since": old})
	if !r.OK || r.Since != "" || r.LineCount != 40 || !strings.Contains(r.Notice, "as large as the file") {
		t.Fatalf("every line changed: %+v", r)
	}
	r = e.read(map[string]any{"path": "f.txt", "since": old, "offset": 3})
	if r.OK || r.Error.Code != wire.ToolInvalidArgument {
		t.Fatalf("since with offset: %+v", r)
	}
}

// A file that did not change says so in one line; one whose last line
// lost its newline shows that line and the marker; lines removed at the
// top and the end are named.
func TestReadSinceEdges(t *testing.T) {
	e := newEditEnv(t)
	withReads(e)
	e.write("f.txt", forty())
	old := e.read(map[string]any{"path": "f.txt"}).Tag
	r := e.read(map[string]any{"path": "f.txt", "since": old})
	if r.Tag != old || r.Content != "[f.txt#"+old+"]\n(unchanged since "+old+": all 40 lines are as they were)" {
		t.Fatalf("unchanged: %q", r.Content)
	}
	e.write("f.txt", strings.TrimSuffix(forty(), "\n"))
	r = e.read(map[string]any{"path": "f.txt", "since": old})
	if !strings.Contains(r.Content, "\n40:line 40 of the file\n"+noFinalNewline+"\n") {
		t.Fatalf("the final newline removed: %q", r.Content)
	}
	e.write("f.txt", strings.TrimPrefix(forty(), "line 1 of the file\n")+"extra\n")
	old2 := e.read(map[string]any{"path": "f.txt"}).Tag
	e.write("f.txt", strings.TrimSuffix(strings.TrimPrefix(forty(), "line 1 of the file\nline 2 of the file\n"), "line 40 of the file\n"))
	r = e.read(map[string]any{"path": "f.txt", "since": old2})
	if !strings.Contains(r.Content, "\n(1 line of "+old2+" removed at the top)\n1:line 3") || !strings.Contains(r.Content, "\n37:line 39 of the file\n(2 lines of "+old2+" removed here)") {
		t.Fatalf("removed at the top and the end: %q", r.Content)
	}
}

// The changes are bounded by the output limit: past it the read is a
// plain one, and what was seen of the unchanged lines stays seen.
func TestReadSinceOutputLimit(t *testing.T) {
	lim := config.DefaultLimits()
	lim.MaxResultBytes = 150
	e := newEditEnvLimits(t, lim)
	withReads(e)
	var b strings.Builder
	for i := 1; i <= 200; i++ {
		fmt.Fprintf(&b, "%d\n", i)
	}
	e.write("f.txt", b.String())
	old := e.showAll("f.txt") // as reads in windows would have shown it
	e.write("f.txt", strings.Replace(strings.Replace(b.String(), "\n50\n", "\nfifty\n", 1), "\n150\n", "\nhundred fifty\n", 1))
	r := e.read(map[string]any{"path": "f.txt", "since": old})
	if r.Since != "" || !strings.Contains(r.Notice, "over the 150-byte output limit") {
		t.Fatalf("%+v", r)
	}
	// Line 100 is unchanged and was seen under the old tag: an edit of
	// it, outside the window shown now, needs no read.
	wantOK(t, e.edit("f.txt", r.Tag, "PUT 100:\n+a hundred"))
}
