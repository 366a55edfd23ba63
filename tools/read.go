package tools

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/session"
	"github.com/hostd-dev/hostd/tools/linewindow"
	"github.com/hostd-dev/hostd/workspace"
)

// Read is the read tool (edit-contract §5.1, wire-contract §4 read): a window of
// a text file as numbered lines under the [PATH#TAG] header of the whole
// file. It records the file in the session's snapshot store with exactly
// the lines it displayed, so paginated reads of an unchanged file fuse into
// one tag.
type Read struct{}

// Name implements Tool.
func (Read) Name() string { return "read" }

type readArgs struct {
	Path   string `json:"path"`
	Offset *int   `json:"offset"`
	Limit  *int   `json:"limit"`
	// Mode "outline" lists the file's declarations instead of its lines
	// (outline.go); absent or "" reads lines.
	Mode string `json:"mode"`
	// Since is a tag of the file this session holds: the read shows
	// only what changed since that version (read_since.go).
	Since string `json:"since"`
}

// Run implements Tool.
func (Read) Run(ctx context.Context, c *Call) Outcome {
	var a readArgs
	if e := DecodeArgs(c.Args, &a); e != nil {
		return Failed(e)
	}
	if a.Since != "" && (a.Mode != "" || a.Offset != nil || a.Limit != nil) {
		return Failed(Errorf(wire.ToolInvalidArgument, "since shows what changed in the whole file, so it takes no mode, offset or limit: pass path and since alone, or drop since to read a window"))
	}
	switch a.Mode {
	case "":
	case modeOutline:
		return readOutline(ctx, c, a)
	default:
		return Failed(Errorf(wire.ToolInvalidArgument, "mode %q is not a read mode: use \"outline\" for the file's declarations, or omit mode to read lines", a.Mode))
	}
	offset, limit := 1, c.Limits.DefaultReadLimit
	if a.Offset != nil {
		if *a.Offset < 1 {
			return Failed(Errorf(wire.ToolInvalidArgument, "offset %d is not a line number: lines are numbered from 1; use offset 1 to read from the top", *a.Offset))
		}
		offset = *a.Offset
	}
	if a.Limit != nil {
		if *a.Limit < 1 {
			return Failed(Errorf(wire.ToolInvalidArgument, "limit %d must be at least 1; omit it to read %d lines", *a.Limit, c.Limits.DefaultReadLimit))
		}
		limit = *a.Limit
	}
	capped := limit > c.Limits.MaxReadLimit
	limit = min(limit, c.Limits.MaxReadLimit)

	p, e := resolveArg(c, a.Path, workspace.Read)
	if e != nil {
		return Failed(e)
	}
	f, _, e := openRegular(p)
	if e != nil {
		return Failed(readOpenError(c, p, e))
	}
	defer f.Close()
	w, err := linewindow.ReadContext(ctx, f, linewindow.Options{
		Offset:       offset,
		Limit:        limit,
		MaxLineChars: c.Limits.MaxLineChars,
		RetainBytes:  c.Limits.MaxRetainedFileBytes,
		Encoding:     p.Charset.Enc,

		MaxWindowBytes: c.Limits.MaxResultBytes,
	})
	switch {
	case errors.Is(err, workspace.ErrNotText):
		return Failed(notText(p, err))
	case ctx.Err() != nil:
		return Failed(Errorf(wire.ToolFailed, "the read of %s was cancelled; nothing was recorded, call again", p.Display))
	case err != nil:
		return Failed(Errorf(wire.ToolFailed, "cannot read %s: %v; call again", p.Display, err))
	}
	if a.Since != "" {
		return readSince(c, p, w, a.Since, limit, capped)
	}
	return plainRead(c, p, w, offset, limit, capped, session.Empty(), "")
}

