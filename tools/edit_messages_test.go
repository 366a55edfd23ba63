package tools

import (
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/rpc/wire"
)

// Refusals that must name the one step that works (issue 28 item 7,
// issue 24).

// An edit that rewrites a line with its own text, on a line whose ending
// is not the file's dominant one, is a change of ending the language
// cannot say: EDIT_NO_CHANGE names write, which can, instead of a body
// (issue 28 item 7).
func TestEditNoChangeOfALineEndingNamesWrite(t *testing.T) {
	e := newEditEnv(t)
	e.write("mixed.txt", "a\nb\r\nc\n")
	r := e.edit("mixed.txt", e.showAll("mixed.txt"), "PUT 2.=2:\n+b")
	wantCode(t, r, wire.ToolNoChange)
	for _, frag := range []string{`line 2 ends with CRLF where the other lines end with LF`, "an edit cannot change a line ending", "replace the whole file with write"} {
		if !strings.Contains(r.Error.Message, frag) {
			t.Errorf("message %q lacks %q", r.Error.Message, frag)
		}
	}
	if strings.Contains(r.Error.Message, "as the body") {
		t.Errorf("message %q still advises a body", r.Error.Message)
	}
	// On a line with the dominant ending there is nothing to say but that
	// nothing changes.
	r = e.edit("mixed.txt", e.showAll("mixed.txt"), "PUT 1.=1:\n+a")
	wantCode(t, r, wire.ToolNoChange)
	if strings.Contains(r.Error.Message, "with write") {
		t.Errorf("message %q names write for a line that has the dominant ending", r.Error.Message)
	}
	wantFile(t, e, "mixed.txt", "a\nb\r\nc\n")
}

// A tag minted in another session is unknown here even when it is the
// file's current tag, and the refusal says so rather than telling the
// model to use the very tag it sent (issue 24).
func TestEditTagFromAnotherSessionSaysReadFirst(t *testing.T) {
	e := newEditEnv(t)
	e.write("f.txt", "a\nb\n")
	other, err := e.m.Create("", e.s.State().Workspace)
	if err != nil {
		t.Fatal(err)
	}
	tag := e.showIn(other, "f.txt", 1, 2)
	r := e.edit("f.txt", tag, "PUT 1.=1:\n+A")
	wantCode(t, r, wire.ToolTagUnknown)
	msg := r.Error.Message
	if !strings.Contains(msg, "another session") || !strings.Contains(msg, "must read f.txt before editing it") {
		t.Errorf("message %q does not say the tag is another session's and that this one must read first", msg)
	}
	if strings.Contains(msg, "(it is "+tag+" now)") {
		t.Errorf("message %q tells the model to use the tag it sent", msg)
	}
	wantFile(t, e, "f.txt", "a\nb\n")
	// Once this session reads the file, the same edit lands.
	wantOK(t, e.edit("f.txt", e.showAll("f.txt"), "PUT 1.=1:\n+A"))
}
