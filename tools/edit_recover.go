package tools

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/session"
	"github.com/hostd-dev/hostd/tools/drift"
	"github.com/hostd-dev/hostd/tools/hashline"
	"github.com/hostd-dev/hostd/workspace"
)

// A stale tag: the version gate's branches B (head and tail inserts), C
// (drift recovery, edit-contract §10) and D (EDIT_TAG_MISMATCH).

// stale handles a tag that names another version than the live one:
// branch B, then C, else D.
func (ed *editor) stale() (plan, *wire.ToolError) {
	// An EOF op alone is position-stable too: the end of the file is where
	// it is, whatever changed above it.
	eofOnly := len(ed.patch.Ops) == 0 && ed.patch.MoveTo == "" && ed.patch.EOF != hashline.EOFKeep
	stable := false
	ir, e := ed.plan(ed.body, func(ir hashline.IR) error {
		if !ir.HeadTailOnly() && !eofOnly {
			return errNotStable
		}
		stable = true
		return nil
	})
	switch {
	case stable && e != nil:
		return plan{}, e
	case stable:
		ed.warnings = append(ed.warnings, fmt.Sprintf("%s changed since tag %s (it is now %s); your ops only insert at the top or the end of the file or set its final newline, which no change can move, so they were applied to the current file", ed.path.Display, ed.args.Tag, ed.dig.Tag()))
		return plan{ir: ir, seen: ed.liveSeen()}, nil
	}
	p, why, e := ed.recoverDrift()
	switch {
	case e != nil:
		return plan{}, e
	case why != "":
		return plan{}, ed.mismatch(why)
	}
	return p, nil
}

// errNotStable is branch B's gate refusing an edit that anchors on lines;
// errUnseen is branch C's refusing an anchor the version read never
// showed. Neither reaches the model: they send the edit on to the next
// branch.
var (
	errNotStable = errors.New("the edit anchors on lines")
	errUnseen    = errors.New("an anchor was never shown")
)

// recoverDrift is branch C (edit-contract §10). It returns a plan, or the
// reason it declined (never empty), or an error in the edit itself (which
// no re-read would fix).
func (ed *editor) recoverDrift() (p plan, why string, e *wire.ToolError) {
	// Only a recovery that succeeds leaves warnings: they are added last.
	store := ed.c.State.Store
	var snap *session.Version
	for _, v := range store.Tagged(ed.path.Abs, ed.args.Tag) {
		if v.Retained {
			snap = &v
			break
		}
	}
	if snap == nil {
		return plan{}, "the version you read is no longer held, so the edit cannot be moved onto the current file", nil
	}
	old := workspace.Lines(snap.Text)
	// The edit is anchored on the version the tag names, its blocks
	// resolved there (edit-contract §8.2), and every anchor must have been
	// shown in it (§9.1).
	env, done := ed.env(snap.Text, func(ir hashline.IR) error {
		if !snap.Seen.Known() {
			return nil
		}
		for _, a := range ir.Anchors() {
			if !snap.Seen.Contains(a) {
				why = fmt.Sprintf("line %d was never shown to you in that version", a)
				return errUnseen
			}
		}
		return nil
	})
	ir, err := hashline.Anchor(ed.patch, len(old), env)
	done()
	switch {
	case errors.Is(err, errUnseen):
		return plan{}, why, nil
	case err != nil:
		return plan{}, "", ed.planError(err)
	}
	anchors := ir.Anchors()
	timeout := time.Duration(ed.c.Limits.RecoveryDiffTimeoutMs) * time.Millisecond
	m, err := drift.Diff(old, ed.lines(), timeout)
	if err != nil {
		return plan{}, err.Error(), nil
	}
	off, err := drift.Check(old, ed.lines(), m, anchors)
	if err != nil {
		return plan{}, err.Error(), nil
	}
	moved, err := ir.Remap(func(l int) (int, bool) { return l + off, true })
	if err != nil {
		return plan{}, err.Error(), nil
	}
	moved.NumLines = ed.text.Len()
	moved.Resolutions = nil // spans are not echoed after a recovery
	// Settled on the live text; a repair question shows its ops in the
	// numbers of the version the model holds.
	live, done := ed.env(ed.body, nil)
	live.Shown = func(l int) int { return l - off }
	final, warnings, err := hashline.Settle(ed.text, ed.patch, moved, live)
	done()
	var he *hashline.Error
	switch {
	case errors.As(err, &he) && he.Question != nil:
		return plan{}, "", ed.planError(err)
	case err != nil:
		return plan{}, "replaying the edit on the current file failed: " + languageError(err).Message, nil
	}
	applied, err := hashline.Apply(ed.lines(), final)
	switch {
	case errors.Is(err, hashline.ErrNoChange) && ed.patch.EOF != hashline.EOFKeep:
		// The lines come out as they are, but EOF may still change the
		// final newline; decide says whether anything changes.
		applied = hashline.Result{Lines: ed.lines(), Copies: []hashline.Copy{{New: 1, Old: 1, N: ed.text.Len()}}}
	case errors.Is(err, hashline.ErrNoChange):
		return plan{}, "replayed on the current file, the edit changes nothing (the change may already be there)", nil
	case err != nil:
		return plan{}, "replaying the edit on the current file failed: " + languageError(err).Error(), nil
	}
	ed.warnings = append(ed.warnings, warnings...)
	ed.recoveryWarnings(snap, off)
	// The lines seen of the version read, where the diff proves them
	// unchanged, and whatever the session saw of the live text itself.
	seen := mapSeen(snap.Seen, m).Union(ed.liveSeen())
	return plan{ir: final, applied: &applied, seen: seen}, "", nil
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
func (ed *editor) mismatch(why string) *wire.ToolError {
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
	e := Errorf(wire.ToolTagMismatch, "%s", b.String())
	e.Details = wire.TagMismatchDetails{LiveTag: live, Context: &rows} // failed shows the rows
	return e
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
func contextRows(live []string, anchors []int, maxLines, maxChars int) ([]wire.LineText, session.LineSet) {
	want := session.Empty()
	for _, a := range anchors {
		want = want.Add(max(a-2, 1), min(a+2, len(live)))
	}
	var rows []wire.LineText
	seen := session.Empty()
	for _, r := range want.Ranges() {
		for n := r.From; n <= r.To && len(rows) < maxLines; n++ {
			text, clipped := clipRunes(live[n-1], maxChars)
			rows = append(rows, wire.LineText{Line: n, Text: text})
			if !clipped {
				seen = seen.Add(n, n)
			}
		}
	}
	return rows, seen
}
