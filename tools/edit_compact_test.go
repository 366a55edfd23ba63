package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/session"
	"github.com/hostd-dev/hostd/workspace"
)

func (e *editEnv) editForm(path, tag, ops, form string) *wire.EditResult {
	e.t.Helper()
	args, _ := json.Marshal(map[string]string{"path": path, "tag": tag, "ops": ops, "result": form})
	out, err := e.x.Execute(context.Background(), Request{SessionID: e.s.ID, Tool: "edit", Args: args})
	if err != nil {
		e.t.Fatal(err)
	}
	if r, ok := out.(*wire.EditResult); ok {
		return r
	}
	return &wire.EditResult{ToolResult: *out.Base()}
}

const twelve = "l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\nl10\nl11\nl12\n"

func TestEditCompactResult(t *testing.T) {
	t.Run("a change in place: the new tag alone, its span in the data", func(t *testing.T) {
		e := newEditEnv(t)
		e.write("a.txt", twelve)
		r := e.editForm("a.txt", e.showAll("a.txt"), "PUT 5.=5:\n+five", "compact")
		wantOK(t, r)
		if r.Content != "#"+r.Tag {
			t.Fatalf("content %q", r.Content)
		}
		raw, _ := json.Marshal(r.Regions)
		if string(raw) != `[{"oldStart":5,"oldEnd":5,"newStart":5,"newEnd":5,"shift":0}]` {
			t.Fatalf("regions %s", raw)
		}
	})
	t.Run("several regions: old and new spans and the shift below each", func(t *testing.T) {
		e := newEditEnv(t)
		e.write("a.txt", twelve)
		r := e.editForm("a.txt", e.showAll("a.txt"), "PUT 2.=3:\n+a\n+b\n+c\n+d\nPUT >6:\n+x\nCUT 9.=10", "compact")
		wantOK(t, r)
		if want := "#" + r.Tag + " 2-3→2-5 +2, >6→9 +3, 9-10→>11 +1"; r.Content != want {
			t.Fatalf("content %q, want %q", r.Content, want)
		}
		// The spans are what is in the file now.
		lines := workspace.Lines(e.file("a.txt"))
		if lines[8] != "x" || lines[10] != "l8" || lines[11] != "l11" {
			t.Fatalf("file %q", lines)
		}
		// The tag chains: the next edit uses the new numbers.
		wantOK(t, e.editForm("a.txt", r.Tag, "PUT 9.=9:\n+y", "compact"))
	})
	t.Run("a same-size region is listed when the lines above it moved", func(t *testing.T) {
		e := newEditEnv(t)
		e.write("a.txt", twelve)
		r := e.editForm("a.txt", e.showAll("a.txt"), "PUT 2.=2:\n+two\nPUT >3:\n+x\nPUT 5.=5:\n+five", "compact")
		wantOK(t, r)
		if want := "#" + r.Tag + " >3→4 +1, 5→6 +1"; r.Content != want {
			t.Fatalf("content %q, want %q", r.Content, want)
		}
		if len(r.Regions) != 3 {
			t.Fatalf("regions %+v: every region stays in the data", r.Regions)
		}
	})
	t.Run("rows written as sent when the check could not run: the spans and the warning agree", func(t *testing.T) {
		e := newEditEnv(t) // no syntax checker: repair cannot judge
		e.write("notes.txt", "a\nb\nc\nd\n")
		r := e.editForm("notes.txt", e.showAll("notes.txt"), "PUT 2.=2:\n+a\n+B\nPUT 4.=4:\n+D", "compact")
		wantOK(t, r)
		wantFile(t, e, "notes.txt", "a\na\nB\nc\nD\n")
		want := "#" + r.Tag + " 2→2-3 +1, 4→5 +1\nWarning: boundary repair could not run its syntax check"
		if !strings.HasPrefix(r.Content, want) || !strings.Contains(r.Content, "now line 2, is the same text as the line just above it: if it was copied from there by mistake, remove it with CUT 2") {
			t.Fatalf("content %q, want it to start %q and name CUT 2", r.Content, want)
		}
		// The advice is in the numbers of the tag the result hands back.
		wantOK(t, e.editForm("notes.txt", r.Tag, "CUT 2", "compact"))
		wantFile(t, e, "notes.txt", "a\nB\nc\nD\n")
	})
	t.Run("the session's form is the default, a call's own form wins", func(t *testing.T) {
		e := newEditEnv(t)
		ws, err := workspace.New(e.root, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		s, err := e.m.CreateWith("full-s", ws, session.Prefs{EditResult: session.FormFull})
		if err != nil {
			t.Fatal(err)
		}
		e.s = s
		e.write("a.txt", twelve)
		r := e.editForm("a.txt", e.showAll("a.txt"), "PUT 1.=1:\n+one", "")
		if r.Content != "[a.txt#"+r.Tag+"]\n1:one" || r.Regions != nil {
			t.Fatalf("session default: %q", r.Content)
		}
		r = e.editForm("a.txt", r.Tag, "PUT 2.=2:\n+two", "compact")
		if r.Content != "#"+r.Tag || len(r.Regions) != 1 {
			t.Fatalf("call's compact: %q", r.Content)
		}
	})
	t.Run("the compact form is the default", func(t *testing.T) {
		e := newEditEnv(t)
		ws, err := workspace.New(e.root, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, prefs := range []*session.Prefs{nil, {}} {
			s, err := e.m.Create("", ws)
			if prefs != nil {
				s, err = e.m.CreateWith("", ws, *prefs)
			}
			if err != nil {
				t.Fatal(err)
			}
			e.s = s
			e.write("a.txt", twelve)
			r := e.editForm("a.txt", e.showAll("a.txt"), "PUT 1.=1:\n+one\n+uno", "")
			if r.Content != "#"+r.Tag+" 1→1-2 +1" {
				t.Fatalf("content %q", r.Content)
			}
		}
	})
	t.Run("CRLF and BOM", func(t *testing.T) {
		e := newEditEnv(t)
		e.write("w.txt", "\ufeffa\r\nb\r\nc\r\n")
		r := e.editForm("w.txt", e.showAll("w.txt"), "PUT >1:\n+new", "compact")
		wantOK(t, r)
		wantFile(t, e, "w.txt", "\ufeffa\r\nnew\r\nb\r\nc\r\n")
		if r.Content != "#"+r.Tag+" >1→2 +1" {
			t.Fatalf("content %q", r.Content)
		}
	})
	t.Run("a move names the new path", func(t *testing.T) {
		e := newEditEnv(t)
		e.write("a.txt", twelve)
		r := e.editForm("a.txt", e.showAll("a.txt"), "PUT 1.=1:\n+one\nMV b.txt", "compact")
		wantOK(t, r)
		if r.Content != "[b.txt#"+r.Tag+"] (moved here)" {
			t.Fatalf("content %q", r.Content)
		}
	})
	t.Run("an unknown form is refused before anything is written", func(t *testing.T) {
		e := newEditEnv(t)
		e.write("a.txt", twelve)
		r := e.editForm("a.txt", e.showAll("a.txt"), "PUT 1.=1:\n+one", "short")
		wantCode(t, r, wire.ToolInvalidArgument)
		if !strings.Contains(r.Error.Message, `"compact"`) {
			t.Fatalf("message %q", r.Error.Message)
		}
		wantFile(t, e, "a.txt", twelve)
	})
}

// TestLandedDifferently: what a compact result re-displays when the file
// on disk is not what the ops said (a formatter on save, a repair).
func TestLandedDifferently(t *testing.T) {
	cases := []struct {
		authored, landed string
		want             string
	}{
		{"a\nb\nc", "a\nb\nc", "[]"},
		{"a\nb\nc", "a\nB\nc", "[2]"},       // a row changed
		{"a\nb\nb2\nc", "a\nb\nc", "[2 3]"}, // a row dropped: the join is shown
		{"x\nx\ny", "x\ny", "[1]"},          // a dropped first row: the line after the join
		{"a\nb\nc", "a\nb\nkept\nc", "[3]"}, // a row kept
		{"package f\nfunc F(){\nreturn\n}", "package f\n\nfunc F() {\n\treturn\n}", "[2 3 4]"}, // reformatted
	}
	for _, c := range cases {
		got := fmt.Sprint(landedDifferently(strings.Split(c.authored, "\n"), strings.Split(c.landed, "\n"), nil))
		if got != c.want {
			t.Errorf("%q -> %q: %s, want %s", c.authored, c.landed, got, c.want)
		}
	}
}
