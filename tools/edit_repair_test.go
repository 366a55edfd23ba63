package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/tools/blocks"
	"github.com/hostd-dev/hostd/tools/hashline"
)

func withRepair(e *editEnv) {
	e.x = NewExecutor(Options{Sessions: e.m, Limits: e.lim, Tools: Builtin(), Syntax: func(ctx context.Context, path, text string) hashline.Syntax {
		s, err := blocks.NewSyntaxContext(ctx, path, text, e.lim.MaxBlockParseBytes)
		if err != nil {
			return nil
		}
		return s
	}})
}

func TestEditBoundaryRepair(t *testing.T) {
	t.Run("a restated line just outside the range is dropped with a warning", func(t *testing.T) {
		e := newEditEnv(t)
		withRepair(e)
		e.write("notes.txt", "a\nb\nc\n")
		r := e.edit("notes.txt", e.showAll("notes.txt"), "PUT 2.=2:\n+a\n+B")
		wantOK(t, r)
		wantFile(t, e, "notes.txt", "a\nB\nc\n")
		if len(r.Warnings) != 1 || !strings.Contains(r.Content, "Warning: ") {
			t.Fatalf("repair not warned: %v", r.Warnings)
		}
	})
	t.Run("a swallowed closing brace is kept when syntax proves it", func(t *testing.T) {
		e := newEditEnv(t)
		withRepair(e)
		src := "function f(x: boolean) {\n  if (x) {\n    old();\n  }\n}\n"
		e.write("m.ts", src)
		r := e.edit("m.ts", e.showAll("m.ts"), "PUT 3.=4:\n+    fresh();")
		wantOK(t, r)
		wantFile(t, e, "m.ts", "function f(x: boolean) {\n  if (x) {\n    fresh();\n  }\n}\n")
		if len(r.Warnings) != 1 {
			t.Fatalf("want one repair warning, got %v", r.Warnings)
		}
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

// A replacement whose only row repeats its neighbour is refused as
// ambiguous, and the refusal names a form that is never repaired; that
// form lands.
func TestEditRepairAmbiguityHasAWayOut(t *testing.T) {
	e := newEditEnv(t)
	withRepair(e)
	e.write("notes.txt", "a\nold\n}\n")
	tag := e.showAll("notes.txt")
	r := e.edit("notes.txt", tag, "PUT 2.=2:\n+}")
	wantCode(t, r, hashline.CodeRepairAmbiguous)
	if !strings.Contains(r.Error.Message, "CUT 2.=2 and then PUT <3:") {
		t.Fatalf("no way out named: %s", r.Error.Message)
	}
	wantOK(t, e.edit("notes.txt", tag, "CUT 2.=2\nPUT <3:\n+}"))
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
