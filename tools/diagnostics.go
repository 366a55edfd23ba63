package tools

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/session"
	"github.com/hostd-dev/hostd/tools/langserver"
	"github.com/hostd-dev/hostd/workspace"
)

// Language-server diagnostics (docs/language-servers.md): after a write
// or an edit of a file a language server serves, the result names the
// errors the change introduced, by syntax feedback's rule (errors of the
// new version that the old one's do not explain through the lines the
// change left as they were); the diagnostics tool answers a file's
// current errors. The servers are langserver's; a call waits for them
// no longer than its deadline, and a server that is missing, slow,
// crashed or misconfigured never fails a call.

// Diagnostic is one error a language server reported (the "diagnostics"
// of a write, edit or diagnostics result).
type Diagnostic = langserver.Diagnostic

// diagnosticsToolWait bounds how long the diagnostics tool waits for a
// server: it is asked for, so it waits longer than a write does, but a
// server still starting or checking a large project answers "pending".
const diagnosticsToolWait = 10 * time.Second

// Lines of the file a diagnostics section shows: each error's first
// line, at most diagnosticLinesShown in all.
const (
	diagnosticsNamed     = 8
	diagnosticLinesShown = 8
	diagnosticsFiles     = 16
)

// rootOf is the session's root that holds abs: the server of that root
// serves it.
func rootOf(c *Call, abs string) string {
	best := c.State.Workspace.Root()
	n := -1
	for _, r := range c.State.Workspace.Roots() {
		rel, err := filepath.Rel(r.Path, abs)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && len(r.Path) > n {
			best, n = r.Path, len(r.Path)
		}
	}
	return best
}

// pendingDiagnostics is one change's check by its language server.
type pendingDiagnostics struct {
	check   *langserver.Check
	display string
	copies  func() []workspace.Copy
	had     bool
}

// startDiagnostics tells p's language server that the change from
// before (hadBefore false: a new file) to after has landed and starts
// finding its errors; nil when no server serves p. copies maps the lines
// the change left as they were.
func (c *Call) startDiagnostics(p workspace.Path, before string, hadBefore bool, after string, copies func() []workspace.Copy) *pendingDiagnostics {
	root := rootOf(c, p.Abs)
	if c.Diagnostics == nil || !c.Diagnostics.Serves(root, p.Abs) || hadBefore && before == after {
		return nil
	}
	c.Diagnostics.Touch(c.Session.ID, p.Abs)
	return &pendingDiagnostics{check: c.Diagnostics.Changed(root, p.Abs, before, hadBefore, after), display: p.Display, copies: copies, had: hadBefore}
}

// addDiagnostics waits for the change's check within the call's
// diagnostics wait and adds what it found to content: the new errors
// with their first lines (seen in the version recorded for p, as feedback
// lines are), or that they are pending. It returns the new errors and
// whether they are pending.
func (c *Call) addDiagnostics(d *pendingDiagnostics, p workspace.Path, lines []string, content *string) ([]wire.Diagnostic, bool) {
	if d == nil {
		return nil, false
	}
	before, after, ok, err := d.check.Wait(time.Now().Add(c.DiagnosticsWait))
	switch {
	case errors.Is(err, langserver.ErrNoServer):
		return nil, false
	case err != nil:
		*content += fmt.Sprintf("\ndiagnostics: none, the %s language server failed (%s)", d.check.Server(), clipMessageTo(err.Error(), 200))
		return nil, false
	case !ok:
		*content += fmt.Sprintf("\ndiagnostics: pending, the %s language server did not answer within %d ms; ask for them with diagnostics {\"path\": %q}", d.check.Server(), c.DiagnosticsWait.Milliseconds(), d.display)
		return nil, true
	}
	var cp []workspace.Copy
	if d.had {
		cp = d.copies()
	}
	found := newDiagnostics(before, after, d.had, cp)
	if len(found) == 0 {
		return nil, false
	}
	text, shown := renderDiagnostics(fmt.Sprintf("diagnostics (%s): this change left %d new %s", d.check.Server(), len(found), plural(len(found), "error", "errors")), found, lines, c.Limits.MaxRevealLineChars)
	*content += "\n" + text
	if v, ok := c.State.Store.Head(p.Abs); ok && shown.Len() > 0 {
		c.State.Store.MarkSeen(p.Abs, v, shown)
	}
	return wireDiagnostics(found), false
}

