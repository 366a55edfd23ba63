package tools

import (
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/rpc/wire"
)

func withRepair(e *editEnv) {
	e.x = NewExecutor(Options{Sessions: e.m, Limits: e.lim, Tools: Builtin(), Parser: parserParts{checker: e.inProcess().Checker}})
}

// repairedForm is the first repaired form a repair question offers.
func repairedForm(t *testing.T, r *wire.EditResult) string {
	t.Helper()
	wantCode(t, r, wire.ToolRepairAmbiguous)
	d, _ := r.Error.Details.(wire.RepairAmbiguousDetails)
	forms := d.Repaired
	if len(forms) == 0 {
		t.Fatalf("the question offers no repaired form: %#v", r.Error.Details)
	}
	return forms[0]
}

func TestEditBoundaryRepair(t *testing.T) {
	t.Run("a restated line just outside the range is asked about, and either answer lands", func(t *testing.T) {
		e := newEditEnv(t)
		withRepair(e)
		e.write("notes.txt", "a\nb\nc\n")
		tag := e.showAll("notes.txt")
		r := e.edit("notes.txt", tag, "PUT 2.=2:\n+a\n+B")
		if got := repairedForm(t, r); got != "PUT 2.=2:\n+B\n" {
			t.Fatalf("repaired form %q", got)
		}
		wantFile(t, e, "notes.txt", "a\nb\nc\n")
		want := "[notes.txt#" + tag + "] nothing written: send one of these with tag " + tag + "\n" +
			"as sent (this same edit again applies exactly so):\nPUT 2.=2:\n+a\n+B\nas repaired:\nPUT 2.=2:\n+B"
		if !strings.HasSuffix(r.Content, want) || !strings.Contains(r.Error.Message, `body row 1 "a" is the same text as line 1 just above the range`) {
			t.Fatalf("content:\n%s\nwant it to end:\n%s", r.Content, want)
		}
		wantOK(t, e.edit("notes.txt", tag, repairedForm(t, r)))
		wantFile(t, e, "notes.txt", "a\nB\nc\n")

		e.write("other.txt", "a\nb\nc\n")
		tag = e.showAll("other.txt")
		wantCode(t, e.edit("other.txt", tag, "PUT 2.=2:\n+a\n+B"), wire.ToolRepairAmbiguous)
		r = e.edit("other.txt", tag, "PUT 2.=2:\n+a\n+B")
		wantOK(t, r)
		wantFile(t, e, "other.txt", "a\na\nB\nc\n")
		if len(r.Warnings) != 0 {
			t.Fatalf("the answered question warns again: %v", r.Warnings)
		}
	})
	t.Run("a swallowed closing brace is asked about; the repaired form keeps it", func(t *testing.T) {
		e := newEditEnv(t)
		withRepair(e)
		src := "function f(x: boolean) {\n  if (x) {\n    old();\n  }\n}\n"
		e.write("m.ts", src)
		tag := e.showAll("m.ts")
		r := e.edit("m.ts", tag, "PUT 3.=4:\n+    fresh();")
		if got := repairedForm(t, r); got != "PUT 3.=3:\n+    fresh();\n" {
			t.Fatalf("repaired form %q", got)
		}
		wantFile(t, e, "m.ts", src)
		wantOK(t, e.edit("m.ts", tag, repairedForm(t, r)))
		wantFile(t, e, "m.ts", "function f(x: boolean) {\n  if (x) {\n    fresh();\n  }\n}\n")
	})
	t.Run("without a grammar a swallowed row is never kept", func(t *testing.T) {
		e := newEditEnv(t)
		withRepair(e)
		src := "if x {\n  old\n}\nrest\n"
		e.write("notes.txt", src)
		r := e.edit("notes.txt", e.showAll("notes.txt"), "PUT 2.=3:\n+  fresh")
		wantOK(t, r)
		wantFile(t, e, "notes.txt", "if x {\n  fresh\nrest\n")
		if len(r.Warnings) != 0 {
			t.Fatalf("unexpected warnings %v", r.Warnings)
		}
	})
}

// The diff in the result is bounded; the review record keeps the change.
func TestEditDiffIsBounded(t *testing.T) {
	e := newEditEnv(t)
	e.lim.MaxResultBytes = 300
	e.x = NewExecutor(Options{Sessions: e.m, Limits: e.lim, Tools: Builtin()})
	e.write("f.txt", strings.Repeat("a long line of old text\n", 100))
	r := e.edit("f.txt", e.showAll("f.txt"), "REM")
	wantOK(t, r)
	if len(r.Diff) > 400 || !strings.Contains(r.Diff, "diff cut at") {
		t.Fatalf("diff %d bytes:\n%s", len(r.Diff), r.Diff)
	}
}

