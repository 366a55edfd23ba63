package tools

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/tools/syntax"
)

// Boundary repair asks instead of answering (edit-contract §8.4, issue 28):
// the shapes of real edits it changed, the check that cannot run, and the
// memory of what it asked.

// chainStep is one call of a chained replay: the ops, and whether repair
// asks about them first (then the same ops are sent again, as the model
// that meant them does).
type chainStep struct {
	ops  string
	asks string // a fragment of the question, "" when it must not ask
}

// replayChain sends each step with the tag the previous result handed
// back, and returns the file.
func replayChain(t *testing.T, e *editEnv, path string, steps []chainStep) string {
	t.Helper()
	tag := e.showAll(path)
	for i, st := range steps {
		r := e.edit(path, tag, st.ops)
		if st.asks != "" {
			before := e.file(path)
			wantCode(t, r, wire.ToolRepairAmbiguous)
			if !strings.Contains(r.Error.Message, st.asks) {
				t.Fatalf("step %d: question %q does not say %q", i+1, r.Error.Message, st.asks)
			}
			if e.file(path) != before {
				t.Fatalf("step %d: the question wrote the file", i+1)
			}
			r = e.edit(path, tag, st.ops)
		}
		wantOK(t, r)
		if len(r.Warnings) != 0 {
			t.Fatalf("step %d: warnings %q", i+1, r.Warnings)
		}
		tag = r.Tag
	}
	return e.file(path)
}

// The four real edits of issue 28 that boundary repair changed, as small
// files of the same shape. Each edit was honest: the model meant what it
// sent. Repair used to answer (keep the closer, drop the restated row)
// and every later hunk of the chain landed one line off; now it asks, the
// same edit sent again lands as sent, and the chain ends in the commit's
// file.
func TestEditReplayedShapesLandAsSent(t *testing.T) {
	t.Run("a closer the edit deletes while the intermediate state does not parse (TypeScript, as in ky)", func(t *testing.T) {
		e := newEditEnv(t)
		withRepair(e)
		e.write("Ky.ts", "export function f(a: number) {\n  if (a > 0) {\n    log(a);\n  }\n  return a;\n}\n\nexport function g() {\n  return 1;\n}\n")
		got := replayChain(t, e, "Ky.ts", []chainStep{
			{"PUT 3.=4:\n+    log(a);\n+    return a;", `"PUT 3.=4:" deletes line 4 "  }"`},
			{"PUT 5.=5:\n+  }\n+  return 0;", ""},
		})
		if want := "export function f(a: number) {\n  if (a > 0) {\n    log(a);\n    return a;\n  }\n  return 0;\n}\n\nexport function g() {\n  return 1;\n}\n"; got != want {
			t.Fatalf("file:\n%s\nwant:\n%s", got, want)
		}
	})
	t.Run("a closer of an inner block the edit deletes (Kotlin script, as in moshi)", func(t *testing.T) {
		e := newEditEnv(t)
		withRepair(e)
		e.write("build.gradle.kts", "android {\n  defaultConfig {\n    minSdk = 21\n  }\n  compileSdk = 34\n}\n")
		got := replayChain(t, e, "build.gradle.kts", []chainStep{
			{"PUT 4.=4:\n+    compileSdk = 34", `"PUT 4.=4:" deletes line 4 "  }"`},
			{"PUT 5.=5:\n+  }", ""},
		})
		if want := "android {\n  defaultConfig {\n    minSdk = 21\n    compileSdk = 34\n  }\n}\n"; got != want {
			t.Fatalf("file:\n%s\nwant:\n%s", got, want)
		}
	})
	t.Run("a closer the edit deletes, one line longer if kept (Rust, as in serde_json)", func(t *testing.T) {
		e := newEditEnv(t)
		withRepair(e)
		e.write("read.rs", "fn f(x: u32) -> u32 {\n    if x > 0 {\n        log(x);\n    }\n    x\n}\n")
		got := replayChain(t, e, "read.rs", []chainStep{
			{"PUT 3.=4:\n+        log(x);\n+        return x;", `"PUT 3.=4:" deletes line 4 "    }"`},
			{"PUT 5.=5:\n+    }\n+    0", ""},
		})
		if want := "fn f(x: u32) -> u32 {\n    if x > 0 {\n        log(x);\n        return x;\n    }\n    0\n}\n"; got != want {
			t.Fatalf("file:\n%s\nwant:\n%s", got, want)
		}
	})
	t.Run("a repeated XML line the model really adds, twice in a chain (as in guzzle's psalm baseline)", func(t *testing.T) {
		e := newEditEnv(t)
		withRepair(e)
		block := func(n string) string {
			return "    <PossiblyInvalidArgument occurrences=\"" + n + "\">\n      <code>$this-&gt;_mh</code>\n"
		}
		e.write("psalm-baseline.xml", "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<files psalm-version=\"5.x\">\n"+
			"  <file src=\"src/Client.php\">\n"+block("7")+"    </PossiblyInvalidArgument>\n  </file>\n"+
			"  <file src=\"src/Pool.php\">\n"+block("1")+"    </PossiblyInvalidArgument>\n  </file>\n</files>\n")
		got := replayChain(t, e, "psalm-baseline.xml", []chainStep{
			{"PUT 4.=4:\n+    <PossiblyInvalidArgument occurrences=\"8\">\n+      <code>$this-&gt;_mh</code>", `body row 2 "      <code>$this-&gt;_mh</code>" is the same text as line 5 just below the range`},
			{"PUT 10.=10:\n+    <PossiblyInvalidArgument occurrences=\"2\">\n+      <code>$this-&gt;_mh</code>", `is the same text as line 11 just below the range`},
		})
		code := "      <code>$this-&gt;_mh</code>\n"
		if want := "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<files psalm-version=\"5.x\">\n" +
			"  <file src=\"src/Client.php\">\n" + block("8") + code + "    </PossiblyInvalidArgument>\n  </file>\n" +
			"  <file src=\"src/Pool.php\">\n" + block("2") + code + "    </PossiblyInvalidArgument>\n  </file>\n</files>\n"; got != want {
			t.Fatalf("file:\n%s\nwant:\n%s", got, want)
		}
	})
}