// newDiagnostics are the errors of after that before does not explain,
// by syntax feedback's rule for what a change made: the errors of before
// are carried to after through the lines the change left as they were
// (carryRegions, as a chain of changes carries its first version's
// regions), and an error of after is old when one with the same message
// (its first sentence: the hint after it may change with the rest of the
// file, as TypeScript's "Did you mean" does once it has made ten) was
// carried to its line. Every error of a new file is new.
func newDiagnostics(before, after []Diagnostic, hadBefore bool, copies []workspace.Copy) []Diagnostic {
	if !hadBefore {
		return after
	}
	type at struct {
		line int
		msg  string
	}
	old := map[at]bool{}
	for _, d := range before {
		for _, r := range carryRegions([]session.LineSpan{{Start: d.Line, End: d.Line}}, copies) {
			old[at{r.Start, firstSentence(d.Message)}] = true
		}
	}
	var out []Diagnostic
	for _, d := range after {
		if !old[at{d.Line, firstSentence(d.Message)}] {
			out = append(out, d)
		}
	}
	return out
}

// renderDiagnostics is head, then each error (up to diagnosticsNamed)
// with the first line it stands on, clipped to maxChars; shown is the
// set of lines shown in full.
func renderDiagnostics(head string, found []Diagnostic, lines []string, maxChars int) (string, session.LineSet) {
	var b strings.Builder
	b.WriteString(head)
	show := newLineShow(lines, maxChars, diagnosticLinesShown)
	for i, d := range found {
		if i == diagnosticsNamed {
			fmt.Fprintf(&b, "\n(%d more)", len(found)-i)
			break
		}
		code := ""
		if d.Code != "" {
			code = " [" + d.Code + "]"
		}
		fmt.Fprintf(&b, "\nline %d: %s%s", d.Line, d.Message, code)
		show.line(&b, d.Line)
	}
	return b.String(), show.shown
}

// Diagnostics is the read-only diagnostics tool: the current errors of
// one file, or of each file the session changed, as its language server
// reports them.
type Diagnostics struct{}

// Name implements Tool.
func (Diagnostics) Name() string { return "diagnostics" }

type diagnosticsArgs struct {
	Path string `json:"path"`
}

// Run implements Tool.
func (Diagnostics) Run(ctx context.Context, c *Call) Outcome {
	var a diagnosticsArgs
	if e := DecodeArgs(c.Args, &a); e != nil {
		return Failed(e)
	}
	if c.Diagnostics == nil {
		return Failed(Errorf(wire.ToolFailed, "language servers are off in this daemon (languageServers.enabled is false); check the code with its compiler instead"))
	}
	var paths []workspace.Path
	if a.Path != "" {
		p, e := resolveArg(c, a.Path, workspace.Read)
		if e != nil {
			return Failed(e)
		}
		if !c.Diagnostics.Serves(rootOf(c, p.Abs), p.Abs) {
			return Failed(Errorf(wire.ToolInvalidArgument, "no language server serves %s (known: Go, TypeScript and JavaScript, Python, Rust, C and C++), or they are turned off for this workspace; check it with its compiler instead", p.Display))
		}
		paths = append(paths, p)
	} else {
		touched := c.Diagnostics.Touched(c.Session.ID)
		for i := len(touched) - 1; i >= 0 && len(paths) < diagnosticsFiles; i-- {
			if p, err := c.State.Workspace.Resolve(touched[i], workspace.Read); err == nil {
				paths = append(paths, p)
			}
		}
		if len(paths) == 0 {
			r := &wire.DiagnosticsResult{Files: map[string][]wire.Diagnostic{}}
			r.Content = "diagnostics: this session changed no file a language server serves; name one: diagnostics {\"path\": \"src/main.go\"}"
			return r
		}
	}
	deadline := time.Now().Add(diagnosticsToolWait)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	answers := make([]fileDiagnostics, len(paths))
	var wg sync.WaitGroup
	for i, p := range paths {
		wg.Go(func() { answers[i] = checkFile(c, p, deadline) })
	}
	wg.Wait()
	if len(paths) == 1 && answers[0].fail != nil {
		return Failed(answers[0].fail)
	}
	r := &wire.DiagnosticsResult{Files: map[string][]wire.Diagnostic{}}
	var b strings.Builder
	for _, f := range answers {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(f.text)
		switch {
		case f.fail != nil:
		case f.pending:
			r.Pending = append(r.Pending, f.display)
		default:
			r.Files[f.display] = wireDiagnostics(f.errs)
		}
	}
	r.Content = b.String()
	return r
}

