package tools

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/session"
	"github.com/hostd-dev/hostd/tools/drift"
	"github.com/hostd-dev/hostd/tools/linewindow"
	"github.com/hostd-dev/hostd/tools/syntax"
	"github.com/hostd-dev/hostd/workspace"
)

// Syntax feedback (edit-contract §5.6): after a write or an edit, the
// result names the syntax error regions the change added to the file,
// with a few of their lines. The check runs beside the write, in a parse
// worker that parses the new version from the old one's tree, within the
// call's parse time; the write never waits for it and never fails for
// it, and an answer that does not come in time is left out.

// warm hands the version a read just recorded to Parser.Warm, when the read
// kept its text: a file over the retention bound is not held, and warming
// it would mean holding it for the parse.
func (c *Call) warm(path string, w *linewindow.Window) {
	if c.Parser != nil && w.Retained {
		c.Parser.Warm(path, w.Body)
	}
}

// syntaxRegion is one error region a change added, in the new version's
// line numbers: a syntax.ErrorRegion as the "syntaxErrors" of an edit or
// write result show it (resultErrors).
type syntaxRegion struct {
	wire.SyntaxError
	// Unsure: the file's grammar finds errors in valid code too often
	// (blocks.GrammarTrust) for this one to be called the change's; the
	// result says the parser could not read these lines, and the region
	// is not among the result's syntaxErrors.
	Unsure bool
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
	done     chan *checked // nil sent: the check could not be made
}

// checked is a check's answer and the chain it continues.
type checked struct {
	added []syntaxRegion
	// carried are the regions of the chain's first version carried to
	// the new version (ErrorChains).
	carried []session.LineSpan
	why     string // syntax.Found.Why
}

// startFeedback starts the check of a change from before (hadBefore
// false: a new file) to after, the text about to be written, and returns
// at once; nil when there is nothing to check. copies, called in the
// check's goroutine, maps the lines the change left as they were. The
// check is bounded by deadline, the call's parse time, and by no other
// cancellation: ending a parse early ends its worker, and the call may
// return before the check does.
//
// When before is the text this session's last change to path left (by
// its digest, beforeDigest; nil: computed beside the write), the change
// continues that chain: the regions of the version the chain started
// from, carried to before, count as before's own.
func (c *Call) startFeedback(ctx context.Context, deadline time.Time, path, before string, beforeDigest *workspace.Digest, hadBefore bool, after string, copies func() []workspace.Copy) *pendingFeedback {
	if c.Parser == nil || hadBefore && before == after || after == "" {
		return nil
	}
	f := &pendingFeedback{deadline: deadline, done: make(chan *checked, 1)}
	check := c.Parser.AddedErrors
	chains := c.State.Chains
	go func() {
		ctx, cancel := context.WithDeadline(context.WithoutCancel(ctx), deadline)
		defer cancel()
		rq := syntax.Change{Path: path, Before: before, HadBefore: hadBefore, After: after}
		var known []session.LineSpan
		inChain := false
		if hadBefore {
			rq.Copies = copies()
			if chains != nil {
				d := beforeDigest
				if d == nil {
					sum := workspace.Sum(before)
					d = &sum
				}
				known, inChain = chains.Of(path, *d)
			}
			for _, k := range known {
				rq.Known = append(rq.Known, syntax.ErrorRegion{Start: k.Start, End: k.End})
			}
		}
		found, err := check(ctx, rq)
		if err != nil {
			f.done <- nil
			return
		}
		origin := known // the chain's first version's regions, in before's numbers
		if !inChain {
			origin = nil
			for _, o := range found.Old {
				origin = append(origin, session.LineSpan{Start: o.Start, End: o.End})
			}
		}
		added := resultErrors(found.Added)
		f.done <- &checked{added: added, carried: carryRegions(origin, rq.Copies), why: found.Why}
	}()
	// Let the check send its request now, before the write takes this
	// processor: measured, the check otherwise waited up to half a
	// millisecond to start, a third of a whole edit.
	runtime.Gosched()
	return f
}

// carryRegions carries regions of an old version to the new one through
// the lines a change left as they were: each keeps the span from the new
// number of its first kept line to that of its last; a region none of
// whose lines were kept is gone (the change rewrote it all).
func carryRegions(rs []session.LineSpan, copies []workspace.Copy) []session.LineSpan {
	var out []session.LineSpan
	for _, r := range rs {
		lo, hi := 0, 0
		for _, c := range copies {
			a, b := max(r.Start, c.Old), min(r.End, c.Old+c.N-1)
			if a > b {
				continue
			}
			if lo == 0 || c.New+a-c.Old < lo {
				lo = c.New + a - c.Old
			}
			hi = max(hi, c.New+b-c.Old)
		}
		if lo > 0 {
			out = append(out, session.LineSpan{Start: lo, End: hi})
		}
	}
	return out
}