// unavailableSyntax is a checker for a file with a grammar whose checks
// cannot run: every text is declined, as when the parse workers are busy
// with another session's runaway parses (issue 28).
type unavailableSyntax struct{}

func (unavailableSyntax) Check(string) (bool, bool) { return false, false }
func (unavailableSyntax) Language() string          { return "javascript" }

// When the syntax check cannot run, repair neither drops nor keeps a row
// on a guess: the rows are written as sent, with a warning that the check
// could not run (issue 28 item 2). The exact case: the last row
// restates line 4, and only with it does the result parse.
func TestEditRepairWritesAsSentWhenTheCheckCannotRun(t *testing.T) {
	const src = "function f() {\nif (a) {\nb();\n}\n}\n"
	const ops = "PUT 3.=3:\n+if (c) {\n+d();\n+}"
	const asSent = "function f() {\nif (a) {\nif (c) {\nd();\n}\n}\n}\n"
	for _, tc := range []struct {
		name   string
		setup  func(*editEnv)
		reason string // "" when the check runs and no warning is due
	}{
		{"a checker that cannot judge", func(e *editEnv) {
			e.x = NewExecutor(Options{Sessions: e.m, Limits: e.lim, Tools: Builtin(), Parser: parserParts{checker: func(context.Context, string, string) syntax.Checker {
				return unavailableSyntax{}
			}}})
		}, "the checker could not judge a text"},
		{"no checker at all", func(*editEnv) {}, "no syntax checker is available"},
		{"a checker that runs: the row the parse needs stays, no warning", withRepair, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEditEnv(t)
			tc.setup(e)
			e.write("f.js", src)
			r := e.edit("f.js", e.showAll("f.js"), ops)
			wantOK(t, r)
			wantFile(t, e, "f.js", asSent)
			if tc.reason == "" {
				if len(r.Warnings) != 0 {
					t.Fatalf("warnings %q", r.Warnings)
				}
				return
			}
			if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "could not run its syntax check ("+tc.reason) ||
				!strings.Contains(r.Warnings[0], `body row 3 "}" of "PUT 3.=3:", now line 5,`) || !strings.Contains(r.Warnings[0], "remove it with CUT 5") {
				t.Fatalf("warnings %q, want the one saying the check could not run, naming the row at line 5", r.Warnings)
			}
		})
	}
}

