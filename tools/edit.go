package tools

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/session"
	"github.com/hostd-dev/hostd/tools/hashline"
	"github.com/hostd-dev/hostd/workspace"
)

// Edit is the edit tool: line-anchored edits proven against the version
// and the provenance the session recorded (edit-contract §6-§10).
type Edit struct{}

// Name implements Tool.
func (Edit) Name() string { return "edit" }

type editArgs struct {
	Path string `json:"path"`
	Tag  string `json:"tag"`
	Ops  string `json:"ops"`
	// Result is "full" or "compact" (edit_compact.go); absent: the
	// session's form, set at session.create.
	Result string `json:"result"`
}

// EditResult is the edit tool's result (wire-contract §4 edit).
type EditResult struct {
	Result
	Path        string                `json:"path,omitempty"`
	Tag         string                `json:"tag,omitempty"`
	Resolutions []hashline.Resolution `json:"resolutions,omitempty"`
	Diff        string                `json:"diff,omitempty"`
	Removed     bool                  `json:"removed,omitempty"`
	MovedTo     string                `json:"movedTo,omitempty"`
	// Regions are the changed regions of a compact result.
	Regions []RegionSpan `json:"regions,omitempty"`
	// SyntaxErrors are the syntax errors the edit added (feedback.go).
	SyntaxErrors []SyntaxError `json:"syntaxErrors,omitempty"`
	// Unsure are the regions the file's grammar could not read but is not
	// trusted to call errors (SyntaxError.Unsure): in the content only.
	Unsure []SyntaxError `json:"-"`
	// Diagnostics are the errors the edit added, as the file's language
	// server reports them (diagnostics.go); DiagnosticsPending: it did
	// not answer in time.
	Diagnostics        []Diagnostic `json:"diagnostics,omitempty"`
	DiagnosticsPending bool         `json:"diagnosticsPending,omitempty"`
}

// Run implements Tool.
func (Edit) Run(ctx context.Context, c *Call) Outcome {
	var a editArgs
	if e := DecodeArgs(c.Args, &a); e != nil {
		return Failed(e)
	}
	form := c.Session.Prefs.EditResult
	if a.Result != "" {
		f, err := session.ParseResultForm(a.Result)
		if err != nil {
			return Failed(Errorf(CodeInvalidArgument, "result %q is not a result form: use \"compact\" for the new tag and the changed spans, or \"full\" (or omit it) for the changed lines", a.Result))
		}
		form = f
	}
	unlock := c.Session.LockMutations()
	defer unlock()
	ed := &editor{c: c, args: a, form: form}
	res := ed.run(ctx)
	guardKey := ed.guardPath()
	if res.Error == nil {
		c.Session.Guard.Succeed(c.PromptID, guardKey)
		return res
	}
	if v := c.Session.Guard.Fail(c.PromptID, guardKey, res.Error.Code); v.Terminate {
		res.Terminate = true
		res.Error.Details = withGuard(res.Error.Details, RepeatGuardDetails{Attempts: v.Attempt, Kind: "edit", Recovery: recoveryHint(res.Error.Code)})
	}
	return res
}

// editor carries one edit call through its steps.
type editor struct {
	c    *Call
	args editArgs
	form session.ResultForm // how a success is rendered

	patch *hashline.Patch
	// canon is the patch in canonical form, which with the path and the
	// tag names the request for boundary repair's questions; asSent says
	// repair asked about this very request before, so its rows now apply
	// exactly as sent (edit-contract §8.4).
	canon  string
	asSent bool
	path   workspace.Path // the file edited, after path recovery
	// link is the symbolic link the path names, when REM or MV acts on
	// the link itself rather than the file it leads to.
	link *workspace.Path
	file *loaded
	// text is the live file's lines, found in its bytes on demand; live
	// is every line split out, built by lines() only for what reads them
	// all (repair, drift recovery, the diff).
	text workspace.Index
	live []string
	body string
	dig  workspace.Digest

	// parse bounds every parse of the call (block ops, repair checks):
	// its deadline is the call's parse time, config.Limits.MaxParseMs.
	parse context.Context

	warnings   []string
	errContent string // lines an error shows the model, under their header
}

