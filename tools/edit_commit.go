package tools

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/aymanbagabas/go-udiff"

	"github.com/hostd-dev/hostd/internal/quote"
	"github.com/hostd-dev/hostd/review"
	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/session"
	"github.com/hostd-dev/hostd/tools/hashline"
	"github.com/hostd-dev/hostd/workspace"
)

// change is what an edit decided to make, before anything is written:
// the paths review is to change and all the result needs to be shown.
type change struct {
	edits  []review.Edit  // what review.Store.Apply makes, in order
	target workspace.Path // where the file is afterwards: the MV destination, or the path
	// removed: REM of the file or of a link; linkTo: REM or MV acts on a
	// symbolic link, which reads linkTo.
	removed bool
	linkTo  string
	link    workspace.Path

	// A change of the file's text (neither REM nor a link's):
	ir          hashline.IR             // the plan applied, its register captures committed once written
	copies      func() []workspace.Copy // the runs of old lines the new text keeps
	resolutions []wire.Resolution       // block spans echoed (branch A)
	changed     []hashline.Region       // the regions shown, the last line's ending included
	newLines    []string                // the new text's lines
	newBody     string                  // the new text
	data        []byte                  // its bytes, as written
	trailing    bool                    // whether the old text ended with a newline
	final       bool                    // whether the new one does
	seen        session.LineSet         // what the session has seen of the new text
}

// decide works out the whole change a gated plan makes: the new text and
// its bytes, the paths to write, and what to show; it writes nothing.
func (ed *editor) decide(p plan) (change, *wire.ToolError) {
	switch {
	case ed.link != nil:
		return ed.decideLink()
	case ed.patch.Rem:
		return change{
			edits:   []review.Edit{{Path: ed.path, Before: ed.file.Raw, Existed: true, Mode: ed.file.Mode, Remove: true}},
			target:  ed.path,
			removed: true,
		}, nil
	}
	ch := change{ir: p.ir, seen: p.seen, target: ed.path} // a bare MV moves the lines and what was seen of them
	var te TextEdit
	var err error
	switch {
	case len(ed.patch.Ops) == 0:
		te, err = encodeText(ed.file.Text, ed.text, unchanged(ed.text.Len()), ed.patch)
	case p.applied != nil:
		te, err = encodeText(ed.file.Text, ed.text, *p.applied, ed.patch)
	default:
		// Lines left as they were are a change still when EOF changes
		// the final newline; the no-op check below decides.
		te, err = EditText(ed.file.Text, ed.text, p.ir, ed.patch)
	}
	if errors.Is(err, hashline.ErrNoChange) {
		if e := ed.endingOnly(p.ir); e != nil {
			return change{}, e
		}
	}
	if e := unencodable(ed.path, err); e != nil {
		return change{}, e
	}
	if err != nil {
		return change{}, languageError(err)
	}
	if len(ed.patch.Ops) > 0 && !te.NoChange {
		ch.changed = te.Result.Changed
		ch.seen = seenAfter(p.seen, te.Result.Pieces)
		if p.echo {
			ch.resolutions = echoed(te.Result.Resolutions)
		}
	}
	ch.copies = func() []workspace.Copy { return copiesOf(te.Result.Copies) }
	ch.trailing, ch.final = trailingNewline(ed.body), te.Final
	// The diff, the rendered result and the record read the new lines.
	ch.newLines = te.Result.NewLines(ed.text)
	if n := len(ch.newLines); ch.final != ch.trailing && (len(ch.changed) == 0 || ch.changed[len(ch.changed)-1].End < n) {
		// The last line's ending changed: show it.
		ch.changed = append(ch.changed, hashline.Region{Start: n, End: n, Inserted: 1, Removed: 1})
	}
	if len(ch.changed) == 0 && ch.final == ch.trailing && ed.patch.EOF != hashline.EOFKeep && ed.patch.MoveTo == "" {
		return change{}, Errorf(wire.ToolNoChange, "%s already %s, so %s would leave it exactly as it is and nothing was written; no edit is needed", ed.path.Display, finalState(ch.final), ed.patch.EOF)
	}
	// Untouched lines keep their bytes, their own line endings included
	// (edit-contract §3.1): only what the edit changed is rewritten.
	ch.newBody = workspace.Join(ch.newLines, ch.final)
	ch.data = te.Data
	if len(ed.patch.Ops) == 0 && ch.final == ch.trailing {
		ch.data = ed.file.Raw // a bare MV moves the bytes as they are
	}
	if n, limit := int64(len(ch.data)), ed.c.Limits.MaxWriteBytes; n > limit {
		return change{}, Errorf(wire.ToolFileTooLarge, "the edit would make %s %d bytes, over the %d-byte write limit (limits.maxWriteBytes), which bounds every file a write or an edit leaves, so the next call could still read and edit it; nothing was written. Move part of the file into a new file (write it, then CUT those lines here), or raise the limit in hostd's config file (limits.maxWriteBytes, with limits.maxFrameBytes above it), which hostd reads when it starts",
			ed.path.Display, n, limit)
	}
	ch.edits = []review.Edit{{Path: ed.path, Before: ed.file.Raw, Existed: true, Mode: ed.file.Mode, After: ch.data}}
	if ed.patch.MoveTo != "" {
		dest, e := ed.destination()
		if e != nil {
			return change{}, e
		}
		ch.target = dest
		if w := movedCharset(ed.file.Text, dest); w != "" {
			ed.warnings = append(ed.warnings, w)
		}
		ch.edits = []review.Edit{
			{Path: dest, Mode: ed.file.Mode, After: ch.data},
			{Path: ed.path, Before: ed.file.Raw, Existed: true, Mode: ed.file.Mode, Remove: true},
		}
	}
	return ch, nil
}

