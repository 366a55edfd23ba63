package tools

import (
	"fmt"
	"strings"

	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/session"
	"github.com/hostd-dev/hostd/tools/hashline"
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
func (ed *editor) gate() (plan, *wire.ToolError) {
	store := ed.c.State.Store
	path, tag := ed.path.Abs, ed.args.Tag
	if v, ok := store.Match(path, tag, ed.body, ed.dig); ok {
		return ed.direct(&v)
	}
	known, digestMatch := store.Minted(path, tag, ed.dig, ed.text.Len())
	if !known {
		return plan{}, ed.unknownTag()
	}
	if digestMatch {
		// edit-contract §4.5: the text aged out of the store but the ledger
		// proves this is the content the tag was minted for.
		ed.warnings = append(ed.warnings, fmt.Sprintf("the lines you were shown of %s#%s are no longer remembered, so only the version was checked, not that you saw each line; re-read before editing further", ed.path.Display, tag))
		return ed.direct(nil)
	}
	return ed.stale()
}

// unknownTag is EDIT_TAG_UNKNOWN: this session has no such tag for the
// path (edit-contract §4.5). A tag that names the live file all the same
// was shown to another session (or never shown at all): telling the model
// to use the tag the file has would send it back with the very tag it
// sent, so the message says that this session must read the file first.
func (ed *editor) unknownTag() *wire.ToolError {
	tag, live, display := ed.args.Tag, ed.dig.Tag(), ed.path.Display
	var e *wire.ToolError
	why, forgotten := ed.c.State.Store.Forgotten(ed.path.Abs, tag)
	switch {
	case forgotten && tag == live:
		e = Errorf(wire.ToolTagUnknown, "the version of %s your tag %s names %s since this session read it, so this session no longer vouches for the tag, although the file has that content again; read %s in this session before editing it, then use the tag that read shows", display, tag, why, display)
	case forgotten:
		e = Errorf(wire.ToolTagUnknown, "the version of %s your tag %s names %s since this session read it, so the tag no longer applies; read the file again and use the tag it shows (it is %s now)", display, tag, why, live)
	case tag == live:
		e = Errorf(wire.ToolTagUnknown, "tag %s is the current tag of %s, but this session was never shown it: it comes from another session (each session, and each MCP connection, keeps its own tags) or was not shown here. This session must read %s before editing it; then send the edit with the tag that read shows", tag, display, display)
	default:
		e = Errorf(wire.ToolTagUnknown, "this session never read %s with tag %s (a tag from another session, another file, or a guess); read the file and use the tag it shows (it is %s now)", display, tag, live)
	}
	e.Details = wire.TagUnknownDetails{LiveTag: live}
	return e
}

// direct is branch A: the tag names the live text. v is the snapshot whose
// seen lines the provenance gate checks; nil skips the gate.
func (ed *editor) direct(v *session.Version) (plan, *wire.ToolError) {
	// Provenance before determinism (edit-contract §1): the pipeline shows
	// the gate the lines the ops name, then, once blocks resolve, every
	// line of their spans, before it reads any line's content.
	ir, e := ed.plan(ed.body, func(ir hashline.IR) error {
		if e := ed.provenance(v, ir.Anchors()); e != nil {
			return e
		}
		return nil
	})
	if e != nil {
		return plan{}, e
	}
	seen := session.Empty() // the lines shown are no longer remembered
	if v != nil {
		seen = v.Seen
	}
	return plan{ir: ir, echo: true, seen: seen}, nil
}

// liveSeen is what the session has seen of the live text itself, as a
// version it recorded: none when it never recorded that text.
func (ed *editor) liveSeen() session.LineSet {
	if v, ok := ed.c.State.Store.Match(ed.path.Abs, ed.dig.Tag(), ed.body, ed.dig); ok {
		return v.Seen
	}
	return session.Empty()
}

// provenance is the gate of edit-contract §9.1: every anchor must have been
// displayed to this session. The refusal shows the unseen lines, and when
// it shows all of them in full they become seen, so an honest retry of the
// same edit applies without another read.
func (ed *editor) provenance(v *session.Version, anchors []int) *wire.ToolError {
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
	var rows []wire.LineText
	for _, n := range unseen[:min(len(unseen), maxLines)] {
		text, clipped := clipRunes(ed.text.Line(n), maxChars)
		complete = complete && !clipped
		rows = append(rows, wire.LineText{Line: n, Text: text})
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
	e := Errorf(wire.ToolLinesUnseen, "%s", msg)
	e.Details = wire.LinesUnseenDetails{Lines: rows, Merged: complete} // failed shows the rows
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
func renderRows(display, tag string, rows []wire.LineText) string {
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