func (ed *editor) guardPath() string {
	if ed.path.Abs != "" {
		return ed.path.Abs
	}
	return ed.args.Path
}

func (ed *editor) fail(e *Error) *EditResult {
	return &EditResult{Result: Result{Error: e, Warnings: ed.warnings, Content: ed.errContent}}
}

func (ed *editor) run(ctx context.Context) *EditResult {
	a := &ed.args
	if e := ed.splitPathTag(); e != nil {
		return ed.fail(e)
	}
	tag := strings.ToUpper(strings.TrimSpace(a.Tag))
	if !validTag(tag) {
		return ed.fail(Errorf(CodeTagRequired, "tag must be the 4 hex digits from the [PATH#TAG] header of your latest read of %s, got %q: give it as tag, or write the path as the header shows it (%s#TAG); read the file first if you have no tag", a.Path, a.Tag, a.Path))
	}
	a.Tag = tag
	if strings.TrimSpace(a.Path) == "" {
		return ed.fail(Errorf(CodeInvalidArgument, "path is required: the file to edit, as shown in its [PATH#TAG] header"))
	}
	patch, err := hashline.Parse(a.Ops, hashline.LimitsFrom(ed.c.Limits))
	if err != nil {
		return ed.fail(languageError(err))
	}
	ed.patch = patch
	if e := ed.resolvePath(); e != nil {
		return ed.fail(e)
	}
	if e := ed.checkHeader(); e != nil {
		return ed.fail(e)
	}
	ed.canon = patch.Format()
	ed.asSent = ed.c.State.Asked.Was(ed.path.Abs, a.Tag, ed.canon)
	if info, err := ed.path.Stat(); err == nil {
		release, e := ed.c.holdPayload(ctx, payloadSize(ed.path, info.Size()), fmt.Sprintf("an edit of %s (%d bytes)", ed.path.Display, info.Size()))
		if e != nil {
			return ed.fail(e)
		}
		defer release()
	}
	unlockFiles, e := ed.lockFiles(ctx)
	if e != nil {
		return ed.fail(e)
	}
	defer unlockFiles()
	file, e := loadText(ed.path, ed.c.Limits.MaxWriteBytes)
	if e != nil { // including NOT_TEXT: edit addresses lines of text only
		return ed.fail(e)
	}
	ed.file, ed.body = file, file.Text.Body
	if ed.text, err = file.Text.Index(file.Raw); err != nil {
		return ed.fail(Errorf(CodeFileTooLarge, "%s is too large to edit by line: %v; replace it whole with write", ed.path.Display, err))
	}
	ed.dig = workspace.Sum(ed.body)
	if err := ctx.Err(); err != nil {
		return ed.fail(Errorf(CodeToolFailed, "the call was cancelled; nothing was changed"))
	}
	budget := ed.c.Limits.ParseBudget()
	if budget <= 0 {
		budget = config.DefaultLimits().ParseBudget()
	}
	parse, stop := context.WithTimeout(ctx, budget)
	defer stop()
	ed.parse = parse
	plan, e := ed.gate()
	if e != nil {
		return ed.fail(e)
	}
	res := ed.commit(plan)
	if res.Error == nil && ed.asSent {
		ed.c.State.Asked.Answered(ed.path.Abs, a.Tag, ed.canon)
	}
	return res
}

// lines returns every line of the live file, splitting it on first use.
func (ed *editor) lines() []string {
	if ed.live == nil {
		ed.live = workspace.Lines(ed.body)
	}
	return ed.live
}

