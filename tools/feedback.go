package tools

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/hostd-dev/hostd/session"
	"github.com/hostd-dev/hostd/tools/drift"
	"github.com/hostd-dev/hostd/tools/linewindow"
	"github.com/hostd-dev/hostd/workspace"
)

// Syntax feedback (edit-contract §5.6): after a write or an edit, the
// result names the syntax error regions the change added to the file,
// with a few of their lines. The check runs beside the write, in a parse
// worker that parses the new version from the old one's tree, within the
// call's parse time; the write never waits for it and never fails for
// it, and an answer that does not come in time is left out.

// FeedbackFunc finds the syntax errors a change added to the file at
// path: the error regions of after (its lines) that before's do not
// explain through copies, the lines the change left as they were.
// hadBefore false: the file is new (or was not text), so every error of
// after is added. An error means the check could not be made (no
// grammar, over the parse limit, out of time, the worker ended); nil
// when this build has no grammars.
type FeedbackFunc func(ctx context.Context, path, before string, hadBefore bool, after string, copies []workspace.Copy) ([]SyntaxError, error)

// WarmFunc asks for text, the version of path a read just recorded, to
// be parsed in the background and its tree kept, so the syntax feedback
// and the block ops of the edit that usually follows parse only the new
// version, from that tree. It returns at once and may do nothing (no
// grammar, too large, no idle parse worker).
type WarmFunc func(path, text string)

// warm hands the version a read just recorded to Warm, when the read
// kept its text: a file over the retention bound is not held, and warming
// it would mean holding it for the parse.
func (c *Call) warm(path string, w *linewindow.Window) {
	if c.Warm != nil && w.Retained {
		c.Warm(path, w.Body)
	}
}

// SyntaxError is one error region a change added, in the new version's
// line numbers (the "syntaxErrors" of an edit or write result).
type SyntaxError struct {
	StartLine int `json:"startLine"`
	EndLine   int `json:"endLine"`
	// Missing is the token the parser had to assume there ("}", ";"),
	// when that is the whole error.
	Missing string `json:"missing,omitempty"`
}

// Context lines a result shows: up to feedbackLinesPerError of each
// error's first lines, at most feedbackLines in all.
const (
	feedbackLinesPerError = 2
	feedbackLines         = 6
	feedbackErrorsNamed   = 8
)

// pendingFeedback is one change's check, running beside its write.
type pendingFeedback struct {
	deadline time.Time
	done     chan []SyntaxError // nil sent: the check could not be made
}

// startFeedback starts the check of a change from before (hadBefore
// false: a new file) to after, the text about to be written, and returns
// at once; nil when there is nothing to check. copies, called in the
// check's goroutine, maps the lines the change left as they were. The
// check is bounded by deadline, the call's parse time, and by no other
// cancellation: ending a parse early ends its worker, and the call may
// return before the check does.
func (c *Call) startFeedback(ctx context.Context, deadline time.Time, path, before string, hadBefore bool, after string, copies func() []workspace.Copy) *pendingFeedback {
	if c.Feedback == nil || hadBefore && before == after || after == "" {
		return nil
	}
	f := &pendingFeedback{deadline: deadline, done: make(chan []SyntaxError, 1)}
	check := c.Feedback
	go func() {
		ctx, cancel := context.WithDeadline(context.WithoutCancel(ctx), deadline)
		defer cancel()
		var cp []workspace.Copy
		if hadBefore {
			cp = copies()
		}
		found, err := check(ctx, path, before, hadBefore, after, cp)
		if err != nil {
			found = nil
		} else if found == nil {
			found = []SyntaxError{}
		}
		f.done <- found
	}()
	// Let the check send its request now, before the write takes this
	// processor: measured, the check otherwise waited up to half a
	// millisecond to start, a third of a whole edit.
	runtime.Gosched()
	return f
}

// wait returns the errors the check found, waiting for it no longer than
// the call's parse time; ok is false when it could not be made in time.
func (f *pendingFeedback) wait() (found []SyntaxError, ok bool) {
	if f == nil {
		return nil, false
	}
	t := time.NewTimer(time.Until(f.deadline))
	defer t.Stop()
	select {
	case found = <-f.done:
		return found, found != nil
	case <-t.C:
		return nil, false
	}
}

// addFeedback waits for the change's check and, when it found errors,
// adds them to the result: the content line naming them and a few of
// their lines, which become seen in the version recorded for path, as
// any line shown in full does (edit-contract §4.3). Nothing is added
// when what landed is not what was checked (the file changed as it was
// saved: the warning already says so).
func (c *Call) addFeedback(f *pendingFeedback, p workspace.Path, checked bool, lines []string, content *string) []SyntaxError {
	found, ok := f.wait()
	if !ok || !checked || len(found) == 0 {
		return nil
	}
	text, shown := renderFeedback(found, lines, c.Limits.MaxRevealLineChars)
	*content += "\n" + text
	if v, ok := c.State.Store.Head(p.Abs); ok && shown.Len() > 0 {
		c.State.Store.MarkSeen(p.Abs, v, shown)
	}
	return found
}

// renderFeedback names the errors a change added and shows the first
// lines of the first of them, clipped to maxChars; shown is the set of
// lines shown in full.
func renderFeedback(found []SyntaxError, lines []string, maxChars int) (string, session.LineSet) {
	var b strings.Builder
	n := len(found)
	fmt.Fprintf(&b, "syntax: this change left %d new %s: ", n, plural(n, "error", "errors"))
	for i, e := range found {
		if i == feedbackErrorsNamed {
			fmt.Fprintf(&b, ", and %d more", n-i)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		if e.StartLine == e.EndLine {
			b.WriteString("line " + strconv.Itoa(e.StartLine))
		} else {
			fmt.Fprintf(&b, "lines %d-%d", e.StartLine, e.EndLine)
		}
		if e.Missing != "" {
			fmt.Fprintf(&b, " (missing %q)", e.Missing)
		}
	}
	shown := session.Empty()
	count := 0
	for _, e := range found {
		for l := e.StartLine; l <= e.EndLine && l-e.StartLine < feedbackLinesPerError && count < feedbackLines; l++ {
			if l < 1 || l > len(lines) || shown.Contains(l) {
				continue
			}
			text, clipped := clipRunes(lines[l-1], maxChars)
			fmt.Fprintf(&b, "\n%d:%s", l, text)
			if !clipped {
				shown = shown.Add(l, l)
			}
			count++
		}
	}
	return b.String(), shown
}

// unchangedCopies are the runs of lines of cur that a line diff proves
// unchanged from old, within timeout (a diff cut short proves fewer);
// none when the texts are too large to diff.
func unchangedCopies(old, cur []string, timeout time.Duration) []workspace.Copy {
	m, err := drift.Diff(old, cur, max(timeout, time.Millisecond))
	if err != nil {
		return nil
	}
	var out []workspace.Copy
	for o := 1; o <= len(old); o++ {
		n, ok := m.Lookup(o)
		if !ok {
			continue
		}
		if k := len(out) - 1; k >= 0 && out[k].Old+out[k].N == o && out[k].New+out[k].N == n {
			out[k].N++
			continue
		}
		out = append(out, workspace.Copy{New: n, Old: o, N: 1})
	}
	return out
}
