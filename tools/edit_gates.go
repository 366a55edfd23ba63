package tools

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hostd-dev/hostd/session"
	"github.com/hostd-dev/hostd/tools/drift"
	"github.com/hostd-dev/hostd/tools/hashline"
	"github.com/hostd-dev/hostd/workspace"
)

// plan is an edit that passed every gate: an IR ready to apply to the
// live lines.
type plan struct {
	ir      hashline.IR
	applied *hashline.Result // set when a gate already applied the IR
	echo    bool             // resolved block spans index the live file (branch A)
	// seen is what the session has seen of the live lines, numbered as
	// they are; the edit carries it to the new version (seenAfter).
	seen session.LineSet
}

// gate runs the version gate and picks the branch of edit-contract §9:
// A (the tag names the live content), B (a stale tag, but only head and
// tail inserts), C (a stale tag, recovered by §10) or D (rejected).
func (ed *editor) gate() (*plan, *Error) {
	store := ed.c.State.Store
	path, tag := ed.path.Abs, ed.args.Tag
	if v, ok := store.Match(path, tag, ed.body, ed.dig); ok {
		return ed.direct(&v)
	}
	known, digestMatch := store.Minted(path, tag, ed.dig, ed.text.Len())
	if !known {
		if why, ok := store.Forgotten(path, tag); ok {
			e := Errorf(CodeTagUnknown, "the version of %s your tag %s names %s since this session read it, so the tag no longer applies; read the file again and use the tag it shows (it is %s now)", ed.path.Display, tag, why, ed.dig.Tag())
			e.Details = map[string]any{"liveTag": ed.dig.Tag()}
			return nil, e
		}
		e := Errorf(CodeTagUnknown, "this session never read %s with tag %s (a tag from another session, another file, or a guess); read the file and use the tag it shows (it is %s now)", ed.path.Display, tag, ed.dig.Tag())
		e.Details = map[string]any{"liveTag": ed.dig.Tag()}
		return nil, e
	}
	if digestMatch {
		// edit-contract §4.5: the text aged out of the store but the ledger
		// proves this is the content the tag was minted for.
		ed.warnings = append(ed.warnings, fmt.Sprintf("the lines you were shown of %s#%s are no longer remembered, so only the version was checked, not that you saw each line; re-read before editing further", ed.path.Display, tag))
		return ed.direct(nil)
	}
	return ed.stale()
}

// direct is branch A: the tag names the live text. v is the snapshot whose
// seen lines the provenance gate checks; nil skips the gate.
func (ed *editor) direct(v *session.Version) (*plan, *Error) {
	lim := hashline.LimitsFrom(ed.c.Limits)
	ir, err := hashline.Lower(ed.patch, ed.text.Len(), lim)
	if err != nil {
		return nil, languageError(err)
	}
	// Provenance before determinism (edit-contract §1): the lines the model
	// named, then, once blocks resolve, every line of their spans.
	if e := ed.provenance(v, ir.Anchors()); e != nil {
		return nil, e
	}
	ir, e := ed.resolve(ir)
	if e != nil {
		return nil, e
	}
	if e := ed.provenance(v, ir.Anchors()); e != nil {
		return nil, e
	}
	seen := session.Empty() // the lines shown are no longer remembered
	if v != nil {
		seen = v.Seen
	}
	return &plan{ir: ir, echo: true, seen: seen}, nil
}

// liveSeen is what the session has seen of the live text itself, as a
// version it recorded: none when it never recorded that text.
func (ed *editor) liveSeen() session.LineSet {
	if v, ok := ed.c.State.Store.Match(ed.path.Abs, ed.dig.Tag(), ed.body, ed.dig); ok {
		return v.Seen
	}
	return session.Empty()
}

