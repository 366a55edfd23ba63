package tools

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/internal/testenv"
	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/tools/langserver"
	"github.com/hostd-dev/hostd/workspace"
)

// withServers gives the executor every builtin tool and the language
// servers of opt, waiting for them up to wait.
func withServers(e *editEnv, opt langserver.Options, wait time.Duration) *langserver.Manager {
	m := langserver.New(opt)
	e.t.Cleanup(m.Close)
	e.x = NewExecutor(Options{Sessions: e.m, Limits: e.lim, Tools: Builtin(), Diagnostics: m, DiagnosticsWait: wait})
	return m
}

func (e *editEnv) diagnostics(args map[string]any) *wire.DiagnosticsResult {
	e.t.Helper()
	raw, _ := json.Marshal(args)
	out, err := e.x.Execute(context.Background(), Request{SessionID: e.s.ID, Tool: "diagnostics", Args: raw})
	if err != nil {
		e.t.Fatal(err)
	}
	if r, ok := out.(*wire.DiagnosticsResult); ok {
		return r
	}
	return &wire.DiagnosticsResult{ToolResult: *out.Base()}
}

// far: the real servers' tests wait for the answer, not for a time.
const far = 2 * time.Minute

const goMain = "package a\n\nfunc f(x int) int {\n\treturn x + 1\n}\n\nfunc g() int {\n\treturn f(2)\n}\n"

// An edit that breaks the program is told so at the line, with the
// server's message; the error a file already had is not repeated; an
// edit whose break shows on a line it did not touch (a call) is told
// too; the fix clears it.
func TestEditReportsTheErrorsItIntroduced(t *testing.T) {
	testenv.LanguageServer(t, "gopls")
	e := newEditEnv(t)
	withServers(e, langserver.Options{}, far)
	e.write("go.mod", "module example.com/a\n\ngo 1.22\n")
	e.write("a.go", goMain)
	tag := e.showAll("a.go")

	r := e.edit("a.go", tag, "PUT 4:\n+\treturn \"one\"")
	wantOK(t, r)
	if len(r.Diagnostics) != 1 || r.Diagnostics[0].Line != 4 || r.DiagnosticsPending {
		t.Fatalf("diagnostics %+v pending %v, want one at line 4", r.Diagnostics, r.DiagnosticsPending)
	}
	if !strings.Contains(r.Content, "\ndiagnostics (go): this change left 1 new error\nline 4: ") || !strings.Contains(r.Content, "\n4:\treturn \"one\"") {
		t.Fatalf("content:\n%s", r.Content)
	}

	// Another change: the old error stays, and is not new.
	r = e.edit("a.go", r.Tag, "PUT 1:\n+// Package a.\n+package a")
	wantOK(t, r)
	if len(r.Diagnostics) != 0 || strings.Contains(r.Content, "diagnostics") {
		t.Fatalf("an error the file had is reported as new: %+v\n%s", r.Diagnostics, r.Content)
	}

	// The fix, and a break on a line the edit did not touch.
	r = e.edit("a.go", r.Tag, "PUT 4:\n+func f(x int, y int) int {\nPUT 5:\n+\treturn x + y")
	wantOK(t, r)
	if len(r.Diagnostics) != 1 || r.Diagnostics[0].Line != 9 {
		t.Fatalf("diagnostics %+v, want the call at line 9", r.Diagnostics)
	}

	// The diagnostics tool: the file's current errors, by path or as a
	// file the session changed.
	d := e.diagnostics(map[string]any{"path": "a.go"})
	if !d.OK {
		t.Fatalf("diagnostics: %+v", d.Error)
	}
	if got := d.Files["a.go"]; len(got) != 1 || got[0].Line != 9 || !strings.HasPrefix(d.Content, "[a.go#"+r.Tag+"] 1 error\nline 9: ") {
		t.Fatalf("diagnostics tool: %+v\n%s", d.Files, d.Content)
	}
	d = e.diagnostics(nil)
	if got := d.Files["a.go"]; !d.OK || len(got) != 1 {
		t.Fatalf("diagnostics of the files changed: %+v\n%s", d.Files, d.Content)
	}

	r = e.edit("a.go", r.Tag, "PUT 9:\n+\treturn f(2, 3)")
	wantOK(t, r)
	if len(r.Diagnostics) != 0 {
		t.Fatalf("the fix: %+v", r.Diagnostics)
	}
	if d := e.diagnostics(map[string]any{"path": "a.go"}); !d.OK || len(d.Files["a.go"]) != 0 || !strings.HasSuffix(d.Content, "] 0 errors") {
		t.Fatalf("after the fix: %+v\n%s", d.Files, d.Content)
	}
}

