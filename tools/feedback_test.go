package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/session"
	"github.com/hostd-dev/hostd/tools/blocks"
	"github.com/hostd-dev/hostd/tools/parsepool"
	"github.com/hostd-dev/hostd/tools/syntax"
	"github.com/hostd-dev/hostd/workspace"
)

// withFeedback gives the executor every builtin tool and syntax feedback
// served by one tree cache, as the daemon's workers serve it.
func withFeedback(e *editEnv) *blocks.Trees {
	trees, err := blocks.NewTrees(1 << 30)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(trees.Close)
	withFeedbackFunc(e, parsepool.InProcess(trees, e.lim.MaxBlockParseBytes).AddedErrors)
	return trees
}

func withFeedbackFunc(e *editEnv, f func(context.Context, syntax.Change) (syntax.Found, error)) {
	e.x = NewExecutor(Options{Sessions: e.m, Limits: e.lim, Tools: Builtin(), Parser: parserParts{added: f}})
}

func (e *editEnv) writeTool(path, content string) *wire.WriteResult {
	e.t.Helper()
	args, _ := json.Marshal(map[string]string{"path": path, "content": content})
	out, err := e.x.Execute(context.Background(), Request{SessionID: e.s.ID, Tool: "write", Args: args})
	if err != nil {
		e.t.Fatal(err)
	}
	return out.(*wire.WriteResult)
}

const goFile = "package a\n\nfunc f(x int) int {\n\tif x > 0 {\n\t\treturn x\n\t}\n\treturn 0\n}\n\nfunc g() {}\n"

// An edit that breaks a clean file lands as sent, and its result names
// the new error with its line, in either form; the lines shown become
// seen.
func TestEditNamesTheSyntaxErrorItAdded(t *testing.T) {
	for _, form := range []string{"full", "compact"} {
		t.Run(form, func(t *testing.T) {
			e := newEditEnv(t)
			withFeedback(e)
			e.write("a.go", goFile)
			tag := e.showAll("a.go")
			r := e.editForm("a.go", tag, "PUT 5:\n+\t\treturn (x", form)
			wantOK(t, r)
			wantFile(t, e, "a.go", strings.Replace(goFile, "return x\n", "return (x\n", 1))
			if len(r.SyntaxErrors) != 1 || r.SyntaxErrors[0].StartLine > 5 || r.SyntaxErrors[0].EndLine < 5 {
				t.Fatalf("syntaxErrors %+v, want one holding line 5", r.SyntaxErrors)
			}
			if !strings.Contains(r.Content, "\nsyntax: this change left 1 new error: line") || !strings.Contains(r.Content, "\n5:\t\treturn (x") {
				t.Errorf("content does not name the error and show line 5:\n%s", r.Content)
			}
			if len(r.Warnings) != 0 {
				t.Errorf("warnings %q: the feedback is no warning", r.Warnings)
			}
		})
	}
}

// Errors the file had before are not reported again: an edit elsewhere
// in a broken file, and an edit of the broken line that leaves it broken,
// say nothing; an edit that adds a second error names only that one.
func TestEditDoesNotReportErrorsItFound(t *testing.T) {
	e := newEditEnv(t)
	withFeedback(e)
	broken := strings.Replace(goFile, "return 0\n", "return 0 +\n", 1) // line 7
	e.write("a.go", broken)
	tag := e.showAll("a.go")
	r := e.edit("a.go", tag, "PUT <1:\n+// Package a is a test.")
	wantOK(t, r)
	if len(r.SyntaxErrors) != 0 || strings.Contains(r.Content, "syntax:") {
		t.Fatalf("an edit above an old error reported it: %+v\n%s", r.SyntaxErrors, r.Content)
	}
	r = e.edit("a.go", r.Tag, "PUT 8:\n+\treturn 1 +")
	wantOK(t, r)
	if len(r.SyntaxErrors) != 0 {
		t.Fatalf("rewriting the broken line, still broken, reported it: %+v\n%s", r.SyntaxErrors, r.Content)
	}
	r = e.edit("a.go", r.Tag, "PUT 11:\n+func g() {")
	wantOK(t, r)
	if len(r.SyntaxErrors) != 1 || r.SyntaxErrors[0].EndLine < 11 {
		t.Fatalf("a second error: %+v\n%s", r.SyntaxErrors, r.Content)
	}
}

