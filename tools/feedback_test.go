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
	"github.com/hostd-dev/hostd/tools/blocks"
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
	withFeedbackFunc(e, treesFeedback(trees, e.lim.MaxBlockParseBytes))
	return trees
}

func withFeedbackFunc(e *editEnv, f FeedbackFunc) {
	e.x = NewExecutor(Options{Sessions: e.m, Limits: e.lim, Tools: Builtin(), Feedback: f})
}

// treesFeedback is cmd/hostd's syntaxFeedback over an in-process cache.
func treesFeedback(trees *blocks.Trees, maxBytes int64) FeedbackFunc {
	return func(ctx context.Context, path, before string, hadBefore bool, after string, copies []workspace.Copy) ([]SyntaxError, error) {
		lc := make([]blocks.LineCopy, len(copies))
		for i, c := range copies {
			lc[i] = blocks.LineCopy{New: c.New, Old: c.Old, N: c.N}
		}
		found, err := trees.AddedErrors(ctx, path, before, hadBefore, after, lc, maxBytes)
		out := make([]SyntaxError, len(found))
		for i, r := range found {
			out[i] = SyntaxError{StartLine: r.Start, EndLine: r.End, Missing: r.Missing}
		}
		return out, err
	}
}

func (e *editEnv) writeTool(path, content string) *WriteResult {
	e.t.Helper()
	args, _ := json.Marshal(map[string]string{"path": path, "content": content})
	out, err := e.x.Execute(context.Background(), Request{SessionID: e.s.ID, Tool: "write", Args: args})
	if err != nil {
		e.t.Fatal(err)
	}
	return out.(*WriteResult)
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
		f    FeedbackFunc
	}{
		{"an error", func(context.Context, string, string, bool, string, []workspace.Copy) ([]SyntaxError, error) {
			return nil, errors.New("the worker ended")
		}},
		{"slower than the parse time", func(ctx context.Context, _, _ string, _ bool, _ string, _ []workspace.Copy) ([]SyntaxError, error) {
			<-never
			return []SyntaxError{{StartLine: 1, EndLine: 1}}, nil
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
	withFeedbackFunc(e, func(_ context.Context, path, before string, had bool, after string, copies []workspace.Copy) ([]SyntaxError, error) {
		got = append(got, call{path, before, after, had, copies})
		return nil, nil
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
	e.x = NewExecutor(Options{Sessions: e.m, Limits: e.lim, Tools: Builtin(), Warm: func(path, text string) {
		got = append(got, warmed{path, text})
	}})
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
	first := run("read", map[string]any{"path": "a.go"}).(*ReadResult)
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
