package review

import (
	"fmt"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"

	"github.com/hostd-dev/hostd/internal/quote"
	"github.com/hostd-dev/hostd/workspace"
	"github.com/hostd-dev/hostd/workspace/textenc"
)

// Diff bounds. An entry's diff is for a person to read in the desktop app;
// past these sizes a summary line serves them better than megabytes of
// hunks, and the store stays small.
const (
	// MaxDiffInputBytes: content larger than this on either side is not
	// diffed at all; the entry carries a one-line summary instead.
	MaxDiffInputBytes = 4 << 20
	// MaxDiffBytes: a longer diff is cut at a line boundary and ends with
	// a line saying how much was left out.
	MaxDiffBytes = 256 << 10
)

// diffContext is the unified-diff context, as git and patch default to.
const diffContext = 3

// renderDiff describes one entry's change for a person: a unified diff
// labelled a/PATH b/PATH, or one summary line for binary or oversized
// content. Its length never exceeds MaxDiffBytes plus one short line. A
// side not in UTF-8 (a byte-order mark, or enc, the workspace's setting
// for the path) is diffed as its decoded, normalized text.
//
// Every path it prints is quoted as git quotes one (quote.Path): a file
// name holding a newline must not end a header line and forge the lines
// after it.
func renderDiff(display string, before, after Facts, beforeData, afterData []byte, enc textenc.Encoding) string {
	oldLabel, newLabel := quote.Path("a/"+display), quote.Path("b/"+display)
	shown := quote.Path(display)
	if before.Link || after.Link {
		return fmt.Sprintf("symbolic link %s: %s -> %s\n", shown, linkSide(before, beforeData), linkSide(after, afterData))
	}
	switch {
	case before.Size > MaxDiffInputBytes || after.Size > MaxDiffInputBytes:
		return fmt.Sprintf("diff omitted: %s is too large to diff (%s before, %s after; the bound is %s)\n",
			shown, sizeOf(before), sizeOf(after), humanBytes(MaxDiffInputBytes))
	}
	old, oldText := diffSide(before, beforeData, enc)
	cur, curText := diffSide(after, afterData, enc)
	if !oldText || !curText {
		return fmt.Sprintf("Binary files %s and %s differ (%s before, %s after)\n",
			oldLabel, newLabel, sizeOf(before), sizeOf(after))
	}
	edits := udiff.Lines(old, cur)
	d, err := udiff.ToUnified(oldLabel, newLabel, old, edits, diffContext)
	if err != nil {
		// The edits come from the same library and the same text, so this
		// is a library bug; a summary keeps the entry usable.
		return fmt.Sprintf("diff unavailable for %s: %v\n", shown, err)
	}
	return clipDiff(d)
}

// linkSide describes one side of a change to a symbolic link.
func linkSide(f Facts, data []byte) string {
	switch {
	case !f.Exists:
		return "(absent)"
	case f.Link:
		return fmt.Sprintf("link to %q", data)
	}
	return "a regular file of " + sizeOf(f)
}

// clipDiff cuts d to MaxDiffBytes at a line boundary and says so.
func clipDiff(d string) string {
	if len(d) <= MaxDiffBytes {
		return d
	}
	cut := strings.LastIndexByte(d[:MaxDiffBytes], '\n') + 1
	return d[:cut] + fmt.Sprintf("... diff truncated: showing %s of %s\n", humanBytes(int64(cut)), humanBytes(int64(len(d))))
}

// driftNote is appended to an entry whose landed bytes differ from the
// intended ones (edit-contract §5.4): the diff describes the change the
// tool made, and this line says that the file as saved is not that.
func driftNote(landed Facts) string {
	if !landed.Exists {
		return "note: the file was not saved as this change describes; it is absent now\n"
	}
	return fmt.Sprintf("note: the file as saved differs from this change (a formatter or another writer changed it on save): %s, sha256 %s\n",
		humanBytes(landed.Size), landed.SHA256)
}

// diffSide is what one side of a change is diffed as, and whether it is
// text by the project's one definition (edit-contract §3.4, §3.5): a file
// in UTF-8 as its bytes, one in another encoding as its decoded text.
func diffSide(f Facts, data []byte, enc textenc.Encoding) (string, bool) {
	if !f.Exists {
		return "", true
	}
	t, err := workspace.DecodeAs(data, enc)
	switch {
	case err != nil:
		return "", false
	case t.Enc.IsUTF8():
		return string(data), true
	}
	return t.Body, true
}

func sizeOf(f Facts) string {
	if !f.Exists {
		return "absent"
	}
	return humanBytes(f.Size)
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// Diff describes for a person what replacing from by to at a path does,
// as an entry's diff does (a unified diff, or one summary line).
func Diff(display string, from, to State) string {
	return renderDiff(display, stateFacts(from), stateFacts(to), from.Data, to.Data, textenc.UTF8)
}
