package tools

import (
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/review"
	"github.com/hostd-dev/hostd/rpc/wire"
)

// Untouched lines keep their bytes, their own line endings included; rows
// the edit writes take the dominant ending (edit-contract §3.1).
func TestEditKeepsEachLinesEnding(t *testing.T) {
	cases := []struct {
		name, in, ops, want string
	}{
		{"the issue's file: one line replaced", "a\r\nb\nc\r\nd\r\n", "PUT 4.=4:\n+D", "a\r\nb\nc\r\nD\r\n"},
		{"LF dominant, CRLF lines kept", "a\nb\r\nc\nd\n", "PUT 1.=1:\n+A\nPUT >4:\n+e", "A\nb\r\nc\nd\ne\n"},
		{"a replaced minority line takes the dominant ending", "a\r\nb\nc\r\n", "PUT 2.=2:\n+B", "a\r\nB\r\nc\r\n"},
		{"a cut keeps its neighbours' endings", "a\nb\r\nc\r\nd\n", "CUT 2.=2", "a\nc\r\nd\n"},
		{"a moved line keeps its own ending", "a\r\nb\nc\r\nd\r\n", "CUT 2.=2\nPUT >4", "a\r\nc\r\nd\r\nb\n"},
		{"a named register moved in one call keeps it too", "a\nb\r\nc\nd\n", "CUT 2.=2 @x\nPUT <1 @x", "b\r\na\nc\nd\n"},
		{"BOM and a mix", "\ufeffa\r\nb\nc\r\n", "PUT >1:\n+x", "\ufeffa\r\nx\r\nb\nc\r\n"},
		{"lone CR is content, kept byte for byte", "a\rb\nc\r\nd\n", "PUT 3.=3:\n+D", "a\rb\nc\r\nD\n"},
		{"a lone CR before a CRLF is content", "x\r\r\ny\r\n", "PUT 2.=2:\n+Y", "x\r\r\nY\r\n"},
		{"unterminated last line of a mixed file gains the dominant ending when rows follow", "a\r\nb\nc\r\nd", "PUT >$:\n+e", "a\r\nb\nc\r\nd\r\ne"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEditEnv(t)
			e.write("f.txt", tc.in)
			wantOK(t, e.edit("f.txt", e.showAll("f.txt"), tc.ops))
			wantFile(t, e, "f.txt", tc.want)
		})
	}
}

// The review record's diff is of the bytes, so it shows exactly the lines
// whose bytes changed: on a mixed file, the one line edited.
func TestEditReviewDiffIsTheByteChange(t *testing.T) {
	e := newEditEnv(t)
	var store *review.Store
	e.x, store = reviewedExecutor(t, e.m, e.lim)
	e.write("f.txt", "a\r\nb\nc\r\nd\r\n")
	wantOK(t, e.edit("f.txt", e.showAll("f.txt"), "PUT 4.=4:\n+D"))
	entries, err := store.List(e.s.ID, "")
	if err != nil || len(entries) != 1 {
		t.Fatalf("entries %v, %v", entries, err)
	}
	var changed []string
	for _, l := range strings.Split(entries[0].Diff, "\n") {
		if (strings.HasPrefix(l, "-") || strings.HasPrefix(l, "+")) && !strings.HasPrefix(l, "---") && !strings.HasPrefix(l, "+++") {
			changed = append(changed, l)
		}
	}
	if strings.Join(changed, "|") != "-d\r|+D\r" {
		t.Fatalf("the review diff changes %q, want only line 4:\n%s", changed, entries[0].Diff)
	}
}

// Drift recovery replays the edit on the live file, whose endings are
// kept the same way.
func TestEditRecoveryKeepsMixedEndings(t *testing.T) {
	e := newEditEnv(t)
	e.write("f.txt", "a\r\nb\nc\r\nd\r\n")
	tag := e.showAll("f.txt")
	e.write("f.txt", "top\n"+"a\r\nb\nc\r\nd\r\n")
	r := e.edit("f.txt", tag, "PUT 3.=3:\n+C")
	wantOK(t, r)
	wantFile(t, e, "f.txt", "top\na\r\nb\nC\r\nd\r\n")
}