// What repair asked is remembered per session and per request: the same
// ops with the same tag land as sent, other ops (or another session) are
// asked afresh, and an answered question is forgotten.
func TestEditRepairRemembersWhatItAsked(t *testing.T) {
	e := newEditEnv(t)
	withRepair(e)
	e.write("notes.txt", "a\nb\nc\n")
	tag := e.showAll("notes.txt")
	wantCode(t, e.edit("notes.txt", tag, "PUT 2.=2:\n+a\n+B"), wire.ToolRepairAmbiguous)
	if n := e.s.State().Asked.Len(); n != 1 {
		t.Fatalf("%d questions remembered, want 1", n)
	}
	// Other ops are another request.
	wantCode(t, e.edit("notes.txt", tag, "PUT 2.=2:\n+a\n+b2"), wire.ToolRepairAmbiguous)
	// Another session that read the same version is asked for itself.
	other, err := e.m.Create("", e.s.State().Workspace)
	if err != nil {
		t.Fatal(err)
	}
	otherTag := e.showIn(other, "notes.txt", 1, 3)
	wantCode(t, e.editAs(other, "", "notes.txt", otherTag, "PUT 2.=2:\n+a\n+B"), wire.ToolRepairAmbiguous)
	wantFile(t, e, "notes.txt", "a\nb\nc\n")
	// The same request again lands as sent, spelled either way.
	wantOK(t, e.edit("notes.txt#"+tag, "", "PUT 2:\n+a\n+B"))
	wantFile(t, e, "notes.txt", "a\na\nB\nc\n")
	if n := e.s.State().Asked.Len(); n != 1 {
		t.Fatalf("%d questions remembered after one was answered, want 1 (the other ops)", n)
	}
}