// Within a chain of edits on the session's own versions, an error of the
// version the session first read is never the chain's: one edit hides it
// (comments it out, leaving its line as it was), the next brings it back.
func TestEditChainDoesNotReportAnErrorTheSessionRead(t *testing.T) {
	e := newEditEnv(t)
	withFeedback(e)
	broken := strings.Replace(goFile, "return 0\n", "return 0 +\n", 1) // line 7
	e.write("a.go", broken)
	tag := e.showAll("a.go")
	r := e.edit("a.go", tag, "PUT <3:\n+/*\nPUT >8:\n+*/")
	wantOK(t, r)
	if len(r.SyntaxErrors) != 0 {
		t.Fatalf("hiding the error reported one: %+v\n%s", r.SyntaxErrors, r.Content)
	}
	r = e.edit("a.go", r.Tag, "CUT 3\nCUT 10")
	wantOK(t, r)
	wantFile(t, e, "a.go", broken)
	if len(r.SyntaxErrors) != 0 || strings.Contains(r.Content, "syntax:") {
		t.Fatalf("the error the session read, back again, was reported as new: %+v\n%s", r.SyntaxErrors, r.Content)
	}
	// A new error of the chain is still named.
	r = e.edit("a.go", r.Tag, "PUT 10:\n+func g() {")
	wantOK(t, r)
	if len(r.SyntaxErrors) != 1 {
		t.Fatalf("a new error: %+v\n%s", r.SyntaxErrors, r.Content)
	}
	// Another session's chain starts from what it reads: the error its
	// first read shows is not its change's either.
	s, err := e.m.CreateWith("", e.s.State().Workspace, session.Prefs{EditResult: session.FormFull})
	if err != nil {
		t.Fatal(err)
	}
	e.s = s
	tag = e.showAll("a.go")
	r = e.edit("a.go", tag, "PUT <1:\n+// Package a.")
	wantOK(t, r)
	if len(r.SyntaxErrors) != 0 {
		t.Fatalf("another session: %+v\n%s", r.SyntaxErrors, r.Content)
	}
}

// Without the chain, the same two edits report the error brought back:
// the edit alone cannot tell it from a new one. A file changed by another
// hand between two edits starts a new chain.
func TestEditChainEndsWhenTheFileChanges(t *testing.T) {
	e := newEditEnv(t)
	withFeedback(e)
	broken := strings.Replace(goFile, "return 0\n", "return 0 +\n", 1)
	hidden := strings.Replace(broken, "func f(", "/*\nfunc f(", 1) + "*/\n"
	e.write("a.go", hidden)
	tag := e.showAll("a.go")
	r := e.edit("a.go", tag, "PUT <1:\n+// Package a.")
	wantOK(t, r)
	e.write("a.go", "// Package a.\n"+hidden+"\n") // another hand: the chain ends
	tag = e.showAll("a.go")
	r = e.edit("a.go", tag, "CUT 4\nCUT 13")
	wantOK(t, r)
	if len(r.SyntaxErrors) != 1 {
		t.Fatalf("an error no version the session read had: %+v\n%s", r.SyntaxErrors, r.Content)
	}
}

// An error region of a grammar that finds errors in valid code too often
// (blocks.GrammarTrust: Swift's misreads Swift Testing's #expect macro)
// is not called the change's: the result says the parser could not read
// those lines, and the region is not among its syntaxErrors; a bracket it
// had to close is still named. A trusted grammar's error is named.
func TestFeedbackOfAnUntrustedGrammarIsUnsure(t *testing.T) {
	e := newEditEnv(t)
	withFeedback(e)
	e.write("a.swift", "import Testing\n\n@Test func adds() {\n  let x = 1 + 1\n}\n")
	tag := e.showAll("a.swift")
	r := e.edit("a.swift", tag, "PUT >4:\n+  #expect(x == 2)")
	wantOK(t, r)
	if len(r.SyntaxErrors) != 0 || strings.Contains(r.Content, "this change left") {
		t.Fatalf("valid Swift was called broken: %+v\n%s", r.SyntaxErrors, r.Content)
	}
	if u := unsureIn(r.Content); len(u) != 1 || u[0].StartLine != 5 || len(r.SyntaxErrors) != 0 || !strings.Contains(r.Content, "\nsyntax: the parser could not read line 5 after this change, which may be no error") || !strings.Contains(r.Content, "\n5:  #expect(x == 2)") {
		t.Fatalf("the unread line is not named as such: %+v\n%s", r.SyntaxErrors, r.Content)
	}
	out, err := json.Marshal(r)
	if err != nil || strings.Contains(string(out), "syntaxErrors") || strings.Contains(string(out), "nsure") {
		t.Fatalf("an unsure region reached the result's data: %s %v", out, err)
	}
	// A closing bracket the parser had to assume is trusted in Swift: its
	// grammar assumed none in the valid files measured.
	e.write("b.swift", "func f(_ x: Int) -> Int {\n  return x\n}\n\nfunc g() {}\n")
	tag = e.showAll("b.swift")
	r = e.edit("b.swift", tag, "PUT 2:\n+  return f(x")
	wantOK(t, r)
	if len(r.SyntaxErrors) != 1 || r.SyntaxErrors[0].Missing != ")" || !strings.Contains(r.Content, "syntax: this change left 1 new error: line 2 (missing \")\")") {
		t.Fatalf("a bracket left open in Swift: %+v %+v\n%s", r.SyntaxErrors, unsureIn(r.Content), r.Content)
	}
	e.write("a.go", goFile)
	tag = e.showAll("a.go")
	r = e.edit("a.go", tag, "PUT 5:\n+\t\treturn (x")
	wantOK(t, r)
	if len(r.SyntaxErrors) != 1 || len(unsureIn(r.Content)) != 0 || !strings.Contains(r.Content, "syntax: this change left 1 new error") {
		t.Fatalf("a Go error: %+v %+v\n%s", r.SyntaxErrors, unsureIn(r.Content), r.Content)
	}
}