// decideLink is REM or a bare MV of a symbolic link: the link itself is
// deleted or moved (keeping its target text, as mv does), and the file it
// leads to is left as it is. Review records the link, so a rollback makes
// it again.
func (ed *editor) decideLink() (change, *wire.ToolError) {
	link := *ed.link
	to, err := link.Readlink()
	if err != nil {
		return change{}, Errorf(wire.ToolFailed, "cannot read the symbolic link %s: %v", link.Display, err)
	}
	remove := review.Edit{Path: link, Before: []byte(to), Existed: true, Remove: true, Link: true}
	if ed.patch.Rem {
		return change{edits: []review.Edit{remove}, target: link, removed: true, link: link, linkTo: to}, nil
	}
	dest, e := ed.destination()
	if e != nil {
		return change{}, e
	}
	return change{edits: []review.Edit{{Path: dest, After: []byte(to), Link: true}, remove}, target: dest, link: link, linkTo: to}, nil
}

// written is what a change left: the bytes that landed at its target, and
// the version the session recorded of them, with the checks that run
// beside the write and after it.
type written struct {
	landed []byte   // nil for a removal or a link
	tag    string   // "" when what landed is not text, or nothing was recorded
	lines  []string // the lines that landed
	fb     *pendingFeedback
	diag   *pendingDiagnostics
}