// resolve runs the determinism steps on an IR anchored on lines: block
// resolution against text, the clipboard pre-pass, validation, and the
// conservative boundary repair of edit-contract §8.4 (whose warnings join
// the result's).
func (ed *editor) resolve(ir hashline.IR) (hashline.IR, *Error) {
	text := ed.body
	var resolver hashline.BlockResolver
	if hasBlocks(ir) && ed.c.Blocks != nil {
		r, err := ed.c.Blocks(ed.parse, ed.path.Abs, text)
		if err != nil {
			return hashline.IR{}, Errorf(CodeBlockUnresolved, "block ops are unavailable for %s: %v; use a line range (PUT N.=M:, CUT N.=M) instead", ed.path.Display, err)
		}
		defer r.Close()
		resolver = r
	}
	ir, err := hashline.ResolveBlocks(ir, resolver)
	if err != nil {
		return hashline.IR{}, languageError(err)
	}
	if ir, err = hashline.ExpandText(ir, ed.text, regs{ed.c.State.Registers}); err != nil {
		return hashline.IR{}, languageError(err)
	}
	if err := hashline.Validate(ir); err != nil {
		return hashline.IR{}, languageError(err)
	}
	var syn hashline.Syntax
	if ed.c.Syntax != nil {
		syn = ed.c.Syntax(ed.parse, ed.path.Abs, text)
	}
	sent := ir
	ir, warnings, err := hashline.RepairText(ed.text, ir, syn)
	if err != nil {
		return hashline.IR{}, languageError(err)
	}
	ed.warnings = append(ed.warnings, warnings...)
	ed.authored = nil
	if len(warnings) > 0 { // every repair names itself in a warning
		ed.authored = &sent
	}
	return ir, nil
}

// provenance is the gate of edit-contract §9.1: every anchor must have been
// displayed to this session. The refusal shows the unseen lines, and when
// it shows all of them in full they become seen, so an honest retry of the
// same edit applies without another read.
func (ed *editor) provenance(v *session.Version, anchors []int) *Error {
	if v == nil || !v.Seen.Known() {
		return nil
	}
	var unseen []int
	for _, a := range anchors {
		if a >= 1 && a <= ed.text.Len() && !v.Seen.Contains(a) {
			unseen = append(unseen, a)
		}
	}
	if len(unseen) == 0 {
		return nil
	}
	maxLines, maxChars := ed.c.Limits.MaxRevealLines, ed.c.Limits.MaxRevealLineChars
	complete := len(unseen) <= maxLines
	var rows []lineText
	for _, n := range unseen[:min(len(unseen), maxLines)] {
		text, clipped := clipRunes(ed.text.Line(n), maxChars)
		complete = complete && !clipped
		rows = append(rows, lineText{Line: n, Text: text})
	}
	spans := spansOf(unseen)
	var msg string
	if complete {
		set := session.Empty()
		for _, n := range unseen {
			set = set.Add(n, n)
		}
		complete = ed.c.State.Store.MarkSeen(ed.path.Abs, *v, set)
	}
	if complete {
		msg = fmt.Sprintf("your edit anchors on %s of %s, which you were never shown. It is shown below and now counts as seen: check that it is what you meant, then retry the same edit with tag %s", spans, ed.path.Display, ed.args.Tag)
		if len(unseen) > 1 {
			msg = fmt.Sprintf("your edit anchors on %s of %s, which you were never shown. They are shown below and now count as seen: check that they are what you meant, then retry the same edit with tag %s", spans, ed.path.Display, ed.args.Tag)
		}
	} else {
		part := "them"
		if len(unseen) == 1 {
			part = "it"
		}
		msg = fmt.Sprintf("your edit anchors on %s of %s, which you were never shown; only part of %s is shown below", spans, ed.path.Display, part)
		long, rest := ed.overClip(unseen)
		if len(long) > 0 {
			msg += ". " + ed.writeOnly(long)
		}
		if len(rest) > 0 {
			first, last := rest[0], rest[len(rest)-1]
			if len(long) == 0 {
				msg += fmt.Sprintf(". Read them with read (path %q, offset %d, limit %d) and retry", ed.path.Display, first, last-first+1)
			} else {
				msg += fmt.Sprintf(". Read %s with read (path %q, offset %d, limit %d) and retry an edit that leaves %s alone", spansOf(rest), ed.path.Display, first, last-first+1, spansOf(long))
			}
		}
	}
	e := Errorf(CodeLinesUnseen, "%s", msg)
	e.Details = map[string]any{"lines": rows, "merged": complete}
	ed.errContent = renderRows(ed.path.Display, ed.args.Tag, rows)
	return e
}