// A write of a new broken file names its errors; a write that replaces a
// file with the same error says nothing; a clean write says nothing.
func TestWriteNamesTheSyntaxErrorItAdded(t *testing.T) {
	e := newEditEnv(t)
	withFeedback(e)
	broken := strings.Replace(goFile, "if x > 0 {", "if x > 0 {{", 1)
	r := e.writeTool("b.go", broken)
	if !r.OK || len(r.SyntaxErrors) == 0 || !strings.Contains(r.Content, "\nsyntax: this change left") {
		t.Fatalf("a new broken file: %+v\n%s", r.SyntaxErrors, r.Content)
	}
	r = e.writeTool("b.go", "// Package a.\n"+broken)
	if !r.OK || len(r.SyntaxErrors) != 0 {
		t.Fatalf("the same error, a line lower: %+v\n%s", r.SyntaxErrors, r.Content)
	}
	r = e.writeTool("c.go", goFile)
	if !r.OK || len(r.SyntaxErrors) != 0 || strings.Contains(r.Content, "syntax:") {
		t.Fatalf("a clean file: %+v\n%s", r.SyntaxErrors, r.Content)
	}
}

// A line the feedback shows in full is seen: an edit of an unseen line
// the change broke needs no read.
func TestFeedbackLinesBecomeSeen(t *testing.T) {
	e := newEditEnv(t)
	withFeedback(e)
	e.write("a.go", goFile)
	tag := e.show("a.go", 1, 8)
	// Without f's closing brace, g (line 10, never shown; 9 after the
	// cut) is a declaration inside f's body.
	r := e.edit("a.go", tag, "CUT 8")
	wantOK(t, r)
	if !strings.Contains(r.Content, "\n9:func g() {}") {
		t.Fatalf("the feedback does not show line 9: %q %+v", r.Content, r.SyntaxErrors)
	}
	wantOK(t, e.edit("a.go", r.Tag, "PUT 9:\n+}\n+\n+func g() {}"))
	wantFile(t, e, "a.go", strings.Replace(goFile, "\treturn 0\n}\n", "\treturn 0\n\n}\n", 1))
}

// The check never holds the write up or fails it: one that cannot be
// made says nothing, and one slower than the call's parse time is not
// waited for past it (here: one that never answers while the test runs).
func TestFeedbackThatCannotBeMadeSaysNothing(t *testing.T) {
	lim := config.DefaultLimits()
	lim.MaxParseMs = 100
	// The slow check answers only once the test has ended: the edit is
	// answered (an event) only if it did not wait for it.
	never := make(chan struct{})
	t.Cleanup(func() { close(never) })
	for _, tc := range []struct {
		name string
		f    func(context.Context, syntax.Change) (syntax.Found, error)
	}{
		{"an error", func(context.Context, syntax.Change) (syntax.Found, error) {
			return syntax.Found{}, errors.New("the worker ended")
		}},
		{"slower than the parse time", func(context.Context, syntax.Change) (syntax.Found, error) {
			<-never
			return syntax.Found{Added: []syntax.ErrorRegion{{Start: 1, End: 1}}}, nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEditEnvLimits(t, lim)
			withFeedbackFunc(e, tc.f)
			e.write("a.go", goFile)
			tag := e.showAll("a.go")
			r := e.edit("a.go", tag, "PUT 5:\n+\t\treturn (x")
			wantOK(t, r)
			if len(r.SyntaxErrors) != 0 || strings.Contains(r.Content, "syntax") {
				t.Errorf("%+v\n%s", r.SyntaxErrors, r.Content)
			}
			wantFile(t, e, "a.go", strings.Replace(goFile, "return x\n", "return (x\n", 1))
		})
	}
}