// write makes the change through review's one change API (mutate), and
// records what landed: the session's version of the file, its registers,
// what a removal or a move invalidates.
func (ed *editor) write(ch change) (written, *wire.ToolError) {
	var w written
	text := ch.linkTo == "" && !ch.removed
	if text {
		// The syntax check runs beside the write, within the call's
		// parse time (feedback.go).
		deadline, _ := ed.parse.Deadline()
		w.fb = ed.c.startFeedback(ed.parse, deadline, ch.target.Abs, ed.body, &ed.dig, true, ch.newBody, ch.copies)
	}
	landed, e := ed.c.mutate(ch.edits)
	if e != nil {
		return written{}, e
	}
	store := ed.c.State.Store
	switch {
	case ch.linkTo != "":
		return w, nil
	case ch.removed:
		store.Invalidate(ed.path.Abs, "was removed by REM")
		ed.c.Diagnostics.Removed(rootOf(ed.c, ed.path.Abs), ed.path.Abs)
		return w, nil
	}
	moved := ch.target.Abs != ed.path.Abs
	if moved {
		store.Invalidate(ed.path.Abs, "was moved to "+ch.target.Display+" by MV")
		ed.c.Diagnostics.Removed(rootOf(ed.c, ed.path.Abs), ed.path.Abs)
	}
	w.landed = landed[ch.target.Abs]
	w.tag, w.lines = ed.record(ch.target, ch.newBody, ch.data, w.landed, ch.seen)
	if err := hashline.Commit(ch.ir, regs{ed.c.State.Registers}); err != nil {
		ed.warnings = append(ed.warnings, fmt.Sprintf("the edit landed but a named register could not be saved: %v", err))
	}
	if w.tag != "" && bytes.Equal(ch.data, w.landed) {
		// A move is a new file where it lands.
		w.diag = ed.c.startDiagnostics(ch.target, ed.body, !moved, ch.newBody, ch.copies)
	}
	return w, nil
}

// render shows a change that was written: the result, its diff, the
// changed lines (or the compact form), and the syntax errors and
// diagnostics the change added.
func (ed *editor) render(ch change, w written) *wire.EditResult {
	res := &wire.EditResult{}
	switch {
	case ch.linkTo != "" && ch.removed:
		res.Path, res.Removed = ch.link.Display, true
		res.Content = fmt.Sprintf("[%s] removed the symbolic link (to %s); %s itself is unchanged", ch.link.Display, ch.linkTo, ed.path.Display)
	case ch.linkTo != "":
		res.Path, res.MovedTo = ch.target.Display, ch.target.Display
		res.Content = fmt.Sprintf("[%s] moved the symbolic link %s here (it still reads %s); %s itself is unchanged", ch.target.Display, ch.link.Display, ch.linkTo, ed.path.Display)
	case ch.removed:
		res.Path, res.Removed = ed.path.Display, true
		res.Diff = boundedDiff(udiff.Unified(quote.Path("a/"+ed.path.Display), "/dev/null", ed.body, ""), ed.c.Limits.MaxResultBytes)
		res.Content = fmt.Sprintf("[%s] removed (%d lines)", ed.path.Display, ed.text.Len())
	default:
		ed.renderText(res, ch, w)
	}
	res.Warnings = ed.warnings
	return res
}

// renderText is render of a change of the file's text.
func (ed *editor) renderText(res *wire.EditResult, ch change, w written) {
	target := ch.target
	if target.Abs != ed.path.Abs {
		res.MovedTo = target.Display
	}
	res.Resolutions = ch.resolutions
	res.Path, res.Tag = target.Display, w.tag
	res.Diff = boundedDiff(windowDiff(quote.Path("a/"+ed.path.Display), quote.Path("b/"+target.Display), ed.lines(), ch.newLines, ch.trailing, ch.final), ed.c.Limits.MaxResultBytes)
	if ed.form == session.FormCompact {
		ed.renderCompact(res, target, w.tag, ch.newLines, w.lines, ch.changed)
	} else {
		res.Content = renderChanged(target.Display, w.tag, w.lines, ch.changed, res.MovedTo != "", !ch.final, ed.c.Limits.MaxResultBytes)
	}
	res.SyntaxErrors = ed.c.addFeedback(w.fb, target, bytes.Equal(ch.data, w.landed), w.lines, &res.Content)
	res.Diagnostics, res.DiagnosticsPending = ed.c.addDiagnostics(w.diag, target, w.lines, &res.Content)
}