// A replacement whose only row repeats its neighbour is asked about: the
// repaired form is the deletion it would be without the row, and the same
// edit sent again lands as sent.
func TestEditRepairQuestionHasBothWaysOut(t *testing.T) {
	e := newEditEnv(t)
	withRepair(e)
	e.write("notes.txt", "a\nold\n}\n")
	tag := e.showAll("notes.txt")
	r := e.edit("notes.txt", tag, "PUT 2.=2:\n+}")
	if got := repairedForm(t, r); got != "CUT 2.=2\n" {
		t.Fatalf("repaired form %q, want the deletion", got)
	}
	wantOK(t, e.edit("notes.txt", tag, "PUT 2.=2:\n+}"))
	wantFile(t, e, "notes.txt", "a\n}\n}\n")
}

// A chained change that wraps an if-block in try { in one call and closes
// it with a catch in the next: the first result does not parse, honestly,
// and retention must not keep the closer the first call moved into its
// body (edit-contract §8.4; the replay of issue 17 saw this land wrong).
func TestEditRetentionLeavesAnOpenTryToTheNextCall(t *testing.T) {
	e := newEditEnv(t)
	withRepair(e)
	head := strings.Repeat("// filler so the block sits where it did\n", 814)
	e.write("profile.ts", head+
		"export async function loadProfile(id: string): Promise<Profile> {\n"+
		"  const res = await fetch(`/api/profiles/${id}`);\n"+
		"  const body = await res.json();\n"+
		"  if (!res.ok) {\n"+
		"    throw new ProfileError(id, res.status, body.message);\n"+
		"  }\n"+
		"  return parseProfile(body);\n"+
		"}\n")
	r := e.edit("profile.ts", e.showAll("profile.ts"), "PUT 818.=820:\n+  try {\n+    if (!res.ok) {\n"+
		"+      throw new ProfileError(id, res.status, body.message);\n+    }")
	wantOK(t, r)
	if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], `line 820 "  }", which the range covers, was not kept`) {
		t.Fatalf("want the note that the closer was not kept, got %v", r.Warnings)
	}
	r = e.edit("profile.ts", r.Tag, "PUT 822.=822:\n+    return parseProfile(body);\n+  } catch (err) {\n+    throw wrapError(id, err);\n+  }")
	wantOK(t, r)
	wantFile(t, e, "profile.ts", head+
		"export async function loadProfile(id: string): Promise<Profile> {\n"+
		"  const res = await fetch(`/api/profiles/${id}`);\n"+
		"  const body = await res.json();\n"+
		"  try {\n"+
		"    if (!res.ok) {\n"+
		"      throw new ProfileError(id, res.status, body.message);\n"+
		"    }\n"+
		"    return parseProfile(body);\n"+
		"  } catch (err) {\n"+
		"    throw wrapError(id, err);\n"+
		"  }\n"+
		"}\n")
}

// When the closer was meant to stay after all, the note's edit puts it
// back where retention would have kept it.
func TestEditRetentionNoteNamesTheWayBack(t *testing.T) {
	e := newEditEnv(t)
	withRepair(e)
	src := "function f(a: boolean) {\n  if (a) {\n    x();\n  }\n  y();\n}\n"
	e.write("f.ts", src)
	r := e.edit("f.ts", e.showAll("f.ts"), "PUT 2.=4:\n+  try {\n+    if (a) {\n+      x();\n+    }")
	wantOK(t, r)
	const way = `insert it after the body with PUT <6: and the row "  }"`
	if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], way) {
		t.Fatalf("warnings %v, want one naming %s", r.Warnings, way)
	}
	wantOK(t, e.edit("f.ts", r.Tag, "PUT <6:\n+  }"))
	wantFile(t, e, "f.ts", "function f(a: boolean) {\n  try {\n    if (a) {\n      x();\n    }\n  }\n  y();\n}\n")
}

// A blank row is never a restatement (edit-contract §8.4), in a CRLF file
// too, whose blank lines are blank once their ending is set aside.
func TestEditBlankRowBesideABlankLineInACRLFFile(t *testing.T) {
	e := newEditEnv(t)
	withRepair(e)
	e.write("README.md", "# hostd\r\n\r\nA daemon.\r\n")
	r := e.edit("README.md", e.showAll("README.md"), "PUT 1.=1:\n+# hostd, the daemon\n+")
	wantOK(t, r)
	wantFile(t, e, "README.md", "# hostd, the daemon\r\n\r\n\r\nA daemon.\r\n")
	if len(r.Warnings) != 0 {
		t.Fatalf("warnings %v", r.Warnings)
	}
}