// overClip splits line numbers of the live text into those longer than
// the read clip (config.Limits.MaxLineChars) and the rest. No read shows
// a clipped line whole, so it never counts as seen (edit-contract §4.3)
// and no edit can anchor on it.
func (ed *editor) overClip(lines []int) (long, rest []int) {
	for _, n := range lines {
		if _, clipped := clipLine(ed.text.Line(n), ed.c.Limits.MaxLineChars); clipped {
			long = append(long, n)
		} else {
			rest = append(rest, n)
		}
	}
	return long, rest
}

// writeOnly is the next step for lines over the read clip: reading them
// again clips them again, so only write can change them.
func (ed *editor) writeOnly(long []int) string {
	if len(long) == 1 {
		return fmt.Sprintf("%s is longer than the %d characters read shows of a line, so no read shows it whole and edit can never anchor on it or change it: only write, with the whole new content of %s, can change that line", spansOf(long), ed.c.Limits.MaxLineChars, ed.path.Display)
	}
	return fmt.Sprintf("%s are longer than the %d characters read shows of a line, so no read shows them whole and edit can never anchor on them or change them: only write, with the whole new content of %s, can change those lines", spansOf(long), ed.c.Limits.MaxLineChars, ed.path.Display)
}

// stale handles a tag that names another version than the live one:
// branch B, then C, else D.
func (ed *editor) stale() (*plan, *Error) {
	lim := hashline.LimitsFrom(ed.c.Limits)
	// An EOF op alone is position-stable too: the end of the file is where
	// it is, whatever changed above it.
	eofOnly := len(ed.patch.Ops) == 0 && ed.patch.MoveTo == "" && ed.patch.EOF != hashline.EOFKeep
	if ir, err := hashline.Lower(ed.patch, ed.text.Len(), lim); err == nil && (ir.HeadTailOnly() || eofOnly) {
		ir, e := ed.resolve(ir)
		if e != nil {
			return nil, e
		}
		ed.warnings = append(ed.warnings, fmt.Sprintf("%s changed since tag %s (it is now %s); your ops only insert at the top or the end of the file or set its final newline, which no change can move, so they were applied to the current file", ed.path.Display, ed.args.Tag, ed.dig.Tag()))
		return &plan{ir: ir, seen: ed.liveSeen()}, nil
	}
	p, why, e := ed.recoverDrift()
	if e != nil {
		return nil, e
	}
	if p != nil {
		return p, nil
	}
	return nil, ed.mismatch(why)
}

