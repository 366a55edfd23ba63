package tools

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"regexp"
	"strconv"
	"strings"

	"github.com/hostd-dev/hostd/session"
	"github.com/hostd-dev/hostd/workspace"
)

// Write is the write tool (edit-contract §5.3-§5.4, rpc.md §4 write): it
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

// WriteResult is write's result (rpc.md §4 write).
type WriteResult struct {
	Result
	Path    string `json:"path"`
	Tag     string `json:"tag"`
	Created bool   `json:"created"`
	Bytes   int64  `json:"bytes"`
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
		return Failed(Errorf(CodeInvalidArgument, "content is required: pass the complete new text of the file (\"\" for an empty file)"))
	}
	lim := c.Limits
	if n := int64(len(*a.Content)); n > lim.MaxWriteBytes {
		return Failed(Errorf(CodeFileTooLarge, "content is %d bytes, over the %d-byte write limit; write a smaller file, or write the first part and append the rest with edit (PUT >$:)", n, lim.MaxWriteBytes))
	}
	// No record may interleave between what this call reads of the old
	// file and the write (edit-contract §13.3).
	unlock := c.Session.LockMutations()
	defer unlock()

	p, e := resolveArg(c, a.Path, workspace.Write)
	if e != nil {
		return Failed(e)
	}
	incoming, err := workspace.Decode([]byte(*a.Content))
	if err != nil {
		return Failed(Errorf(CodeInvalidArgument, "content holds a NUL byte in its first %d bytes; write creates text files only: remove the NUL bytes", workspace.NULScanBytes))
	}
	body := stripPasted(incoming.Body)

	// An existing text file keeps its BOM and dominant line ending; a new
	// file (or a binary one being replaced) takes the content's own.
	enc := workspace.Text{BOM: incoming.BOM, CRLF: incoming.CRLF}
	created := false
	old, e := loadText(p, lim.MaxWriteBytes)
	switch {
	case e == nil:
		enc = workspace.Text{BOM: old.Text.BOM, CRLF: old.Text.CRLF}
	case e.Code == CodeNotFound:
		created = true
	case e.Code == CodeNotText:
	default:
		return Failed(e)
	}
	data := enc.Encode(body)
	if int64(len(data)) > lim.MaxWriteBytes {
		return Failed(Errorf(CodeFileTooLarge, "with the file's line endings restored the content is %d bytes, over the %d-byte write limit; write a smaller file", len(data), lim.MaxWriteBytes))
	}
	landed, err := landWrite(p, data, lim.MaxWriteBytes)
	if err != nil {
		return Failed(Errorf(CodeToolFailed, "writing %s failed and the file was left as it was: %v; check the path and call again", p.Display, err))
	}

	n := len(workspace.Lines(body))
	verb := "replaced"
	if created {
		verb = "created"
	}
	r := &WriteResult{Path: p.Display, Created: created, Bytes: int64(len(landed))}
	recordLanded(c, p, r, body, data, landed, fmt.Sprintf("%s, %d %s", verb, n, plural(n, "line", "lines")))
	return r
}

// recordLanded mints the tag of the bytes that landed and records them
// (§5.4). Every line counts as seen when they are the bytes intended; when
// a formatter or another writer changed them on save, only the lines the
// session wrote and still finds there do, and a one-line warning says so.
func recordLanded(c *Call, p workspace.Path, r *WriteResult, body string, intended, landed []byte, summary string) {
	text, err := workspace.Decode(landed)
	if err != nil {
		r.Warnings = append(r.Warnings, fmt.Sprintf("%s changed as it was saved and is no longer text, so it has no tag; read it to see what is there", p.Display))
		r.Content = summary
		return
	}
	lines := len(workspace.Lines(text.Body))
	seen := session.Span(1, lines)
	if !bytes.Equal(landed, intended) {
		seen = unchangedLines(body, text.Body)
		r.Warnings = append(r.Warnings, fmt.Sprintf("%s changed as it was saved (%d bytes written, %d on disk: a formatter or another writer?); the tag names the file as it is now, and its changed lines must be read before they are edited", p.Display, len(intended), len(landed)))
	}
	r.Tag = c.State.Store.Record(p.Abs, session.Snapshot{
		Digest:  workspace.Sum(text.Body),
		Text:    text.Body,
		HasText: true,
		Lines:   lines,
		Bytes:   int64(len(landed)),
		Seen:    seen,
	})
	r.Content = tagHeader(p.Display, r.Tag) + "\n" + summary
}

// landWrite is write's one mutation: it writes data through the atomic
// write and returns the bytes that landed, re-read from disk, so a
// formatter or writethrough that changed them on save is seen (§5.4).
// Review recording wraps exactly this step.
func landWrite(p workspace.Path, data []byte, limit int64) ([]byte, error) {
	if err := workspace.WriteFile(p.Abs, data, newFilePerm); err != nil {
		return nil, err
	}
	f, _, e := openRegular(p)
	if e != nil {
		return nil, e
	}
	defer f.Close()
	// Twice the limit leaves room for a formatter's growth and still
	// bounds what a runaway writer can make us hold.
	landed, err := io.ReadAll(io.LimitReader(f, 2*limit))
	if err != nil {
		return nil, err
	}
	return landed, nil
}

// unchangedLines is the seen set of a write whose bytes changed on save:
// the lines of the common head and tail the session wrote and finds on
// disk unchanged, numbered as on disk.
func unchangedLines(intended, landed string) session.LineSet {
	a, b := workspace.Lines(intended), workspace.Lines(landed)
	head := 0
	for head < len(a) && head < len(b) && a[head] == b[head] {
		head++
	}
	tail := 0
	for tail < len(a)-head && tail < len(b)-head && a[len(a)-1-tail] == b[len(b)-1-tail] {
		tail++
	}
	return session.Span(1, head).Union(session.Span(len(b)-tail+1, len(b)))
}

var (
	pastedHeader = regexp.MustCompile(`^\[[^\]\n]+#[0-9A-F]{4}\][ \t]*$`)
	linePrefix   = regexp.MustCompile(`^([0-9]+):`)
)

// stripPasted removes what a model copies from a producer's output by
// mistake (rpc.md §4 write): a [PATH#TAG] first line, and N: line-number
// prefixes when every line carries one and the numbers run consecutively.
// One numbered line alone is stripped only under a pasted header: a
// one-line file such as "8080:80" is content. Numbered rows never show
// whether the file ended with a newline; stripped rows get one, as nearly
// every text file has, so a read's output written back is the file again.
func stripPasted(body string) string {
	header := false
	if first, rest, _ := strings.Cut(body, "\n"); pastedHeader.MatchString(first) {
		body, header = rest, true
	}
	lines := workspace.Lines(body)
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
	return workspace.Join(stripped, true)
}