// The check is of the text the call wrote, with the lines it kept: an
// edit hands it the old text, the new text and the edit's own map of
// unchanged lines.
func TestFeedbackIsGivenTheChange(t *testing.T) {
	e := newEditEnv(t)
	type call struct {
		path, before, after string
		had                 bool
		copies              []workspace.Copy
	}
	var got []call
	withFeedbackFunc(e, func(_ context.Context, rq syntax.Change) (syntax.Found, error) {
		got = append(got, call{rq.Path, rq.Before, rq.After, rq.HadBefore, rq.Copies})
		return syntax.Found{}, nil
	})
	e.write("a.go", goFile)
	tag := e.showAll("a.go")
	r := e.edit("a.go", tag, "CUT 3.=8\nPUT >10:\n+// end")
	wantOK(t, r)
	if len(got) != 1 {
		t.Fatalf("%d checks", len(got))
	}
	want := []workspace.Copy{{New: 1, Old: 1, N: 2}, {New: 3, Old: 9, N: 2}}
	if c := got[0]; !c.had || c.before != goFile || c.after != e.file("a.go") || !reflect.DeepEqual(c.copies, want) || !strings.HasSuffix(c.path, "a.go") {
		t.Errorf("check of %+v, want copies %+v", c, want)
	}
}

// TestReadsWarmWhatTheyRecorded: a read (whole, a window, or since a tag)
// hands the version it recorded, as its text, to Warm under the file's
// path, so the edit that follows finds its tree parsed; a read whose text
// is not kept does not. A grep that shows matches warms the first
// grepWarmFiles files whose text it kept, last first (the pool warms the
// newest waiting first); one that lists names or counts warms none.
func TestReadsWarmWhatTheyRecorded(t *testing.T) {
	lim := config.DefaultLimits()
	lim.MaxRetainedFileBytes = 1 << 10
	e := newEditEnvLimits(t, lim)
	type warmed struct{ path, text string }
	var got []warmed
	e.x = NewExecutor(Options{Sessions: e.m, Limits: e.lim, Tools: Builtin(), Parser: parserParts{warm: func(path, text string) {
		got = append(got, warmed{path, text})
	}}})
	e.write("a.go", goFile)
	e.write("big.go", "package a\n\n"+strings.Repeat("// padding past the retention bound\n", 64))
	run := func(tool string, args map[string]any) any {
		t.Helper()
		raw, _ := json.Marshal(args)
		out, err := e.x.Execute(context.Background(), Request{SessionID: e.s.ID, Tool: tool, Args: raw})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	p, err := e.s.State().Workspace.Resolve("a.go", workspace.Read)
	if err != nil {
		t.Fatal(err)
	}
	abs := p.Abs
	first := run("read", map[string]any{"path": "a.go"}).(*wire.ReadResult)
	run("read", map[string]any{"path": "a.go", "offset": 2, "limit": 1})
	e.write("a.go", goFile+"\nvar y = 2\n")
	run("read", map[string]any{"path": "a.go", "since": first.Tag})
	run("read", map[string]any{"path": "big.go"})
	want := []warmed{{abs, goFile}, {abs, goFile}, {abs, goFile + "\nvar y = 2\n"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("warmed %q\nwant %q", got, want)
	}

	got = nil
	var files []warmed
	for i := range grepWarmFiles + 2 {
		name := fmt.Sprintf("g%d.go", i)
		text := fmt.Sprintf("package a\n\nvar match%d = 1\n", i)
		e.write(name, text)
		p, err := e.s.State().Workspace.Resolve(name, workspace.Read)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, warmed{p.Abs, text})
	}
	for _, mode := range []string{"filesWithMatches", "count"} {
		run("grep", map[string]any{"pattern": "var match", "outputMode": mode})
	}
	if len(got) != 0 {
		t.Errorf("a grep that shows no lines warmed %q", got)
	}
	run("grep", map[string]any{"pattern": "var match"})
	want = nil
	for i := grepWarmFiles - 1; i >= 0; i-- {
		want = append(want, files[i])
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("a grep warmed %q\nwant %q", got, want)
	}
}
