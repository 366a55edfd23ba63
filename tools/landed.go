package tools

import (
	"bytes"
	"fmt"
	"time"

	"github.com/hostd-dev/hostd/session"
	"github.com/hostd-dev/hostd/tools/drift"
	"github.com/hostd-dev/hostd/tools/hashline"
	"github.com/hostd-dev/hostd/workspace"
)

// landed is what a mutation left on disk, recorded in the session.
type landed struct {
	Tag      string // "" when what landed is not text
	Lines    []string
	Warnings []string
}

// recordLanded mints the tag of the bytes that landed, not of the bytes
// intended (edit-contract §5.4), and records them. A write authored every
// line, so every line counts as seen - unless a formatter or another
// writer changed the bytes on save: then only the lines that landed
// exactly as written are seen (the rest were never displayed), and a
// one-line warning says so.
func recordLanded(c *Call, p workspace.Path, intendedBody string, intended, onDisk []byte) landed {
	return recordSeen(c, p, intendedBody, intended, onDisk, session.Span(1, len(workspace.Lines(intendedBody))))
}

// recordSeen is recordLanded for a mutation that did not author every
// line: seen is the set of intendedBody's lines the session has seen (an
// edit's, from seenAfter).
func recordSeen(c *Call, p workspace.Path, intendedBody string, intended, onDisk []byte, seen session.LineSet) landed {
	t, err := workspace.DecodeAs(onDisk, p.Charset.Enc)
	if err != nil {
		return landed{Warnings: []string{fmt.Sprintf("%s changed as it was saved and is no longer text, so it has no tag; read it to see what is there", p.Display)}}
	}
	lines := workspace.Lines(t.Body)
	out := landed{Lines: lines}
	if !bytes.Equal(intended, onDisk) {
		seen = sameLines(workspace.Lines(intendedBody), lines, seen)
		out.Warnings = append(out.Warnings, fmt.Sprintf("%s changed as it was saved (%d bytes written, %d on disk: a formatter or another writer?); the tag names the file as it is now, and lines that differ from what you wrote must be read before they are edited", p.Display, len(intended), len(onDisk)))
	}
	out.Tag = c.State.Store.Record(p.Abs, session.Snapshot{
		Digest: workspace.Sum(t.Body), Text: t.Body, HasText: true,
		Lines: len(lines), Bytes: int64(len(onDisk)), Seen: seen,
	})
	return out
}

// sameLines is the set of lines of got (numbered as in got) that the diff
// proves unchanged from want, among those seen in want.
func sameLines(want, got []string, seen session.LineSet) session.LineSet {
	m, err := drift.Diff(want, got, time.Second)
	if err != nil {
		return session.Empty()
	}
	return mapSeen(seen, m)
}

// mapSeen carries a seen set through a map of unchanged lines: a seen line
// the map keeps is seen at its new number; a line it drops is not. An
// unknown set stays unknown.
func mapSeen(seen session.LineSet, m drift.Map) session.LineSet {
	if !seen.Known() {
		return seen
	}
	var out []session.Range
	for _, r := range seen.Ranges() {
		for l := r.From; l <= r.To; l++ {
			n, ok := m.Lookup(l)
			if !ok || n < 1 {
				continue
			}
			if k := len(out) - 1; k >= 0 && out[k].To == n-1 {
				out[k].To = n
			} else {
				out = append(out, session.Range{From: n, To: n})
			}
		}
	}
	return session.Of(out)
}

// seenAfter is the seen set of an edit's result (edit-contract §4.3): the
// lines seen before the edit (prior, numbered as the text the edit was
// applied to) carried to their new numbers, wherever the edit put them (a
// kept line, or a line moved by CUT and PUT), plus every row the edit
// wrote. A line never seen stays unseen, a clipped line too: an edit
// shows the model its own rows, not the rest of the file. An unknown
// prior (no provenance recorded) stays unknown.
func seenAfter(prior session.LineSet, pieces []hashline.Piece) session.LineSet {
	if !prior.Known() {
		return prior
	}
	var out []session.Range
	for _, p := range pieces {
		if p.From == 0 {
			out = append(out, session.Range{From: p.Start, To: p.Start + p.Len - 1})
			continue
		}
		for _, r := range prior.Within(p.From, p.From+p.Len-1) {
			out = append(out, session.Range{From: r.From - p.From + p.Start, To: r.To - p.From + p.Start})
		}
	}
	return session.Of(out)
}
