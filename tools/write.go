package tools

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/hostd-dev/hostd/review"
	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/workspace"
)

// Write is the write tool (edit-contract §5.3-§5.4, wire-contract §4 write): it
// creates or replaces a whole file and mints the tag of the bytes that
// actually landed, recorded with every line seen, so an edit can follow
// without a read.
type Write struct{}

// Name implements Tool.
func (Write) Name() string { return "write" }

type writeArgs struct {
	Path    string  `json:"path"`
	Content *string `json:"content"`
}

// newFilePerm is the mode of a file write creates; an existing file keeps
// its own.
const newFilePerm fs.FileMode = 0o644

// Run implements Tool.
func (Write) Run(ctx context.Context, c *Call) Outcome {
	var a writeArgs
	if e := DecodeArgs(c.Args, &a); e != nil {
		return Failed(e)
	}
	if a.Content == nil {
		return Failed(Errorf(wire.ToolInvalidArgument, "content is required: pass the complete new text of the file (\"\" for an empty file)"))
	}
	lim := c.Limits
	if n := int64(len(*a.Content)); n > lim.MaxWriteBytes {
		return Failed(overWriteLimit(fmt.Sprintf("content is %d bytes", n), n, lim.MaxWriteBytes, lim.MaxWriteBytes))
	}
	// No record may interleave between what this call reads of the old
	// file and the write (edit-contract §13.3).
	unlock := c.Session.LockMutations()
	defer unlock()

	p, e := resolveArg(c, a.Path, workspace.Write)
	if e != nil {
		return Failed(e)
	}
	if e := refuseHeaderSpelling(c, a.Path, p); e != nil {
		return Failed(e)
	}
	size := int64(len(*a.Content))
	if info, err := p.Stat(); err == nil {
		size = max(size, info.Size())
	}
	release, e := c.holdPayload(ctx, payloadSize(p, size), fmt.Sprintf("a write of %s (%d bytes)", p.Display, size))
	if e != nil {
		return Failed(e)
	}
	defer release()
	unlockFile, e := c.lockFiles(ctx, p.Abs)
	if e != nil {
		return Failed(e)
	}
	defer unlockFile()
	incoming, err := workspace.DecodeString(*a.Content)
	if err != nil {
		return Failed(Errorf(wire.ToolInvalidArgument, "content holds a NUL byte in its first %d bytes; write creates text files only: remove the NUL bytes", workspace.NULScanBytes))
	}
	body := stripPasted(incoming.Body)

	// An existing text file keeps its encoding, BOM and dominant line
	// ending; a new file (or a binary one being replaced) takes the
	// content's own, in the encoding the workspace's setting gives its
	// path (edit-contract §3.5).
	enc := workspace.Text{BOM: incoming.BOM, CRLF: incoming.CRLF, Enc: p.Charset.Enc}
	var warnings []string
	if len(incoming.Other) > 0 {
		warnings = append(warnings, mixedEndings("content", incoming, len(incoming.Other)))
	}
	created := false
	old, e := loadText(p, lim.MaxWriteBytes)
	wasText := e == nil
	switch {
	case e == nil:
		enc = workspace.Text{BOM: old.Text.BOM, CRLF: old.Text.CRLF, Enc: old.Text.Enc}
		if len(old.Text.Other) > 0 {
			warnings = append(warnings, mixedEndings(p.Display, old.Text, len(old.Text.Other)))
		}
	case e.Code == wire.ToolNotFound:
		created, old = true, nil
	case e.Code == wire.ToolNotText: // replaced whole; old holds its bytes for review
	default:
		return Failed(e)
	}
	data, err := enc.Encode(body)
	if err != nil {
		if e := unencodable(p, err); e != nil {
			return Failed(e)
		}
		return Failed(Errorf(wire.ToolFailed, "cannot encode the content of %s: %v", p.Display, err))
	}
	if int64(len(data)) > lim.MaxWriteBytes {
		// A part of the content that fits whatever it holds: a byte of
		// it is at most Growth bytes in the encoding, an LF two as CRLF.
		growth, mark := enc.Enc.Growth(), int64(0)
		if enc.CRLF {
			growth *= 2
		}
		if enc.BOM {
			mark = int64(len(enc.Enc.BOM()))
		}
		perFile := max(1, (lim.MaxWriteBytes-mark)/growth)
		return Failed(overWriteLimit(fmt.Sprintf("in %s's encoding and line endings the content is %d bytes", p.Display, len(data)), int64(len(*a.Content)), perFile, lim.MaxWriteBytes))
	}
	change := review.Edit{Path: p, Mode: newFilePerm, After: data}
	if old != nil {
		change.Before, change.Existed, change.Mode = old.Raw, true, old.Mode
	}
	fb := startWriteFeedback(ctx, c, p, old, wasText, body)
	onDisk, e := c.mutate([]review.Edit{change})
	if e != nil {
		return Failed(e)
	}
	n := len(workspace.Lines(body))
	verb := "replaced"
	if created {
		verb = "created"
	}
	l := recordLanded(c, p, body, data, onDisk[p.Abs])
	r := &wire.WriteResult{Path: p.Display, Tag: l.Tag, Created: created, Bytes: int64(len(onDisk[p.Abs]))}
	r.Warnings = append(warnings, l.Warnings...)
	r.Content = fmt.Sprintf("%s, %d %s", verb, n, plural(n, "line", "lines"))
	if l.Tag != "" {
		r.Content = tagHeader(p.Display, l.Tag) + "\n" + r.Content
		r.SyntaxErrors = c.addFeedback(fb, p, bytes.Equal(data, onDisk[p.Abs]), l.Lines, &r.Content)
		if bytes.Equal(data, onDisk[p.Abs]) {
			r.Diagnostics, r.DiagnosticsPending = c.addDiagnostics(startWriteDiagnostics(c, p, old, wasText, body), p, l.Lines, &r.Content)
		}
	}
	return r
}