// endingOnly is EDIT_NO_CHANGE for an edit that rewrote, with the text
// they have, lines whose ending is not the file's dominant one: what it
// could have meant to change is their ending, which no body can say (a row
// is text; an edit keeps each line's own ending, edit-contract §3.1). The
// way that can is write, which gives every line the dominant ending. nil
// when the edit touched no such line.
func (ed *editor) endingOnly(ir hashline.IR) *wire.ToolError {
	var hit []int
	for _, e := range ir.Edits {
		if _, found := slices.BinarySearch(ed.file.Text.Other, e.Line); found && e.Kind == hashline.KindDelete {
			hit = append(hit, e.Line)
		}
	}
	if len(hit) == 0 {
		return nil
	}
	slices.Sort(hit)
	hit = slices.Compact(hit)
	dominant, other := "LF", "CRLF"
	if ed.file.Text.CRLF {
		dominant, other = other, dominant
	}
	what := "the ops"
	if len(ed.patch.Ops) == 1 {
		what = fmt.Sprintf("%q", ed.patch.Ops[0].Header)
	}
	verb := "ends"
	if len(hit) > 1 {
		verb = "end"
	}
	return Errorf(wire.ToolNoChange, "%s would leave the text of every line as it is, so nothing was written. In %s, %s %s with %s where the other lines end with %s, and an edit cannot change a line ending: it keeps each line's own, and a body row holds text, not an ending. To give every line the %s ending, replace the whole file with write (its complete content); otherwise no edit is needed",
		what, ed.path.Display, spansOf(hit), verb, other, dominant, dominant)
}

// echoed are the block spans an edit resolved, as its result echoes them
// (nil stays nil).
func echoed(rs []hashline.Resolution) []wire.Resolution {
	if rs == nil {
		return nil
	}
	out := make([]wire.Resolution, len(rs))
	for i, r := range rs {
		out[i] = wire.Resolution(r)
	}
	return out
}

// copiesOf converts the edit language's record of unchanged lines.
func copiesOf(cs []hashline.Copy) []workspace.Copy {
	out := make([]workspace.Copy, len(cs))
	for i, c := range cs {
		out[i] = workspace.Copy{New: c.New, Old: c.Old, N: c.N}
	}
	return out
}

// finalState says whether a file ends with a newline, for messages.
func finalState(final bool) string {
	if final {
		return "ends with a newline"
	}
	return "has no newline at its end"
}

// record records what landed, with the lines seen of it, and returns its
// tag and lines.
func (ed *editor) record(p workspace.Path, newBody string, intended, onDisk []byte, seen session.LineSet) (string, []string) {
	l := recordSeen(ed.c, p, newBody, intended, onDisk, seen)
	ed.warnings = append(ed.warnings, l.Warnings...)
	return l.Tag, l.Lines
}

// destination resolves and checks the MV target: writable, inside the
// allowed roots, and not an existing file.
func (ed *editor) destination() (workspace.Path, *wire.ToolError) {
	dest, err := ed.c.State.Workspace.Resolve(ed.patch.MoveTo, workspace.Write)
	if err != nil {
		return workspace.Path{}, resolveError(ed.c, ed.patch.MoveTo, err)
	}
	if dest.Abs == ed.path.Abs {
		return workspace.Path{}, Errorf(wire.ToolInvalidArgument, "MV %s names the file itself; give a new path, or drop the MV", ed.patch.MoveTo)
	}
	exists, err := fileExists(dest)
	if err != nil {
		return workspace.Path{}, Errorf(wire.ToolFailed, "cannot check %s: %v", dest.Display, err)
	}
	if exists {
		return workspace.Path{}, Errorf(wire.ToolInvalidArgument, "MV destination %s already exists and MV never overwrites; choose a new path, or REM that file first", dest.Display)
	}
	return dest, nil
}

