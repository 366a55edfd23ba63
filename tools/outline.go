package tools

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/session"
	"github.com/hostd-dev/hostd/tools/linewindow"
	"github.com/hostd-dev/hostd/tools/syntax"
	"github.com/hostd-dev/hostd/workspace"
)

// modeOutline is read's outline mode.
const modeOutline = "outline"

// maxOutlineRowChars is how much of a declaration's line an outline row
// shows. A row names a declaration; a longer line (minified code, a long
// signature) is clipped, marked, and not counted as seen.
const maxOutlineRowChars = 240

// readOutline is read with mode "outline": the declarations of the whole
// file as numbered rows under the usual [PATH#TAG] header, each with its
// span, so the model can read just the block it needs. Only the rows
// displayed in full count as seen (edit-contract §4.3): the outline shows
// a declaration's first line, never its body.
func readOutline(ctx context.Context, c *Call, a readArgs) Outcome {
	from, to := 1, 0 // to 0: the end of the file
	if a.Offset != nil {
		if *a.Offset < 1 {
			return Failed(Errorf(wire.ToolInvalidArgument, "offset %d is not a line number: lines are numbered from 1; use offset 1 to outline from the top", *a.Offset))
		}
		from = *a.Offset
	}
	if a.Limit != nil {
		if *a.Limit < 1 {
			return Failed(Errorf(wire.ToolInvalidArgument, "limit %d must be at least 1; omit it to outline to the end of the file", *a.Limit))
		}
		to = from + min(*a.Limit, 1<<30) - 1
	}
	p, e := resolveArg(c, a.Path, workspace.Read)
	if e != nil {
		return Failed(e)
	}
	if c.Parser == nil {
		return Failed(Errorf(wire.ToolInvalidArgument, "this build of hostd has no grammars, so there are no outlines; read %s without mode (offset and limit pick the lines)", p.Display))
	}
	f, info, e := openRegular(p)
	if e != nil {
		return Failed(readOpenError(c, p, e))
	}
	defer f.Close()
	maxParse := c.Limits.MaxBlockParseBytes
	if info.Size() > maxParse {
		return Failed(Errorf(wire.ToolInvalidArgument, "%s has %d bytes, over the %d bytes an outline parses (limits.maxBlockParseBytes); read it without mode, with offset and limit, or grep for the declaration you need", p.Display, info.Size(), maxParse))
	}
	w, err := linewindow.ReadContext(ctx, f, linewindow.Options{
		Offset:       1,
		MaxLineChars: c.Limits.MaxLineChars,
		RetainBytes:  maxParse,
		Encoding:     p.Charset.Enc,
	})
	switch {
	case errors.Is(err, workspace.ErrNotText):
		return Failed(notText(p, err))
	case ctx.Err() != nil:
		return Failed(Errorf(wire.ToolFailed, "the read of %s was cancelled; nothing was recorded, call again", p.Display))
	case err != nil:
		return Failed(Errorf(wire.ToolFailed, "cannot read %s: %v; call again", p.Display, err))
	case !w.Retained:
		return Failed(Errorf(wire.ToolInvalidArgument, "%s grew past the %d bytes an outline parses while it was read; read it without mode, with offset and limit", p.Display, maxParse))
	}
	budget := c.Limits.ParseBudget()
	if budget <= 0 {
		budget = config.DefaultLimits().ParseBudget()
	}
	parse, stop := context.WithTimeout(ctx, budget)
	defer stop()
	decls, err := c.Parser.Outline(parse, p.Abs, w.Body, from, to)
	if err != nil {
		if ctx.Err() != nil {
			return Failed(Errorf(wire.ToolFailed, "the read of %s was cancelled; nothing was recorded, call again", p.Display))
		}
		return Failed(Errorf(wire.ToolInvalidArgument, "%s: %v", p.Display, err))
	}

	lines := workspace.Lines(w.Body)
	o := renderOutline(lines, decls, c.Limits.DefaultReadLimit, c.Limits.MaxResultBytes)
	retain := w.FileBytes <= c.Limits.MaxRetainedFileBytes
	snap := session.Snapshot{
		Digest: w.Digest, HasText: retain,
		Lines: w.TotalLines, Bytes: w.FileBytes, Seen: o.seen,
	}
	if retain {
		snap.Text = w.Body
	}
	tag := c.State.Store.Record(p.Abs, snap)
	r := &wire.ReadResult{
		Path:       p.Display,
		Root:       string(p.Root),
		Offset:     from,
		LineCount:  o.shown,
		TotalLines: w.TotalLines,
		Truncated:  o.shown < len(decls),
		FileBytes:  w.FileBytes,
		Tag:        tag,
		Mode:       modeOutline,
	}
	r.Notice = outlineNotice(o, decls, a.Offset != nil || a.Limit != nil, from, to, w.TotalLines)
	r.Content = tagHeader(p.Display, tag) + o.rows + "\n(" + r.Notice + ")"
	return r
}

