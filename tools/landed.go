package tools

import (
	"bytes"
	"fmt"
	"time"

	"github.com/hostd-dev/hostd/session"
	"github.com/hostd-dev/hostd/tools/drift"
	"github.com/hostd-dev/hostd/workspace"
)

// landed is what a mutation left on disk, recorded in the session.
type landed struct {
	Tag      string // "" when what landed is not text
	Lines    []string
	Warnings []string
}

// recordLanded mints the tag of the bytes that landed, not of the bytes
// intended (edit-contract §5.4), and records them. The session authored
// every line, so every line counts as seen - unless a formatter or another
// writer changed the bytes on save: then only the lines that landed
// exactly as written are seen (the rest were never displayed), and a
// one-line warning says so.
func recordLanded(c *Call, p workspace.Path, intendedBody string, intended, onDisk []byte) landed {
	t, err := workspace.Decode(onDisk)
	if err != nil {
		return landed{Warnings: []string{fmt.Sprintf("%s changed as it was saved and is no longer text, so it has no tag; read it to see what is there", p.Display)}}
	}
	lines := workspace.Lines(t.Body)
	out := landed{Lines: lines}
	seen := session.Span(1, len(lines))
	if !bytes.Equal(intended, onDisk) {
		seen = sameLines(workspace.Lines(intendedBody), lines)
		out.Warnings = append(out.Warnings, fmt.Sprintf("%s changed as it was saved (%d bytes written, %d on disk: a formatter or another writer?); the tag names the file as it is now, and lines that differ from what you wrote must be read before they are edited", p.Display, len(intended), len(onDisk)))
	}
	out.Tag = c.State.Store.Record(p.Abs, session.Snapshot{
		Digest: workspace.Sum(t.Body), Text: t.Body, HasText: true,
		Lines: len(lines), Bytes: int64(len(onDisk)), Seen: seen,
	})
	return out
}

// sameLines is the set of lines of got (numbered as in got) that the diff
// proves unchanged from want.
func sameLines(want, got []string) session.LineSet {
	seen := session.Empty()
	m, err := drift.Diff(want, got, time.Second)
	if err != nil {
		return seen
	}
	for i := 1; i <= len(want); i++ {
		if n, ok := m.Lookup(i); ok {
			seen = seen.Add(n, n)
		}
	}
	return seen
}