// renderChanged shows the new header and every changed region with its
// new line numbers, so the next edit needs no read. A pure deletion shows
// the lines either side of the join. Past maxBytes the rest is summarized:
// those lines are as the model wrote them. When the file's last line is
// shown and unterminated is set, the no-newline marker follows it, as in
// read.
func renderChanged(display, tag string, lines []string, changed []hashline.Region, moved, unterminated bool, maxBytes int64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%s#%s]", display, tag)
	if moved {
		b.WriteString(" (moved here)")
	}
	shown := session.Empty()
	for _, r := range changed {
		if r.Inserted == 0 {
			shown = shown.Add(max(r.End, 1), min(r.Start, len(lines)))
		} else {
			shown = shown.Add(r.Start, r.End)
		}
	}
	prev := 0
	for _, r := range shown.Ranges() {
		if prev != 0 && r.From > prev+1 {
			b.WriteString("\n…")
		}
		for n := r.From; n <= r.To && n <= len(lines); n++ {
			if int64(b.Len()) > maxBytes {
				fmt.Fprintf(&b, "\n(changed lines from %d on are not shown: the output limit is %d bytes; they are as you wrote them, read them to check)", n, maxBytes)
				return b.String()
			}
			fmt.Fprintf(&b, "\n%d:%s", n, lines[n-1])
			if n == len(lines) && unterminated {
				b.WriteString("\n" + noFinalNewline)
			}
		}
		prev = r.To
	}
	if len(lines) == 0 {
		b.WriteString("\n(the file is now empty)")
	}
	return b.String()
}

// diffContext is the unified diff's context, as git's default.
const diffContext = 3

// windowDiff is the unified diff of two versions of a file given as lines
// (labelled as given: quoted, quote.Path, by the caller),
// computed over only the window that differs (the common head and tail
// lines are skipped, but for the context), with hunk headers numbered as
// in the whole files. A one-line change of a 30 MB file diffs a few lines,
// not 30 MB.
func windowDiff(oldLabel, newLabel string, old, cur []string, oldTrailing, curTrailing bool) string {
	// Lines are equal when their text is and neither is a last line
	// without a newline that the other is not.
	same := func(i, j int) bool {
		return old[i] == cur[j] && (i == len(old)-1 && !oldTrailing) == (j == len(cur)-1 && !curTrailing)
	}
	head := 0
	for head < len(old) && head < len(cur) && same(head, head) {
		head++
	}
	tail := 0
	for tail < len(old)-head && tail < len(cur)-head && same(len(old)-1-tail, len(cur)-1-tail) {
		tail++
	}
	if head == len(old) && head == len(cur) {
		return ""
	}
	lo := max(head-diffContext, 0)
	oldHi, curHi := min(len(old)-tail+diffContext, len(old)), min(len(cur)-tail+diffContext, len(cur))
	// Inside the file a window's last line is followed by more, so it
	// ends with a newline; at the end the file's own ending counts.
	oldText := workspace.Join(old[lo:oldHi], oldHi < len(old) || oldTrailing)
	curText := workspace.Join(cur[lo:curHi], curHi < len(cur) || curTrailing)
	d := udiff.Unified(oldLabel, newLabel, oldText, curText)
	if lo == 0 {
		return d
	}
	return hunkHeader.ReplaceAllStringFunc(d, func(h string) string {
		m := hunkHeader.FindStringSubmatch(h)
		a, _ := strconv.Atoi(m[1])
		c, _ := strconv.Atoi(m[3])
		return fmt.Sprintf("@@ -%d%s +%d%s @@", a+lo, m[2], c+lo, m[4])
	})
}

var hunkHeader = regexp.MustCompile(`(?m)^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@`)

// boundedDiff cuts a diff at maxBytes, on a line boundary, saying so; the
// review record keeps the change itself.
func boundedDiff(d string, maxBytes int64) string {
	if int64(len(d)) <= maxBytes {
		return d
	}
	cut := strings.LastIndexByte(d[:maxBytes], '\n') + 1
	return d[:cut] + fmt.Sprintf("… diff cut at %d of %d bytes; review.list holds the change\n", cut, len(d))
}