// recoverDrift is branch C (edit-contract §10). It returns a plan, or the
// reason it declined, or an error in the edit itself (which no re-read
// would fix).
func (ed *editor) recoverDrift() (p *plan, why string, e *Error) {
	// A declined recovery leaves no warning of its attempt behind.
	kept := len(ed.warnings)
	defer func() {
		if p == nil {
			ed.warnings = ed.warnings[:kept]
		}
	}()
	store := ed.c.State.Store
	var snap *session.Version
	for _, v := range store.Tagged(ed.path.Abs, ed.args.Tag) {
		if v.Retained {
			snap = &v
			break
		}
	}
	if snap == nil {
		return nil, "the version you read is no longer held, so the edit cannot be moved onto the current file", nil
	}
	old := workspace.Lines(snap.Text)
	lim := hashline.LimitsFrom(ed.c.Limits)
	ir, err := hashline.Lower(ed.patch, len(old), lim)
	if err != nil {
		return nil, "", languageError(err)
	}
	if hasBlocks(ir) {
		// Blocks resolve against the tagged snapshot (edit-contract §8.2).
		var resolver hashline.BlockResolver
		if ed.c.Blocks != nil {
			r, rerr := ed.c.Blocks(ed.parse, ed.path.Abs, snap.Text)
			if rerr != nil {
				return nil, "", Errorf(CodeBlockUnresolved, "block ops are unavailable for %s: %v; use a line range instead", ed.path.Display, rerr)
			}
			defer r.Close()
			resolver = r
		}
		if ir, err = hashline.ResolveBlocks(ir, resolver); err != nil {
			return nil, "", languageError(err)
		}
	}
	anchors := ir.Anchors()
	if snap.Seen.Known() {
		for _, a := range anchors {
			if !snap.Seen.Contains(a) {
				return nil, fmt.Sprintf("line %d was never shown to you in that version", a), nil
			}
		}
	}
	timeout := time.Duration(ed.c.Limits.RecoveryDiffTimeoutMs) * time.Millisecond
	m, err := drift.Diff(old, ed.lines(), timeout)
	if err != nil {
		return nil, err.Error(), nil
	}
	off, err := drift.Check(old, ed.lines(), m, anchors)
	if err != nil {
		return nil, err.Error(), nil
	}
	moved, err := ir.Remap(func(l int) (int, bool) { return l + off, true })
	if err != nil {
		return nil, err.Error(), nil
	}
	moved.NumLines = ed.text.Len()
	moved.Resolutions = nil // spans are not echoed after a recovery
	final, e := ed.resolve(moved)
	if e != nil {
		return nil, "replaying the edit on the current file failed: " + e.Message, nil
	}
	applied, err := hashline.Apply(ed.lines(), final)
	switch {
	case errors.Is(err, hashline.ErrNoChange) && ed.patch.EOF != hashline.EOFKeep:
		// The lines come out as they are, but EOF may still change the
		// final newline; commit decides whether anything changes.
		applied = hashline.Result{Lines: ed.lines(), Copies: []hashline.Copy{{New: 1, Old: 1, N: ed.text.Len()}}}
	case errors.Is(err, hashline.ErrNoChange):
		return nil, "replayed on the current file, the edit changes nothing (the change may already be there)", nil
	case err != nil:
		return nil, "replaying the edit on the current file failed: " + err.Error(), nil
	}
	ed.recoveryWarnings(snap, off)
	// The lines seen of the version read, where the diff proves them
	// unchanged, and whatever the session saw of the live text itself.
	seen := mapSeen(snap.Seen, m).Union(ed.liveSeen())
	return &plan{ir: final, applied: &applied, seen: seen}, "", nil
}

func (ed *editor) recoveryWarnings(snap *session.Version, off int) {
	live := ed.dig.Tag()
	if head, ok := ed.c.State.Store.Head(ed.path.Abs); ok && head.Digest == snap.Digest && head.Text == snap.Text {
		ed.warnings = append(ed.warnings, fmt.Sprintf("external change: %s was changed outside this session since you read it as %s (now %s); every line your edit touches is unchanged, so it was applied to the current file. Re-read other parts before editing them", ed.path.Display, ed.args.Tag, live))
	} else {
		ed.warnings = append(ed.warnings, fmt.Sprintf("session chain: tag %s names an older version of %s from earlier in this session; your edit was applied to the current version. Always use the tag and line numbers of your latest edit result", ed.args.Tag, ed.path.Display))
	}
	if off != 0 {
		ed.warnings = append(ed.warnings, fmt.Sprintf("line remap: the lines you named moved by %+d; the changed lines above carry their current numbers", off))
	}
}