// outlineRows is a rendered outline: the rows, how many of the
// declarations they show, and the lines shown in full.
type outlineRows struct {
	rows        string
	shown       int
	seen        session.LineSet
	stoppedByte bool // the output limit, not the row limit, ended it
}

// renderOutline renders one row per declaration, "N:text", followed by
// "  …E" when it runs on to line E, or "  …S-E" when it starts at an
// earlier line S (its first decorator or attribute). It stops after maxRows
// rows or once the rows pass maxBytes.
func renderOutline(lines []string, decls []syntax.Decl, maxRows int, maxBytes int64) outlineRows {
	var b strings.Builder
	o := outlineRows{seen: session.Empty()}
	for _, d := range decls {
		if o.shown >= maxRows {
			break
		}
		if int64(b.Len()) > maxBytes {
			o.stoppedByte = true
			break
		}
		if d.Line < 1 || d.Line > len(lines) {
			continue
		}
		text, clipped := clipLine(lines[d.Line-1], maxOutlineRowChars)
		b.WriteByte('\n')
		b.WriteString(strconv.Itoa(d.Line))
		b.WriteByte(':')
		b.WriteString(text)
		if clipped {
			b.WriteString(" …[clipped]")
		} else {
			o.seen = o.seen.Add(d.Line, d.Line)
		}
		switch {
		case d.Start != d.Line:
			fmt.Fprintf(&b, "  …%d-%d", d.Start, d.End)
		case d.End != d.Line:
			fmt.Fprintf(&b, "  …%d", d.End)
		}
		o.shown++
	}
	o.rows = b.String()
	return o
}

// outlineNotice is the line under an outline: how much it shows and how
// to go on.
func outlineNotice(o outlineRows, decls []syntax.Decl, window bool, from, to, totalLines int) string {
	what := fmt.Sprintf("%d lines", totalLines)
	if window {
		if to <= 0 || to > totalLines {
			to = totalLines
		}
		what = fmt.Sprintf("lines %d-%d", from, to)
	}
	switch {
	case totalLines == 0:
		return "the file is empty: 0 lines"
	case from > totalLines:
		return fmt.Sprintf("offset %d is past the end: the file has %d lines; outline with an offset from 1 to %d", from, totalLines, totalLines)
	case len(decls) == 0:
		return fmt.Sprintf("outline: no declarations or multi-line blocks in %s; read the lines without mode", what)
	case o.shown < len(decls):
		next := decls[o.shown].Start
		why := "row limit"
		if o.stoppedByte {
			why = "output limit"
		}
		on := fmt.Sprintf("offset=%d", next)
		if to > 0 && to < totalLines {
			on += fmt.Sprintf(" limit=%d", to-next+1)
		}
		return fmt.Sprintf("outline: %d of %d rows of %s, stopped at the %s; outline on with %s", o.shown, len(decls), what, why, on)
	}
	return fmt.Sprintf("outline: %d rows of %s", len(decls), what)
}
