package tools

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/rpc/wire"
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
			return Failed(Errorf(wire.ToolInvalidArgument, "result %q is not a result form: use \"compact\" for the new tag and the changed spans, or \"full\" (or omit it) for the changed lines", a.Result))
		}
		form = f
	}
	unlock := c.Session.LockMutations()
	defer unlock()
	res, guardKey := runEdit(ctx, c, a, form)
	if res.Error == nil {
		c.Session.Guard.Succeed(c.PromptID, guardKey)
		return res
	}
	if v := c.Session.Guard.Fail(c.PromptID, guardKey, res.Error.Code); v.Terminate {
		res.Terminate = true
		res.Error.Details = withGuard(res.Error.Details, wire.RepeatGuardDetails{Attempts: v.Attempt, Kind: "edit", Recovery: recoveryHint(res.Error.Code)})
	}
	return res
}

// runEdit is the edit, chained once: each step takes the value the step
// before it made and returns the next one or the error that ends the
// call, and every error leaves through failed. request checks the
// arguments and parses the ops; target finds the file; open takes the
// locks and loads it into the editor; gate proves the edit against the
// version and provenance the session recorded (edit-contract §9) and
// plans it; decide works out the whole change without writing; write
// makes it through review and records what landed; render shows it. It
// also returns the key the repeat guard counts the call under: the file's
// path once it is resolved.
func runEdit(ctx context.Context, c *Call, a editArgs, form session.ResultForm) (*wire.EditResult, string) {
	req, e := request(c, a)
	guardKey := req.args.Path
	if e != nil {
		return failed(e, nil, "", ""), guardKey
	}
	t, e := target(c, req)
	if t.path.Abs != "" {
		guardKey = t.path.Abs
	}
	if e != nil {
		return failed(e, t.warnings, "", ""), guardKey
	}
	ed, h, e := open(ctx, c, req, t, form)
	if e != nil {
		return failed(e, t.warnings, t.path.Display, req.args.Tag), guardKey
	}
	defer h.release()
	p, e := ed.gate()
	if e != nil {
		return ed.fail(e), guardKey
	}
	ch, e := ed.decide(p)
	if e != nil {
		return ed.fail(e), guardKey
	}
	w, e := ed.write(ch)
	if e != nil {
		return ed.fail(e), guardKey
	}
	if ed.asSent {
		c.State.Asked.Answered(ed.path.Abs, ed.args.Tag, ed.canon)
	}
	return ed.render(ch, w), guardKey
}

// editRequest is an edit call's arguments, checked, and its ops parsed:
// the path and the tag as the model meant them (a PATH#TAG path split,
// the tag in upper case).
type editRequest struct {
	args  editArgs
	patch *hashline.Patch
}

// request checks the arguments and parses the ops, before anything is
// resolved or read. On failure its args are still the path and tag as far
// as they were read, which the repeat guard counts the call under.
func request(c *Call, a editArgs) (editRequest, *wire.ToolError) {
	a, e := splitPathTag(c, a)
	if e != nil {
		return editRequest{args: a}, e
	}
	tag := strings.ToUpper(strings.TrimSpace(a.Tag))
	if !validTag(tag) {
		return editRequest{args: a}, Errorf(wire.ToolTagRequired, "tag must be the 4 hex digits from the [PATH#TAG] header of your latest read of %s, got %q: give it as tag, or write the path as the header shows it (%s#TAG); read the file first if you have no tag", a.Path, a.Tag, a.Path)
	}
	a.Tag = tag
	if strings.TrimSpace(a.Path) == "" {
		return editRequest{args: a}, Errorf(wire.ToolInvalidArgument, "path is required: the file to edit, as shown in its [PATH#TAG] header")
	}
	patch, err := hashline.Parse(a.Ops, hashline.LimitsFrom(c.Limits))
	if err != nil {
		return editRequest{args: a}, languageError(err)
	}
	return editRequest{args: a, patch: patch}, nil
}