// startWriteFeedback starts the syntax check of a write (feedback.go)
// within the call's parse time: from the old text when the file was
// text, with the lines a line diff proves unchanged; for a new file (or
// one that was not text) every error is the write's.
func startWriteFeedback(ctx context.Context, c *Call, p workspace.Path, old *loaded, wasText bool, body string) *pendingFeedback {
	deadline := time.Now().Add(c.Limits.ParseBudget())
	if old == nil || !wasText {
		return c.startFeedback(ctx, deadline, p.Abs, "", nil, false, body, nil)
	}
	before := old.Text.Body
	return c.startFeedback(ctx, deadline, p.Abs, before, nil, true, body, func() []workspace.Copy {
		return unchangedCopies(workspace.Lines(before), workspace.Lines(body), time.Until(deadline))
	})
}

// mixedEndings warns that a whole-file write gives every line the
// dominant ending of a text that mixed LF and CRLF (edit-contract §3.1):
// only edit keeps each untouched line's own.
func mixedEndings(what string, t workspace.Text, other int) string {
	dom, minority := "LF", "CRLF"
	if t.CRLF {
		dom, minority = minority, dom
	}
	return fmt.Sprintf("%s mixed line endings: %d %s ended with %s; write replaces the whole file, so every line now ends with %s, the dominant ending. To change some lines and keep each line's own ending, use edit", what, other, plural(other, "line", "lines"), minority, dom)
}

var (
	pastedHeader = regexp.MustCompile(`^\[[^\]\n]+#[0-9A-F]{4}\][ \t]*$`)
	linePrefix   = regexp.MustCompile(`^([0-9]+):`)
)

// stripPasted removes what a model copies from a producer's output by
// mistake (wire-contract §4 write): a [PATH#TAG] first line, and N: line-number
// prefixes when every line carries one and the numbers run consecutively.
// One numbered line alone is stripped only under a pasted header: a
// one-line file such as "8080:80" is content. Numbered rows never show
// whether the file ended with a newline; stripped rows get one, as nearly
// every text file has, unless the rows end with read's no-newline marker:
// so a read's output written back is the file again.
func stripPasted(body string) string {
	header := false
	if first, rest, _ := strings.Cut(body, "\n"); pastedHeader.MatchString(first) {
		body, header = rest, true
	}
	lines := workspace.Lines(body)
	// A read's marker of a last line without a newline ends the pasted
	// rows; the file it shows ends that way.
	unterminated := len(lines) > 1 && lines[len(lines)-1] == noFinalNewline
	if unterminated {
		lines = lines[:len(lines)-1]
	}
	if len(lines) == 0 || (len(lines) == 1 && !header) {
		return body
	}
	stripped := make([]string, len(lines))
	next := -1
	for i, l := range lines {
		m := linePrefix.FindStringSubmatch(l)
		if m == nil {
			return body
		}
		n, err := strconv.Atoi(m[1])
		if err != nil || (next >= 0 && n != next) {
			return body
		}
		next = n + 1
		stripped[i] = l[len(m[0]):]
	}
	return workspace.Join(stripped, !unterminated)
}

// refuseHeaderSpelling refuses to create a file named like a producer's
// header, PATH#TAG, beside the existing PATH: edit takes that spelling
// (edit-contract §6), write takes no tag, and a second file named
// "main.go#DBFD" is never what was meant. An existing file of that name
// is written as usual, and so is a new one whose PATH does not exist.
func refuseHeaderSpelling(c *Call, arg string, p workspace.Path) *wire.ToolError {
	i := strings.LastIndexByte(arg, '#')
	if i <= 0 || !validTag(strings.ToUpper(arg[i+1:])) {
		return nil
	}
	if exists, _ := fileExists(p); exists {
		return nil
	}
	base, err := c.State.Workspace.Resolve(arg[:i], workspace.Read)
	if err != nil {
		return nil
	}
	if exists, _ := fileExists(base); !exists {
		return nil
	}
	return Errorf(wire.ToolInvalidArgument, "%s is spelled like the [PATH#TAG] header of %s, and write takes the path alone: write %s (a whole file needs no tag); nothing was written", arg, base.Display, base.Display)
}

// overWriteLimit refuses a write whose content, n bytes as the call sent
// it, is over the write limit as what says; perFile is how many of
// those bytes surely fit in one file. The limit bounds every file a
// write or edit handles, so no series of calls makes one file that large
// (appending with edit stops at it too): the content has to go into
// several files, unless whoever runs hostd raises the limit.
func overWriteLimit(what string, n, perFile, limit int64) *wire.ToolError {
	return Errorf(wire.ToolFileTooLarge, "%s, over the %d-byte write limit (limits.maxWriteBytes), which bounds every file write and edit handle, so no series of calls makes one file this large: split the content into %d or more files of at most %d bytes each and write each one. If it must be one file, the limit is raised in hostd's config file (limits.maxWriteBytes, with limits.maxFrameBytes above it), which hostd reads when it starts",
		what, limit, (n+perFile-1)/perFile, perFile)
}

// startWriteDiagnostics starts the language server's check of a write
// that landed (diagnostics.go).
func startWriteDiagnostics(c *Call, p workspace.Path, old *loaded, wasText bool, body string) *pendingDiagnostics {
	if old == nil || !wasText {
		return c.startDiagnostics(p, "", false, body, nil)
	}
	before := old.Text.Body
	return c.startDiagnostics(p, before, true, body, func() []workspace.Copy {
		return unchangedCopies(workspace.Lines(before), workspace.Lines(body), time.Duration(c.Limits.MaxParseMs)*time.Millisecond)
	})
}