// wait returns the check's answer, waiting for it no longer than the
// call's parse time; nil when it could not be made in time.
func (f *pendingFeedback) wait() *checked {
	if f == nil {
		return nil
	}
	t := time.NewTimer(time.Until(f.deadline))
	defer t.Stop()
	select {
	case got := <-f.done:
		return got
	case <-t.C:
		return nil
	}
}

// addFeedback waits for the change's check and, when it found errors,
// adds them to the result: the content line naming them and a few of
// their lines, which become seen in the version recorded for path, as
// any line shown in full does (edit-contract §4.3). It returns the
// errors the change added (the result's syntaxErrors); the regions its
// grammar could not read but is not trusted to call errors are named in
// the content only. Nothing
// is added when what landed is not what was checked (the file changed as
// it was saved: the warning already says so); when it is, the session's
// chain of changes to path goes on from what landed.
func (c *Call) addFeedback(f *pendingFeedback, p workspace.Path, landed bool, lines []string, content *string) []wire.SyntaxError {
	got := f.wait()
	if got == nil || !landed {
		return nil
	}
	v, recorded := c.State.Store.Head(p.Abs)
	if c.State.Chains != nil && recorded {
		c.State.Chains.Continue(p.Abs, v.Digest, got.carried)
	}
	if len(got.added) == 0 {
		return nil
	}
	var added, unsure []wire.SyntaxError
	for _, e := range got.added {
		if e.Unsure {
			unsure = append(unsure, e.SyntaxError)
		} else {
			added = append(added, e.SyntaxError)
		}
	}
	text, shown := renderFeedback(added, unsure, got.why, lines, c.Limits.MaxRevealLineChars)
	*content += "\n" + text
	if recorded && shown.Len() > 0 {
		c.State.Store.MarkSeen(p.Abs, v, shown)
	}
	return added
}

// renderFeedback names the errors a change added (added) and the
// regions its grammar could not read (unsure, which it is not trusted to
// call errors; why says why), and shows the first lines of the first of
// them, clipped to maxChars; shown is the set of lines shown in full.
func renderFeedback(added, unsure []wire.SyntaxError, why string, lines []string, maxChars int) (string, session.LineSet) {
	var b strings.Builder
	if n := len(added); n > 0 {
		fmt.Fprintf(&b, "syntax: this change left %d new %s: ", n, plural(n, "error", "errors"))
		writeRegions(&b, added)
	}
	if n := len(unsure); n > 0 {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString("syntax: the parser could not read ")
		writeRegions(&b, unsure)
		b.WriteString(" after this change, which may be no error")
		if why != "" {
			b.WriteString(": " + why)
		}
	}
	show := newLineShow(lines, maxChars, feedbackLines)
	for _, e := range append(slices.Clone(added), unsure...) {
		for l := e.StartLine; l <= e.EndLine && l-e.StartLine < feedbackLinesPerError; l++ {
			show.line(&b, l)
		}
	}
	return b.String(), show.shown
}

// writeRegions names regions: "line 14 (missing "}"), lines 30-32", at
// most feedbackErrorsNamed of them.
func writeRegions(b *strings.Builder, rs []wire.SyntaxError) {
	n := len(rs)
	for i, e := range rs {
		if i == feedbackErrorsNamed {
			fmt.Fprintf(b, ", and %d more", n-i)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		if e.StartLine == e.EndLine {
			b.WriteString("line " + strconv.Itoa(e.StartLine))
		} else {
			fmt.Fprintf(b, "lines %d-%d", e.StartLine, e.EndLine)
		}
		if e.Missing != "" {
			fmt.Fprintf(b, " (missing %q)", e.Missing)
		}
	}
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

// resultErrors are the regions a check found as the result shows them;
// never nil, so a check that found none is told from none made.
func resultErrors(rs []syntax.ErrorRegion) []syntaxRegion {
	out := make([]syntaxRegion, len(rs))
	for i, r := range rs {
		out[i] = syntaxRegion{SyntaxError: wire.SyntaxError{StartLine: r.Start, EndLine: r.End, Missing: r.Missing}, Unsure: r.Unsure}
	}
	return out
}