// editTarget is the file an edit changes: its path after path recovery,
// the link REM or MV acts on itself (nil when none), and the warning a
// recovered path leaves.
type editTarget struct {
	path     workspace.Path  // the file edited, after path recovery
	link     *workspace.Path // the symbolic link the path names, when REM or MV acts on the link itself
	warnings []string
}

// target resolves the file the request names (resolvePath) and checks the
// ops header against it.
func target(c *Call, req editRequest) (editTarget, *wire.ToolError) {
	t, e := resolvePath(c, req)
	if e != nil {
		return t, e
	}
	return t, checkHeader(c, req, t.path)
}

// open holds the call's payload, takes the daemon's file locks and loads
// the file: the editor every later step reads. The caller releases what
// it holds once the call is done; when open fails it has released them.
func open(ctx context.Context, c *Call, req editRequest, t editTarget, form session.ResultForm) (ed *editor, h held, e *wire.ToolError) {
	defer func() {
		if e != nil {
			h.release()
		}
	}()
	p := t.path
	if info, err := p.Stat(); err == nil {
		free, e := c.holdPayload(ctx, payloadSize(p, info.Size()), fmt.Sprintf("an edit of %s (%d bytes)", p.Display, info.Size()))
		if e != nil {
			return nil, h, e
		}
		h.free = free
	}
	if h.unlock, e = lockFiles(ctx, c, req, t); e != nil {
		return nil, h, e
	}
	file, e := loadText(p, c.Limits.MaxWriteBytes)
	if e != nil { // including NOT_TEXT: edit addresses lines of text only
		return nil, h, e
	}
	text, err := file.Text.Index(file.Raw)
	if err != nil {
		return nil, h, Errorf(wire.ToolFileTooLarge, "%s is too large to edit by line: %v; replace it whole with write", p.Display, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, h, Errorf(wire.ToolFailed, "the call was cancelled; nothing was changed")
	}
	budget := c.Limits.ParseBudget()
	if budget <= 0 {
		budget = config.DefaultLimits().ParseBudget()
	}
	parse, stop := context.WithTimeout(ctx, budget)
	h.stop = stop
	canon := req.patch.Format()
	ed = &editor{
		c: c, editRequest: req, editTarget: t, form: form,
		canon: canon, asSent: c.State.Asked.Was(p.Abs, req.args.Tag, canon),
		file: file, text: text, body: file.Text.Body, dig: workspace.Sum(file.Text.Body),
		parse: parse,
	}
	return ed, h, nil
}

// held is what open took for an edit call: its payload in the daemon's
// budget, the file locks and the parse time's context. Each is nil until
// taken.
type held struct{ free, unlock, stop func() }

// release gives back what was held, the last taken first.
func (h held) release() {
	if h.stop != nil {
		h.stop()
	}
	if h.unlock != nil {
		h.unlock()
	}
	if h.free != nil {
		h.free()
	}
}

// editor is the file an edit is proved against, loaded under the call's
// locks, with what the request asked of it: the values of the steps
// before it (editRequest, editTarget) and what open loaded. open makes it
// whole; the steps after it read it and change nothing in it but the
// warnings they leave for the model (begun by editTarget's) and the lines
// split out on first use.
type editor struct {
	c *Call
	editRequest
	editTarget
	form session.ResultForm // how a success is rendered

	// canon is the patch in canonical form, which with the path and the
	// tag names the request for boundary repair's questions; asSent says
	// repair asked about this very request before, so its rows now apply
	// exactly as sent (edit-contract §8.4).
	canon  string
	asSent bool
	file   *loaded
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
}

// fail is the edit's failure once the file is loaded.
func (ed *editor) fail(e *wire.ToolError) *wire.EditResult {
	return failed(e, ed.warnings, ed.path.Display, ed.args.Tag)
}

// failed is an edit's one failure: the error, the warnings left so far,
// and the lines the error shows the model, rendered from its details
// under the [display#tag] header they are numbered for.
func failed(e *wire.ToolError, warnings []string, display, tag string) *wire.EditResult {
	return &wire.EditResult{ToolResult: wire.ToolResult{Error: e, Warnings: warnings, Content: errorContent(e, display, tag)}}
}

// errorContent renders what a refusal shows besides its message: the
// unseen lines of EDIT_LINES_UNSEEN, the live lines of EDIT_TAG_MISMATCH
// (under the live tag), the forms boundary repair offers.
func errorContent(e *wire.ToolError, display, tag string) string {
	switch d := e.Details.(type) {
	case wire.LinesUnseenDetails:
		return renderRows(display, tag, d.Lines)
	case wire.TagMismatchDetails:
		if d.Context != nil {
			return renderRows(display, d.LiveTag, *d.Context)
		}
	case wire.RepairAmbiguousDetails:
		return renderQuestion(display, tag, &hashline.Question{AsSent: d.AsSent, Repaired: d.Repaired})
	}
	return ""
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
func lockFiles(ctx context.Context, c *Call, req editRequest, t editTarget) (func(), *wire.ToolError) {
	paths := []string{t.path.Abs}
	if t.link != nil {
		paths = append(paths, t.link.Abs)
	}
	if req.patch.MoveTo != "" {
		if dest, err := c.State.Workspace.Resolve(req.patch.MoveTo, workspace.Write); err == nil {
			paths = append(paths, dest.Abs)
		}
	}
	return c.lockFiles(ctx, paths...)
}

// resolvePath resolves the path argument, rebinds a mistyped path to the
// one file the session read under that basename and tag (edit-contract
// §9.2), and only then applies the write-permission gate. On failure the
// target holds what was found so far: the path once it is resolved, the
// warning of a recovered path.
func resolvePath(c *Call, req editRequest) (t editTarget, e *wire.ToolError) {
	a := req.args
	ws := c.State.Workspace
	p, err := ws.Resolve(a.Path, workspace.Read)
	if err != nil {
		return t, resolveError(c, a.Path, err)
	}
	exists, err := fileExists(p)
	if err != nil {
		return t, Errorf(wire.ToolFailed, "cannot check %s: %v", p.Display, err)
	}
	if !exists {
		rebound, warning, e := recoverPath(c, a, p)
		if e != nil {
			return t, e
		}
		p, t.warnings = rebound, []string{warning}
	}
	if _, err := ws.Resolve(p.Abs, workspace.Write); err != nil {
		return t, resolveError(c, p.Display, err)
	}
	t.path = p
	if req.patch.Rem || req.patch.MoveTo != "" {
		lp, isLink, err := ws.ResolveLink(a.Path, workspace.Write)
		if err != nil {
			return t, resolveError(c, a.Path, err)
		}
		if isLink {
			if len(req.patch.Ops) > 0 {
				return t, Errorf(wire.ToolInvalidArgument, "%s is a symbolic link to %s, and MV moves the link itself, so it cannot change the file's lines in the same call: edit %s first, then MV the link", lp.Display, p.Display, p.Display)
			}
			t.link = &lp
		}
	}
	return t, nil
}

// recoverPath finds the one recorded file whose basename and tag match a
// path that does not exist, and the warning that says it was edited
// instead. The authored path's own history is excluded, so a deleted file
// never recovers onto itself.
func recoverPath(c *Call, a editArgs, missing workspace.Path) (workspace.Path, string, *wire.ToolError) {
	base := filepath.Base(missing.Abs)
	var found []string
	for _, cand := range c.State.Store.PathsMinted(a.Tag) {
		if cand == missing.Abs || filepath.Base(cand) != base {
			continue
		}
		cp, err := c.State.Workspace.Resolve(cand, workspace.Read)
		if err != nil {
			continue
		}
		if ok, _ := fileExists(cp); ok {
			found = append(found, cand)
		}
	}
	switch len(found) {
	case 0:
		return workspace.Path{}, "", Errorf(wire.ToolNotFound, "%s does not exist; edit never creates files: create it with write, or check the path with grep", missing.Display)
	case 1:
		p, err := c.State.Workspace.Resolve(found[0], workspace.Read)
		if err != nil {
			return workspace.Path{}, "", resolveError(c, found[0], err)
		}
		return p, fmt.Sprintf("%s does not exist; edited %s, the file you read with tag %s. Use that path from now on.", missing.Display, p.Display, a.Tag), nil
	}
	ws := c.State.Workspace
	names := make([]string, len(found))
	for i, f := range found {
		names[i] = ws.Display(f)
	}
	return workspace.Path{}, "", Errorf(wire.ToolNotFound, "%s does not exist, and %d files you read are named %s with tag %s (%s); give the full path", missing.Display, len(found), base, a.Tag, strings.Join(names, ", "))
}

// splitPathTag reads a path written as a producer's header shows it,
// PATH#TAG (edit-contract §6): the tag after the last '#' is the version
// the edit is anchored on, as if given as the tag argument. A file that
// exists under the whole spelling keeps it as its path; a tag argument
// given beside the suffix must agree with it.
func splitPathTag(c *Call, a editArgs) (editArgs, *wire.ToolError) {
	i := strings.LastIndexByte(a.Path, '#')
	if i <= 0 || !validTag(strings.ToUpper(a.Path[i+1:])) {
		return a, nil
	}
	if p, err := c.State.Workspace.Resolve(a.Path, workspace.Read); err == nil {
		if exists, _ := fileExists(p); exists {
			return a, nil
		}
	}
	path, tag := a.Path[:i], a.Path[i+1:]
	if given := strings.TrimSpace(a.Tag); given != "" && !strings.EqualFold(given, tag) {
		return a, Errorf(wire.ToolInvalidArgument, "the path says tag %s but the tag argument is %s; they must agree: give the tag of your latest read of %s once, in either place", strings.ToUpper(tag), given, path)
	}
	a.Path, a.Tag = path, tag
	return a, nil
}

// checkHeader enforces the optional [path#TAG] first line of ops
// (edit-contract §6): when present it must agree with the arguments.
func checkHeader(c *Call, req editRequest, path workspace.Path) *wire.ToolError {
	h := req.patch.Header
	if h == nil {
		return nil
	}
	if !strings.EqualFold(h.Tag, req.args.Tag) {
		return Errorf(wire.ToolInvalidArgument, "the ops header says tag %s but the tag argument is %s; they must agree: use the tag of your latest read of %s in both", h.Tag, req.args.Tag, path.Display)
	}
	hp, err := c.State.Workspace.Resolve(h.Path, workspace.Read)
	if err != nil || (hp.Abs != path.Abs && h.Path != req.args.Path) {
		return Errorf(wire.ToolInvalidArgument, "the ops header names %s but the path argument is %s; they must name the same file: drop the header or fix the path", h.Path, req.args.Path)
	}
	return nil
}

// languageError maps an edit-language failure to a tool error.
func languageError(err error) *wire.ToolError {
	var he *hashline.Error
	if !errors.As(err, &he) {
		return Errorf(wire.ToolFailed, "%v", err)
	}
	e := Errorf(languageCodes[he.Code], "%s", he.Message)
	if he.Code == hashline.CodeBlockUnresolved {
		e.Details = wire.BlockUnresolvedDetails{Line: he.Line, Reason: he.Reason}
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
	case wire.ToolParseFailed:
		return "A PUT with body rows must end its header with ':', for example PUT 48.=48:, and every body row starts with '+'. Delete lines with CUT N.=M, insert with PUT <N: or PUT >N:."
	case wire.ToolTagMismatch, wire.ToolTagUnknown:
		return "Read the file again and use the tag and line numbers that read shows."
	case wire.ToolLinesUnseen:
		return "Read the lines the edit anchors on (read with offset and limit), or retry with the lines the refusal revealed in full."
	case wire.ToolRangeInvalid:
		return "Name each changed line once: ranges must be ascending, inside the file, and must not overlap or share an anchor with another op."
	case wire.ToolNoChange:
		return "The file already has this content; read it to see its current state instead of repeating the edit."
	case wire.ToolBlockUnresolved:
		return "Use a plain line range (PUT N.=M: or CUT N.=M) instead of a block locator."
	case wire.ToolRepairAmbiguous:
		return "Boundary repair asked which edit you meant: send the same edit again, unchanged and with the same tag, to apply it exactly as sent, or send the repaired form the refusal shows."
	}
	return "Read the file again, then make one smaller edit."
}