// Every op a warning or an error suggests is in the line numbers of the
// tag that result hands back: the new tag of an edit that landed, the live
// tag of a mismatch, or, for a refusal that hands back none, the tag the
// model sent (issue 28: a warning's advice in the old version's numbers
// deleted the wrong line). Each case follows the suggestion with that tag
// and checks the file.
func TestEditSuggestedOpsUseTheTagHandedBack(t *testing.T) {
	const ts = "const a = 1;\nfunction f(x: number) {\n  if (x) {\n    old();\n  }\n  return x;\n}\n"
	const moved = "// one\n// two\n" // lines another program puts above, after the read
	// suggested is the last op in msg that starts with verb (a message
	// quotes the op it is about first, and ends with what to do): the
	// verb, a locator and the colon of a body.
	suggested := func(t *testing.T, msg, verb string) string {
		t.Helper()
		ops := regexp.MustCompile(verb+`[<>]?[0-9]+(\.=[0-9]+)?:?`).FindAllString(msg, -1)
		if len(ops) == 0 {
			t.Fatalf("message %q suggests no %q op", msg, verb)
		}
		return ops[len(ops)-1]
	}
	t.Run("a repair question's forms, in the numbers of the tag sent", func(t *testing.T) {
		e := newEditEnv(t)
		withRepair(e)
		e.write("m.ts", ts)
		tag := e.showAll("m.ts")
		form := repairedForm(t, e.edit("m.ts", tag, "PUT 4.=5:\n+    fresh();"))
		wantOK(t, e.edit("m.ts", tag, form))
		wantFile(t, e, "m.ts", strings.Replace(ts, "old()", "fresh()", 1))
	})
	t.Run("a repair question on a recovered edit: the forms are in the old tag's numbers", func(t *testing.T) {
		e := newEditEnv(t)
		withRepair(e)
		e.write("m.ts", ts)
		tag := e.showAll("m.ts")
		e.write("m.ts", moved+ts) // lines 4-5 are now 6-7
		r := e.edit("m.ts", tag, "PUT 4.=5:\n+    fresh();")
		form := repairedForm(t, r)
		if form != "PUT 4.=4:\n+    fresh();\n" || !strings.Contains(r.Content, "send one of these with tag "+tag) {
			t.Fatalf("repaired form %q, content:\n%s\nwant it in the numbers of tag %s", form, r.Content, tag)
		}
		wantOK(t, e.edit("m.ts", tag, form))
		wantFile(t, e, "m.ts", moved+strings.Replace(ts, "old()", "fresh()", 1))
	})
	t.Run("the warning of a check that could not run, in the new tag's numbers", func(t *testing.T) {
		e := newEditEnv(t) // no checker
		e.write("notes.txt", "a\nb\nc\n")
		r := e.edit("notes.txt", e.showAll("notes.txt"), "PUT <1:\n+top\nPUT 2.=2:\n+a\n+B")
		wantOK(t, r)
		op := suggested(t, r.Warnings[0], "CUT ")
		wantOK(t, e.edit("notes.txt", r.Tag, op))
		wantFile(t, e, "notes.txt", "top\na\nB\nc\n")
	})
	t.Run("a closer not kept, in the new tag's numbers", func(t *testing.T) {
		e := newEditEnv(t)
		withRepair(e)
		e.write("f.ts", "// head\nfunction f(a: boolean) {\n  if (a) {\n    x();\n  }\n  y();\n}\n")
		r := e.edit("f.ts", e.showAll("f.ts"), "PUT <1:\n+// top\nPUT 3.=5:\n+  try {\n+    if (a) {\n+      x();\n+    }")
		wantOK(t, r)
		op := suggested(t, r.Warnings[0], "PUT <")
		wantOK(t, e.edit("f.ts", r.Tag, op+"\n+  }"))
		wantFile(t, e, "f.ts", "// top\n// head\nfunction f(a: boolean) {\n  try {\n    if (a) {\n      x();\n    }\n  }\n  y();\n}\n")
	})
	t.Run("a declined block op's plain range, in the numbers of the tag sent", func(t *testing.T) {
		for _, drifted := range []bool{false, true} {
			e := newEditEnv(t)
			withBlocks(e)
			e.write("m.ts", ts)
			tag := e.showAll("m.ts")
			head := ""
			if drifted {
				head = moved
				e.write("m.ts", moved+ts)
			}
			r := e.edit("m.ts", tag, "CUT 5*")
			wantCode(t, r, wire.ToolBlockUnresolved)
			wantOK(t, e.edit("m.ts", tag, suggested(t, r.Error.Message, "CUT ")))
			wantFile(t, e, "m.ts", head+"const a = 1;\nfunction f(x: number) {\n  return x;\n}\n")
		}
	})
	t.Run("an overlap's merged range, in the numbers of the tag sent", func(t *testing.T) {
		e := newEditEnv(t)
		e.write("m.ts", ts)
		tag := e.showAll("m.ts")
		r := e.edit("m.ts", tag, "CUT 3.=4\nPUT 4.=5:\n+z")
		wantCode(t, r, wire.ToolRangeInvalid)
		wantOK(t, e.edit("m.ts", tag, suggested(t, r.Error.Message, "PUT ")+"\n+  z();"))
		wantFile(t, e, "m.ts", "const a = 1;\nfunction f(x: number) {\n  z();\n  return x;\n}\n")
	})
	t.Run("a parse error's corrected header, in the numbers of the tag sent", func(t *testing.T) {
		e := newEditEnv(t)
		e.write("m.ts", ts)
		tag := e.showAll("m.ts")
		r := e.edit("m.ts", tag, "PUT 4.=4\n+    fresh();")
		wantCode(t, r, wire.ToolParseFailed)
		wantOK(t, e.edit("m.ts", tag, suggested(t, r.Error.Message, "PUT ")+"\n+    fresh();"))
		wantFile(t, e, "m.ts", strings.Replace(ts, "old()", "fresh()", 1))
	})
	t.Run("a mismatch's context, in the numbers of the live tag it hands back", func(t *testing.T) {
		e := newEditEnv(t)
		e.write("m.ts", ts)
		tag := e.showAll("m.ts")
		e.write("m.ts", moved+strings.Replace(ts, "    old();", "    older();", 1))
		r := e.edit("m.ts", tag, "PUT 4.=4:\n+    new();")
		wantCode(t, r, wire.ToolTagMismatch)
		live := r.Error.Details.(wire.TagMismatchDetails).LiveTag
		if !strings.Contains(r.Content, "6:    older();") {
			t.Fatalf("context:\n%s\nwant line 6 at its live number", r.Content)
		}
		wantOK(t, e.edit("m.ts", live, "PUT 6.=6:\n+    new();"))
		wantFile(t, e, "m.ts", moved+strings.Replace(ts, "    old();", "    new();", 1))
	})
}
