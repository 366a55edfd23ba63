package tools

import (
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/rpc/wire"
)

// The tag may travel in the path, spelled as a producer's header shows
// it (edit-contract §6).
func TestEditPathCarriesTheTag(t *testing.T) {
	t.Run("PATH#TAG in place of the tag argument", func(t *testing.T) {
		e := newEditEnv(t)
		e.write("src/a.txt", "one\ntwo\nthree\n")
		tag := e.showAll("src/a.txt")
		r := e.edit("src/a.txt#"+tag, "", "PUT 2:\n+TWO")
		wantOK(t, r)
		wantFile(t, e, "src/a.txt", "one\nTWO\nthree\n")
		if r.Path != "src/a.txt" {
			t.Errorf("result path %q, want the path without the tag", r.Path)
		}
		// Lower case and a chained tag work the same way.
		wantOK(t, e.edit("src/a.txt#"+strings.ToLower(r.Tag), "", "PUT 3:\n+THREE"))
		wantFile(t, e, "src/a.txt", "one\nTWO\nTHREE\n")
	})
	t.Run("a tag given twice must agree", func(t *testing.T) {
		e := newEditEnv(t)
		e.write("a.txt", "one\ntwo\n")
		tag := e.showAll("a.txt")
		wantOK(t, e.edit("a.txt#"+tag, strings.ToLower(tag), "PUT 1:\n+ONE"))
		e.write("b.txt", "one\ntwo\n")
		btag := e.showAll("b.txt")
		other := "0000"
		if btag == other {
			other = "0001"
		}
		r := e.edit("b.txt#"+btag, other, "PUT 1:\n+ONE")
		wantCode(t, r, wire.ToolInvalidArgument)
		if !strings.Contains(r.Error.Message, "must agree") {
			t.Errorf("message %q", r.Error.Message)
		}
		wantFile(t, e, "b.txt", "one\ntwo\n")
	})
	t.Run("the suffix passes the version gate like any tag", func(t *testing.T) {
		// The same calls with the tag in either place end the same way.
		outcome := func(inPath bool) (string, string) {
			e := newEditEnv(t)
			e.write("a.txt", "one\ntwo\n")
			old := e.showAll("a.txt")
			e.write("a.txt", "uno\ndos\ntres\n") // changed by someone else
			var r *wire.EditResult
			if inPath {
				r = e.edit("a.txt#"+old, "", "PUT 2:\n+TWO")
			} else {
				r = e.edit("a.txt", old, "PUT 2:\n+TWO")
			}
			if r.OK {
				t.Fatalf("an edit on a tag of a text someone replaced was accepted: %s", r.Content)
			}
			return r.Error.Code, e.file("a.txt")
		}
		code, file := outcome(true)
		wantCode, wantFile := outcome(false)
		if code != wantCode || file != wantFile || file != "uno\ndos\ntres\n" {
			t.Fatalf("tag in the path: %s, %q; as the argument: %s, %q", code, file, wantCode, wantFile)
		}
	})
	t.Run("a file named with the suffix keeps its name", func(t *testing.T) {
		e := newEditEnv(t)
		e.write("n#BEEF", "x\n")
		e.write("n", "y\n")
		tag := e.showAll("n#BEEF")
		wantOK(t, e.edit("n#BEEF", tag, "PUT 1:\n+X"))
		wantFile(t, e, "n#BEEF", "X\n")
		wantFile(t, e, "n", "y\n")
		// Without a tag argument the whole spelling is still the path.
		wantCode(t, e.edit("n#BEEF", "", "PUT 1:\n+Z"), wire.ToolTagRequired)
	})
	t.Run("no tag anywhere names both spellings", func(t *testing.T) {
		e := newEditEnv(t)
		e.write("a.txt", "one\n")
		r := e.edit("a.txt", "", "PUT 1:\n+ONE")
		wantCode(t, r, wire.ToolTagRequired)
		if !strings.Contains(r.Error.Message, "a.txt#TAG") {
			t.Errorf("message %q does not show the path spelling", r.Error.Message)
		}
		// A '#' that is not followed by a tag is part of the path.
		wantCode(t, e.edit("a.txt#nope", "", "PUT 1:\n+ONE"), wire.ToolTagRequired)
	})
}