// EOF NEWLINE and EOF NO-NEWLINE set whether the last line ends with a
// newline (edit-contract §7.2).
func TestEditFinalNewline(t *testing.T) {
	cases := []struct {
		name, in, ops, want string
	}{
		{"add to LF", "a\nb", "EOF NEWLINE", "a\nb\n"},
		{"remove from LF", "a\nb\n", "EOF NO-NEWLINE", "a\nb"},
		{"add to CRLF takes CRLF", "a\r\nb", "EOF NEWLINE", "a\r\nb\r\n"},
		{"remove from CRLF removes CR and LF", "a\r\nb\r\n", "EOF NO-NEWLINE", "a\r\nb"},
		{"BOM kept", "\ufeffa\nb", "EOF NEWLINE", "\ufeffa\nb\n"},
		{"one line", "a\n", "EOF NO-NEWLINE", "a"},
		{"with other ops, anywhere in the ops", "a\nb\nc\n", "EOF NO-NEWLINE\nPUT 2.=2:\n+B", "a\nB\nc"},
		{"with an append", "a", "PUT >$:\n+b\nEOF NEWLINE", "a\nb\n"},
		{"append keeps no newline without EOF", "a", "PUT >$:\n+b", "a\nb"},
		{"delete the empty last line and end without newline", "a\n\n", "CUT 2.=2\nEOF NO-NEWLINE", "a"},
		{"rows on an empty file without newline", "", "PUT >$:\n+a\n+b\nEOF NO-NEWLINE", "a\nb"},
		{"mixed file keeps its other lines", "a\nb\r\nc\r\nd\r\n", "EOF NO-NEWLINE", "a\nb\r\nc\r\nd"},
		{"an edit that changes only the newline of a line with trailing blanks", "a  \n", "EOF NO-NEWLINE", "a  "},
		{"with MV", "a\nb", "EOF NEWLINE\nMV g.txt", "a\nb\n"},
		{"the state it already has, beside a change", "a\nb\n", "PUT 1.=1:\n+A\nEOF NEWLINE", "A\nb\n"},
		{"a change whose lines come out the same still sets the state", "a\nb\n", "PUT 2.=2:\n+b\nEOF NO-NEWLINE", "a\nb"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEditEnv(t)
			e.write("f.txt", tc.in)
			r := e.edit("f.txt", e.showAll("f.txt"), tc.ops)
			wantOK(t, r)
			target := "f.txt"
			if r.MovedTo != "" {
				target = r.MovedTo
			}
			wantFile(t, e, target, tc.want)
			unterminated := !strings.HasSuffix(tc.want, "\n") && tc.want != ""
			if strings.Contains(r.Content, noFinalNewline) != unterminated {
				t.Fatalf("the no-newline marker is wrong in:\n%s", r.Content)
			}
			// The result's diff shows a change of the final newline as diff does.
			endChanged := strings.HasSuffix(tc.in, "\n") != strings.HasSuffix(tc.want, "\n") && tc.in != "" && r.MovedTo == ""
			if endChanged && !strings.Contains(r.Diff, "No newline at end of file") {
				t.Fatalf("the diff does not show the final newline's change:\n%s", r.Diff)
			}
		})
	}
}