func validTag(t string) bool {
	if len(t) != 4 {
		return false
	}
	for _, c := range t {
		if !(c >= '0' && c <= '9' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// lockFiles takes the daemon's locks of the edited file and, for MV, of
// its destination, before the file is read: from the version gate to the
// review commit no other call changes either.
func (ed *editor) lockFiles(ctx context.Context) (func(), *Error) {
	paths := []string{ed.path.Abs}
	if ed.link != nil {
		paths = append(paths, ed.link.Abs)
	}
	if ed.patch.MoveTo != "" {
		if dest, err := ed.c.State.Workspace.Resolve(ed.patch.MoveTo, workspace.Write); err == nil {
			paths = append(paths, dest.Abs)
		}
	}
	return ed.c.lockFiles(ctx, paths...)
}

// resolvePath resolves the path argument, rebinds a mistyped path to the
// one file the session read under that basename and tag (edit-contract
// §9.2), and only then applies the write-permission gate.
func (ed *editor) resolvePath() *Error {
	ws := ed.c.State.Workspace
	p, err := ws.Resolve(ed.args.Path, workspace.Read)
	if err != nil {
		return resolveError(ed.c, ed.args.Path, err)
	}
	exists, err := fileExists(p)
	if err != nil {
		return Errorf(CodeToolFailed, "cannot check %s: %v", p.Display, err)
	}
	if !exists {
		rebound, e := ed.recoverPath(p)
		if e != nil {
			return e
		}
		p = rebound
	}
	if _, err := ws.Resolve(p.Abs, workspace.Write); err != nil {
		return resolveError(ed.c, p.Display, err)
	}
	ed.path = p
	if ed.patch.Rem || ed.patch.MoveTo != "" {
		lp, isLink, err := ws.ResolveLink(ed.args.Path, workspace.Write)
		if err != nil {
			return resolveError(ed.c, ed.args.Path, err)
		}
		if isLink {
			if len(ed.patch.Ops) > 0 {
				return Errorf(CodeInvalidArgument, "%s is a symbolic link to %s, and MV moves the link itself, so it cannot change the file's lines in the same call: edit %s first, then MV the link", lp.Display, p.Display, p.Display)
			}
			ed.link = &lp
		}
	}
	return nil
}

// recoverPath finds the one recorded file whose basename and tag match a
// path that does not exist. The authored path's own history is excluded,
// so a deleted file never recovers onto itself.
func (ed *editor) recoverPath(missing workspace.Path) (workspace.Path, *Error) {
	base := filepath.Base(missing.Abs)
	var found []string
	for _, cand := range ed.c.State.Store.PathsMinted(ed.args.Tag) {
		if cand == missing.Abs || filepath.Base(cand) != base {
			continue
		}
		cp, err := ed.c.State.Workspace.Resolve(cand, workspace.Read)
		if err != nil {
			continue
		}
		if ok, _ := fileExists(cp); ok {
			found = append(found, cand)
		}
	}
	switch len(found) {
	case 0:
		return workspace.Path{}, Errorf(CodeNotFound, "%s does not exist; edit never creates files: create it with write, or check the path with grep", missing.Display)
	case 1:
		p, err := ed.c.State.Workspace.Resolve(found[0], workspace.Read)
		if err != nil {
			return workspace.Path{}, resolveError(ed.c, found[0], err)
		}
		ed.warnings = append(ed.warnings, fmt.Sprintf("%s does not exist; edited %s, the file you read with tag %s. Use that path from now on.", missing.Display, p.Display, ed.args.Tag))
		return p, nil
	}
	ws := ed.c.State.Workspace
	names := make([]string, len(found))
	for i, f := range found {
		names[i] = ws.Display(f)
	}
	return workspace.Path{}, Errorf(CodeNotFound, "%s does not exist, and %d files you read are named %s with tag %s (%s); give the full path", missing.Display, len(found), base, ed.args.Tag, strings.Join(names, ", "))
}

// splitPathTag reads a path written as a producer's header shows it,
// PATH#TAG (edit-contract §6): the tag after the last '#' is the version
// the edit is anchored on, as if given as the tag argument. A file that
// exists under the whole spelling keeps it as its path; a tag argument
// given beside the suffix must agree with it.
func (ed *editor) splitPathTag() *Error {
	a := &ed.args
	i := strings.LastIndexByte(a.Path, '#')
	if i <= 0 || !validTag(strings.ToUpper(a.Path[i+1:])) {
		return nil
	}
	if p, err := ed.c.State.Workspace.Resolve(a.Path, workspace.Read); err == nil {
		if exists, _ := fileExists(p); exists {
			return nil
		}
	}
	path, tag := a.Path[:i], a.Path[i+1:]
	if given := strings.TrimSpace(a.Tag); given != "" && !strings.EqualFold(given, tag) {
		return Errorf(CodeInvalidArgument, "the path says tag %s but the tag argument is %s; they must agree: give the tag of your latest read of %s once, in either place", strings.ToUpper(tag), given, path)
	}
	a.Path, a.Tag = path, tag
	return nil
}

// checkHeader enforces the optional [path#TAG] first line of ops
// (edit-contract §6): when present it must agree with the arguments.
func (ed *editor) checkHeader() *Error {
	h := ed.patch.Header
	if h == nil {
		return nil
	}
	if !strings.EqualFold(h.Tag, ed.args.Tag) {
		return Errorf(CodeInvalidArgument, "the ops header says tag %s but the tag argument is %s; they must agree: use the tag of your latest read of %s in both", h.Tag, ed.args.Tag, ed.path.Display)
	}
	hp, err := ed.c.State.Workspace.Resolve(h.Path, workspace.Read)
	if err != nil || (hp.Abs != ed.path.Abs && h.Path != ed.args.Path) {
		return Errorf(CodeInvalidArgument, "the ops header names %s but the path argument is %s; they must name the same file: drop the header or fix the path", h.Path, ed.args.Path)
	}
	return nil
}

// languageError maps an edit-language failure to a tool error.
func languageError(err error) *Error {
	var he *hashline.Error
	if !errors.As(err, &he) {
		return Errorf(CodeToolFailed, "%v", err)
	}
	e := Errorf(languageCodes[he.Code], "%s", he.Message)
	if he.Code == hashline.CodeBlockUnresolved {
		e.Details = BlockUnresolvedDetails{Line: he.Line, Reason: he.Reason}
	}
	return e
}

// regs adapts the session's registers to the edit language.
type regs struct{ r *session.Registers }

func (r regs) Get(name string) ([]string, bool) { return r.r.Get(name) }
func (r regs) Set(name string, lines []string) error {
	r.r.Set(name, lines)
	return nil
}

// recoveryHint is the class-specific hint a runtime shows when the repeat
// guard stops a turn (edit-contract §9.3). For malformed ops it fixes the
// syntax without asking for another read.
func recoveryHint(code string) string {
	switch code {
	case CodeParseFailed:
		return "A PUT with body rows must end its header with ':', for example PUT 48.=48:, and every body row starts with '+'. Delete lines with CUT N.=M, insert with PUT <N: or PUT >N:."
	case CodeTagMismatch, CodeTagUnknown:
		return "Read the file again and use the tag and line numbers that read shows."
	case CodeLinesUnseen:
		return "Read the lines the edit anchors on (read with offset and limit), or retry with the lines the refusal revealed in full."
	case CodeRangeInvalid:
		return "Name each changed line once: ranges must be ascending, inside the file, and must not overlap or share an anchor with another op."
	case CodeNoChange:
		return "The file already has this content; read it to see its current state instead of repeating the edit."
	case CodeBlockUnresolved:
		return "Use a plain line range (PUT N.=M: or CUT N.=M) instead of a block locator."
	case CodeRepairAmbiguous:
		return "Boundary repair asked which edit you meant: send the same edit again, unchanged and with the same tag, to apply it exactly as sent, or send the repaired form the refusal shows."
	}
	return "Read the file again, then make one smaller edit."
}