// plainRead records and renders a window: the lines it displayed, and
// carried (lines of the file a since read proved the session has seen)
// are seen; note, when set, heads the notice.
func plainRead(c *Call, p workspace.Path, w *linewindow.Window, offset, limit int, capped bool, carried session.LineSet, note string) *wire.ReadResult {
	tag := c.State.Store.Record(p.Abs, session.Snapshot{
		Digest:  w.Digest,
		Text:    w.Body,
		HasText: w.Retained,
		Lines:   w.TotalLines,
		Bytes:   w.FileBytes,
		Seen:    displayedLines(w.Lines).Union(carried),
	})
	c.warm(p.Abs, w)
	r := &wire.ReadResult{
		Path:       p.Display,
		Root:       string(p.Root),
		Offset:     offset,
		LineCount:  len(w.Lines),
		TotalLines: w.TotalLines,
		FileBytes:  w.FileBytes,
		Tag:        tag,
	}
	if n := len(w.Lines); n > 0 {
		r.Truncated = w.Lines[n-1].N < w.TotalLines
	}
	r.Notice = readNotice(r, limit, capped, c.Limits.MaxResultBytes)
	if note != "" {
		r.Notice = strings.TrimSuffix(note+"; "+r.Notice, "; ")
	}
	unterminated := w.Unterminated && len(w.Lines) > 0 && w.Lines[len(w.Lines)-1].N == w.TotalLines
	r.Content = renderWindow(p.Display, tag, w.Lines, c.Limits.MaxLineChars, unterminated, r.Notice)
	return r
}

// displayedLines is the seen set of a window: every line it shows in full.
// A clipped line is shown only in part and stays unseen (§4.3).
func displayedLines(lines []linewindow.Line) session.LineSet {
	seen := session.Empty()
	from := 0 // first line of the current run of unclipped lines, 0 if none
	for i, l := range lines {
		if l.Clipped {
			if from > 0 {
				seen = seen.Add(from, lines[i-1].N)
			}
			from = 0
			continue
		}
		if from == 0 {
			from = l.N
		}
	}
	if from > 0 {
		seen = seen.Add(from, lines[len(lines)-1].N)
	}
	return seen
}

// renderWindow shows lines under the tag header; unterminated marks the
// last one shown as the file's last line with no newline after it.
func renderWindow(display, tag string, lines []linewindow.Line, maxChars int, unterminated bool, notice string) string {
	var b strings.Builder
	b.WriteString(tagHeader(display, tag))
	for _, l := range lines {
		b.WriteByte('\n')
		b.WriteString(strconv.Itoa(l.N))
		b.WriteByte(':')
		b.WriteString(l.Text)
		if l.Clipped {
			b.WriteString(clipMarker(maxChars))
		}
	}
	if unterminated {
		b.WriteString("\n" + noFinalNewline)
	}
	if notice != "" {
		b.WriteString("\n(")
		b.WriteString(notice)
		b.WriteString(")")
	}
	return b.String()
}

// readNotice says what the window leaves out and how to get it.
func readNotice(r *wire.ReadResult, limit int, capped bool, maxBytes int64) string {
	var parts []string
	switch {
	case r.TotalLines == 0:
		parts = append(parts, "the file is empty: 0 lines")
	case r.LineCount == 0:
		parts = append(parts, fmt.Sprintf("offset %d is past the end: the file has %d lines (totalLines %d); read with an offset from 1 to %d", r.Offset, r.TotalLines, r.TotalLines, r.TotalLines))
	case r.Truncated:
		last := r.Offset + r.LineCount - 1
		parts = append(parts, fmt.Sprintf("showing lines %d-%d of %d; read on with offset=%d", r.Offset, last, r.TotalLines, last+1))
	case r.Offset > 1:
		parts = append(parts, fmt.Sprintf("showing lines %d-%d of %d", r.Offset, r.TotalLines, r.TotalLines))
	}
	if capped {
		parts = append(parts, fmt.Sprintf("limit capped at %d lines per read", limit))
	}
	if r.Truncated && r.LineCount < limit {
		parts = append(parts, fmt.Sprintf("the window stopped early at the %d-byte output limit", maxBytes))
	}
	return strings.Join(parts, "; ")
}

// readOpenError adds what read knows to the shared open errors: the
// nearest existing directory for a missing file, a few entries for a
// directory.
func readOpenError(c *Call, p workspace.Path, e *wire.ToolError) *wire.ToolError {
	switch e.Code {
	case wire.ToolNotFound:
		return missing(c, p)
	case wire.ToolNotAFile:
		if info, err := p.Stat(); err == nil && info.IsDir() {
			return directoryError(p)
		}
	}
	return e
}