// mismatch is branch D: EDIT_TAG_MISMATCH with the live tag and the
// current content where the edit was aimed, so the retry needs at most
// one read of that range. The lines shown are displayed in full, so they
// are recorded as seen under the live tag, like a read of them: when they
// are all the retry touches, it needs no read at all.
func (ed *editor) mismatch(why string) *Error {
	anchors := patchAnchors(ed.patch)
	rows, seen := contextRows(ed.lines(), anchors, ed.c.Limits.MaxRevealLines, ed.c.Limits.MaxRevealLineChars)
	live := ed.c.State.Store.Record(ed.path.Abs, session.Snapshot{
		Digest: ed.dig, Text: ed.body, HasText: true,
		Lines: ed.text.Len(), Bytes: int64(len(ed.file.Raw)), Seen: seen,
	})
	var b strings.Builder
	fmt.Fprintf(&b, "%s changed since tag %s (it is now %s)", ed.path.Display, ed.args.Tag, live)
	if why != "" {
		fmt.Fprintf(&b, " and the edit could not be moved safely: %s", why)
	}
	if len(rows) > 0 {
		first, last := rows[0].Line, rows[len(rows)-1].Line
		fmt.Fprintf(&b, ". Its current lines %d-%d are shown below: if they are all your edit touches, redo it against them with tag %s; otherwise read what you need (read with path %q, offset %d, limit %d) first", first, last, live, ed.path.Display, first, last-first+1)
	} else {
		fmt.Fprintf(&b, ". Read the file again and redo the edit with the tag that read shows")
	}
	e := Errorf(CodeTagMismatch, "%s", b.String())
	e.Details = map[string]any{"liveTag": live, "context": rows}
	ed.errContent = renderRows(ed.path.Display, live, rows)
	return e
}

// lineText is one line shown in an error.
type lineText struct {
	Line int    `json:"line"`
	Text string `json:"text"`
}

// patchAnchors lists the lines a patch names, straight from its locators,
// for the context of a rejection when the IR itself cannot be built.
func patchAnchors(p *hashline.Patch) []int {
	var out []int
	for _, op := range p.Ops {
		switch op.Loc.Kind {
		case hashline.LocEnd:
		case hashline.LocRange:
			for l := op.Loc.Start; l <= op.Loc.End && l-op.Loc.Start < 1000; l++ {
				out = append(out, l)
			}
		default:
			out = append(out, op.Loc.Start)
		}
	}
	return out
}

// contextRows returns the live lines around each anchor (two either side),
// ascending, at most maxLines, each clipped to maxChars, and the set of
// those shown in full.
func contextRows(live []string, anchors []int, maxLines, maxChars int) ([]lineText, session.LineSet) {
	want := session.Empty()
	for _, a := range anchors {
		want = want.Add(max(a-2, 1), min(a+2, len(live)))
	}
	var rows []lineText
	seen := session.Empty()
	for _, r := range want.Ranges() {
		for n := r.From; n <= r.To && len(rows) < maxLines; n++ {
			text, clipped := clipRunes(live[n-1], maxChars)
			rows = append(rows, lineText{Line: n, Text: text})
			if !clipped {
				seen = seen.Add(n, n)
			}
		}
	}
	return rows, seen
}

// clipRunes clips s to n characters for an error's reveal, marking a cut
// with an ellipsis, and reports whether it cut.
func clipRunes(s string, n int) (string, bool) {
	out, clipped := clipLine(s, n)
	if clipped {
		out += "…"
	}
	return out, clipped
}

// spansOf renders ascending line numbers as "line 3" or "lines 3, 7-9".
func spansOf(lines []int) string {
	set := session.Empty()
	for _, n := range lines {
		set = set.Add(n, n)
	}
	var parts []string
	for _, r := range set.Ranges() {
		if r.From == r.To {
			parts = append(parts, fmt.Sprint(r.From))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", r.From, r.To))
		}
	}
	if len(lines) == 1 {
		return "line " + parts[0]
	}
	return "lines " + strings.Join(parts, ", ")
}

// renderRows renders lines under a [PATH#TAG] header, as read does.
func renderRows(display, tag string, rows []lineText) string {
	if len(rows) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[%s#%s]\n", display, tag)
	for _, r := range rows {
		fmt.Fprintf(&b, "%d:%s\n", r.Line, r.Text)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// hasBlocks reports whether an IR still holds block locators.
func hasBlocks(ir hashline.IR) bool {
	for _, e := range ir.Edits {
		if e.Kind == hashline.KindBlock {
			return true
		}
	}
	return false
}