// fileDiagnostics is one file's part of a diagnostics answer.
type fileDiagnostics struct {
	display string
	errs    []Diagnostic
	pending bool
	text    string
	fail    *wire.ToolError
}

// checkFile asks p's server for the errors of its live text and renders
// them under the file's header, recording the version shown with the
// lines shown as seen.
func checkFile(c *Call, p workspace.Path, deadline time.Time) fileDiagnostics {
	out := fileDiagnostics{display: p.Display}
	l, e := loadText(p, c.Limits.MaxWriteBytes)
	if e != nil {
		if e.Code == wire.ToolNotFound {
			e = missing(c, p)
		}
		out.fail, out.text = e, p.Display+": "+e.Message
		return out
	}
	body := l.Text.Body
	errs, ok, err := c.Diagnostics.Errors(rootOf(c, p.Abs), p.Abs, body, deadline)
	switch {
	case err != nil:
		out.fail = Errorf(wire.ToolFailed, "the language server of %s could not check it: %s; hostctl lsp shows the servers", p.Display, clipMessageTo(err.Error(), 300))
		out.text = p.Display + ": " + out.fail.Message
		return out
	case !ok:
		out.pending = true
		out.text = fmt.Sprintf("%s: pending, its language server did not answer within %d s; call diagnostics again", p.Display, int(diagnosticsToolWait.Seconds()))
		return out
	}
	out.errs = errs
	lines := workspace.Lines(body)
	text, shown := renderDiagnostics(fmt.Sprintf("%d %s", len(errs), plural(len(errs), "error", "errors")), errs, lines, c.Limits.MaxRevealLineChars)
	tag := c.State.Store.Record(p.Abs, session.Snapshot{
		Digest: workspace.Sum(body), Text: body, HasText: int64(len(body)) <= c.Limits.MaxRetainedFileBytes,
		Lines: len(lines), Bytes: int64(len(l.Raw)), Seen: shown,
	})
	out.text = tagHeader(p.Display, tag) + " " + text
	return out
}

// wireDiagnostics are a server's errors as a result shows them (nil
// stays nil: no list, told from an empty one).
func wireDiagnostics(ds []Diagnostic) []wire.Diagnostic {
	if ds == nil {
		return nil
	}
	out := make([]wire.Diagnostic, len(ds))
	for i, d := range ds {
		out[i] = wire.Diagnostic(d)
	}
	return out
}

// firstSentence is msg up to the end of its first sentence.
func firstSentence(msg string) string {
	for i := 0; i+1 < len(msg); i++ {
		if (msg[i] == '.' || msg[i] == '?' || msg[i] == '!') && msg[i+1] == ' ' {
			return msg[:i+1]
		}
	}
	return msg
}