func TestEditFinalNewlineRefusals(t *testing.T) {
	cases := []struct {
		name, in, ops, code, says string
	}{
		{"already ends with a newline", "a\n", "EOF NEWLINE", wire.ToolNoChange, "already ends with a newline"},
		{"already has none", "a", "EOF NO-NEWLINE", wire.ToolNoChange, "has no newline at its end"},
		{"CRLF already ends with one", "a\r\n", "EOF NEWLINE", wire.ToolNoChange, "already"},
		{"empty file has no last line", "", "EOF NEWLINE", wire.ToolRangeInvalid, "no last line"},
		{"a file that is only a newline", "\n", "EOF NO-NEWLINE", wire.ToolRangeInvalid, "empty"},
		{"an empty last line", "a\n\n", "EOF NO-NEWLINE", wire.ToolRangeInvalid, "delete the empty line"},
		{"everything cut", "a\n", "CUT 1.=1\nEOF NEWLINE", wire.ToolRangeInvalid, "no lines"},
		{"twice", "a\n", "EOF NEWLINE\nEOF NO-NEWLINE", wire.ToolInvalidArgument, "second EOF"},
		{"with REM", "a\n", "REM\nEOF NEWLINE", wire.ToolInvalidArgument, "only op"},
		{"body rows under it", "a\n", "EOF NEWLINE\n+x", wire.ToolParseFailed, "takes no body rows"},
		{"unknown state", "a\n", "EOF YES", wire.ToolParseFailed, "NO-NEWLINE"},
		{"a heredoc end written without +", "a\n", "EOF", wire.ToolParseFailed, "+EOF"},
		{"not canonical", "a\n", "EOF NL", wire.ToolParseFailed, "EOF NEWLINE"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEditEnv(t)
			e.write("f.txt", tc.in)
			r := e.edit("f.txt", e.showAll("f.txt"), tc.ops)
			wantCode(t, r, tc.code)
			if !strings.Contains(r.Error.Message, tc.says) {
				t.Fatalf("message lacks %q: %s", tc.says, r.Error.Message)
			}
			wantFile(t, e, "f.txt", tc.in)
		})
	}
}

// A stale tag with only an EOF op is position-stable, like >$: the final
// newline is where it is whatever changed above it.
func TestEditFinalNewlineOnStaleTag(t *testing.T) {
	e := newEditEnv(t)
	e.write("f.txt", "a\nb")
	tag := e.showAll("f.txt")
	e.write("f.txt", "a\nB\nc")
	r := e.edit("f.txt", tag, "EOF NEWLINE")
	wantOK(t, r)
	wantFile(t, e, "f.txt", "a\nB\nc\n")
	if len(r.Warnings) != 1 {
		t.Fatalf("want the drift warning, got %v", r.Warnings)
	}
}

// Recovered onto a changed file, an edit whose lines come out as they
// are still sets the final newline.
func TestEditFinalNewlineWithRecoveredNoOpLines(t *testing.T) {
	e := newEditEnv(t)
	e.write("f.txt", "a\nb\nc")
	tag := e.showAll("f.txt")
	e.write("f.txt", "top\na\nb\nc")
	r := e.edit("f.txt", tag, "PUT 2.=2:\n+b\nEOF NEWLINE")
	wantOK(t, r)
	wantFile(t, e, "f.txt", "top\na\nb\nc\n")
}

// Read shows whether the file ends with a newline: the marker follows the
// last line when it has none, and only when that line is in the window.
func TestReadMarksMissingFinalNewline(t *testing.T) {
	e := newProdEnv(t, config.DefaultLimits())
	e.put("none.txt", "a\nb")
	e.put("crlf.txt", "a\r\nb")
	e.put("nl.txt", "a\nb\n")
	e.put("empty.txt", "")
	for _, tc := range []struct {
		path   string
		offset int
		limit  int
		marked bool
	}{
		{"none.txt", 1, 0, true},
		{"crlf.txt", 1, 0, true},
		{"none.txt", 1, 1, false}, // the last line is not shown
		{"none.txt", 2, 1, true},
		{"nl.txt", 1, 0, false},
		{"empty.txt", 1, 0, false},
	} {
		args := map[string]any{"path": tc.path, "offset": tc.offset}
		if tc.limit > 0 {
			args["limit"] = tc.limit
		}
		r := e.read(args)
		if strings.Contains(r.Content, noFinalNewline) != tc.marked {
			t.Errorf("%s offset %d limit %d: marked %v, want %v:\n%s", tc.path, tc.offset, tc.limit, !tc.marked, tc.marked, r.Content)
		}
		if tc.marked && !strings.Contains(r.Content, "2:b\n"+noFinalNewline) {
			t.Errorf("%s: the marker does not follow the last line:\n%s", tc.path, r.Content)
		}
	}
}