// A write of a TypeScript file that breaks its types is told so.
func TestWriteReportsTypeScriptErrors(t *testing.T) {
	testenv.LanguageServer(t, "typescript-language-server")
	e := newEditEnv(t)
	withServers(e, langserver.Options{}, far)
	w := e.writeTool("a.ts", "export const n: number = 1;\n")
	if !w.OK || len(w.Diagnostics) != 0 {
		t.Fatalf("clean write: %+v %s", w.Diagnostics, w.Content)
	}
	w = e.writeTool("a.ts", "export const n: number = 1;\nexport const s: string = n;\n")
	if !w.OK || len(w.Diagnostics) != 1 || w.Diagnostics[0].Line != 2 || w.Diagnostics[0].Code != "2322" {
		t.Fatalf("breaking write: %+v\n%s", w.Diagnostics, w.Content)
	}
}

// A server that never answers holds no call past the wait: the result
// says the diagnostics are pending and how to ask for them.
func TestHungServerLeavesDiagnosticsPending(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(hungServerEnv, "1")
	e := newEditEnv(t)
	withServers(e, langserver.Options{Servers: map[string][]string{"go": {exe}}}, 50*time.Millisecond)
	w := e.writeTool("a.go", "package a\n")
	if !w.OK || !w.DiagnosticsPending || !strings.Contains(w.Content, "\ndiagnostics: pending, the go language server did not answer within 50 ms; ask for them with diagnostics {\"path\": \"a.go\"}") {
		t.Fatalf("pending %v:\n%s", w.DiagnosticsPending, w.Content)
	}
}

// No server for the language: the result says nothing of diagnostics,
// and the tool says what to do.
func TestMissingServerIsQuiet(t *testing.T) {
	e := newEditEnv(t)
	withServers(e, langserver.Options{Servers: map[string][]string{"go": {"hostd-test-no-such-server"}}}, far)
	w := e.writeTool("a.go", "package a\n\nvar x int = \"s\"\n")
	if !w.OK || w.DiagnosticsPending || strings.Contains(w.Content, "diagnostics") {
		t.Fatalf("write with no server: %s", w.Content)
	}
	d := e.diagnostics(map[string]any{"path": "a.go"})
	if d.OK || !strings.Contains(d.Error.Message, "hostd-test-no-such-server is not on the PATH") {
		t.Fatalf("tool with no server: %+v", d.Error)
	}
	d = e.diagnostics(map[string]any{"path": "notes.txt"})
	if d.OK || d.Error.Code != wire.ToolInvalidArgument {
		t.Fatalf("a file no server serves: %+v", d.Error)
	}
}

// The rule for a change's new errors, as syntax feedback's: an error of
// before carried through the lines the change left is old at its new
// line when the message agrees (its first sentence); one on a line the
// change wrote, one with another message, and every error of a new file
// is new; and the lines shown under the errors are the feedback's.
func TestNewDiagnosticsRule(t *testing.T) {
	before := []Diagnostic{
		{Line: 2, Message: "undefined: x. Did you mean y?"},
		{Line: 5, Message: "undefined: z"},
		{Line: 7, Message: "missing return"},
	}
	// Old 1..3 became new 2..4 (a line inserted above), old 4 was
	// rewritten, old 5..7 became new 6..8.
	copies := []workspace.Copy{{New: 2, Old: 1, N: 3}, {New: 6, Old: 5, N: 3}}
	after := []Diagnostic{
		{Line: 3, Message: "undefined: x. Did you mean w?"}, // old, carried from 2
		{Line: 5, Message: "undefined: z"},                  // on the rewritten line: new
		{Line: 6, Message: "undefined: z"},                  // old, carried from 5
		{Line: 8, Message: "too many return values"},        // another message: new
		{Line: 2, Message: "undefined: x"},                  // old 1 had no error: new
	}
	got := lineOfErrors(wireDiagnostics(newDiagnostics(before, after, true, copies)))
	if !slices.Equal(got, []int{5, 8, 2}) {
		t.Fatalf("new errors at %v, want 5, 8, 2", got)
	}
	if got := newDiagnostics(before, after, false, nil); len(got) != len(after) {
		t.Fatalf("a new file: %v", got)
	}
	lines := []string{"a", "b", strings.Repeat("c", 30)}
	text, shown := renderDiagnostics("head", []Diagnostic{{Line: 2, Message: "m", Code: "X"}, {Line: 2, Message: "n"}, {Line: 3, Message: "o"}, {Line: 9, Message: "p"}}, lines, 10)
	if !strings.HasPrefix(text, "head\nline 2: m [X]\n2:b\nline 2: n\nline 3: o\n3:cccccccccc") || !strings.HasSuffix(text, "\nline 9: p") || !shown.Contains(2) || shown.Contains(3) {
		t.Fatalf("render:\n%s\nshown %v", text, shown)
	}
}
