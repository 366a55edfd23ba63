package rollback

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hostd-dev/hostd/internal/filelock"
	"github.com/hostd-dev/hostd/internal/quote"
	"github.com/hostd-dev/hostd/review"
	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/session"
	"github.com/hostd-dev/hostd/workspace"
)

// The ways forward from a conflicted file (review.rewind's resolve), as
// the wire names them.
const (
	// KeepTheirs leaves a conflicted file as it is and rewinds the others.
	KeepTheirs = wire.ResolveKeepTheirs
	// Merge undoes the agent's changes of a conflicted file and keeps the
	// later edits, when the two touch different lines.
	Merge = wire.ResolveMerge
	// Force restores a conflicted file anyway, and records what it
	// overwrote as a review entry of its own.
	Force = wire.ResolveForce
)

// Unrecorded is what every rewind answer says of the changes hostd cannot
// undo.
const Unrecorded = "hostd undoes only the changes its tools made and recorded; a file changed outside hostd (an editor, a formatter, a shell command the agent ran) is not in its record, and a rewind over it is a conflict, never taken for the agent's"

// RewindRequest is one review.rewind.
type RewindRequest struct {
	Store *review.Store
	// Files are the daemon's file locks; nil when the daemon runs no tools.
	Files *filelock.Table
	// Session is the live session; nil when it is gone.
	Session   *session.Session
	SessionID string
	Selection review.Selection
	// DryRun: answer what would be done, write nothing.
	DryRun bool
	// Resolve is what to do with every conflicted file: "" (refuse),
	// KeepTheirs, Merge or Force.
	Resolve string
	// ResolveFiles overrides Resolve for the files it names (as the
	// report shows them, or canonical).
	ResolveFiles map[string]string
	// MaxFileBytes bounds how much of a changed file is read to merge or
	// to keep what a force overwrites.
	MaxFileBytes int64
}

// RewindConflictError is a rewind refused because of conflicts; nothing
// was written. Report says, file by file, what and why.
type RewindConflictError struct {
	Report wire.RewindResult
	// merge: the refusal is a merge that cannot keep both.
	merge bool
}

func (e *RewindConflictError) Error() string {
	var parts []string
	for _, f := range e.Report.Files {
		c := f.Conflict
		if c == nil || f.Action != "conflict" {
			continue // no conflict, or one the resolve deals with
		}
		part := f.Path + ": " + c.Reason
		if len(c.ChangedBy) > 0 {
			var by []string
			for _, b := range c.ChangedBy {
				by = append(by, "session "+quote.Short(b.SessionID)+" call "+quote.Short(b.ToolCallID))
			}
			part += " (changed by " + strings.Join(by, ", ") + ")"
		}
		if e.merge && len(c.Overlap) > 0 {
			part += "; both changed " + strings.Join(c.Overlap, "; ")
		}
		part += "; choices: " + strings.Join(c.Choices, ", ")
		parts = append(parts, part)
	}
	head := fmt.Sprintf("rewind conflict in %d file(s); nothing was restored. ", len(parts))
	if e.merge {
		head = "rewind refused: a merge cannot keep both the later edits and the undo; nothing was restored. "
	}
	return head + waysForward + ". " + strings.Join(parts, "; ")
}

// waysForward is what every refusal names.
const waysForward = "Ways forward (review.rewind resolve, hostctl review rewind): keepTheirs leaves those files as they are and rewinds the rest; merge keeps the later edits where they touch other lines than the agent's; force restores anyway and records what it overwrites as a review entry of its own, which review.rollback brings back; dryRun previews each"

// Unwrap makes errors.Is(err, ErrConflict) hold.
func (e *RewindConflictError) Unwrap() error { return ErrConflict }

// defaultMaxFileBytes bounds reads when the request names no bound.
const defaultMaxFileBytes = 16 << 20

// Rewind undoes, all or nothing, every change the selection names,
// newest first, for review.rewind. It holds what Undo holds (the live
// session's mutation lock, the file locks of every path) from its check
// to its last write, and invalidates the session's snapshots of what it
// wrote. With DryRun it answers the same report and writes nothing.
func Rewind(ctx context.Context, r RewindRequest) (wire.RewindResult, error) {
	if err := ValidResolve(r.Resolve); err != nil {
		return wire.RewindResult{}, err
	}
	for _, v := range r.ResolveFiles {
		if err := ValidResolve(v); err != nil || v == "" {
			return wire.RewindResult{}, fmt.Errorf("%w: resolveFiles: each value must be keepTheirs, merge or force, not %s", ErrBadRequest, quote.Short(v))
		}
	}
	if r.MaxFileBytes <= 0 {
		r.MaxFileBytes = defaultMaxFileBytes
	}
	var o options
	defer o.closeOpened()
	state, unlock := holdSession(r.Session)
	defer unlock()
	if state != nil {
		o.dirOf = state.Workspace.DirOf
	}
	if err := ctx.Err(); err != nil {
		return wire.RewindResult{}, err
	}
	txn, err := r.Store.BeginRewind(r.SessionID, r.Selection)
	if errors.Is(err, review.ErrNotFound) {
		return wire.RewindResult{}, fmt.Errorf("%w: session %s has no calls for %s; review.list shows the calls it has, with their promptId", review.ErrNotFound, quote.Short(r.SessionID), r.Selection)
	}
	if err != nil {
		return wire.RewindResult{}, err
	}
	defer txn.Abort()
	paths := txn.Paths()
	if r.Files != nil {
		names := make([]string, len(paths))
		for i, p := range paths {
			names[i] = p.Path
		}
		unlockFiles, err := r.Files.Lock(ctx, names...)
		if err != nil {
			return wire.RewindResult{}, err
		}
		defer unlockFiles()
	}
	named := map[string]bool{}
	for _, p := range paths {
		if _, ok := r.ResolveFiles[p.Display]; ok {
			named[p.Display] = true
		}
		if _, ok := r.ResolveFiles[p.Path]; ok {
			named[p.Path] = true
		}
	}
	for f := range r.ResolveFiles {
		if !named[f] {
			return wire.RewindResult{}, fmt.Errorf("%w: resolveFiles names %s, which this rewind does not touch; a dry run lists the files it does", ErrBadRequest, quote.Short(f))
		}
	}
	rep := wire.RewindResult{DryRun: r.DryRun, Calls: txn.Calls(), Note: Unrecorded}
	puts := make([]review.Put, len(paths))
	refuseMerge := false
	for i, p := range paths {
		plan, put, err := assess(txn, r, p)
		if err != nil {
			return wire.RewindResult{}, err
		}
		put.Path = i
		puts[i] = put
		if plan.Conflict != nil {
			rep.Conflicts++
			if r.resolveOf(p) == Merge && plan.Action == "conflict" {
				refuseMerge = true
			}
		}
		rep.Files = append(rep.Files, plan)
	}
	if r.DryRun {
		return rep, nil
	}
	for _, f := range rep.Files {
		if f.Action == "conflict" {
			return wire.RewindResult{}, &RewindConflictError{Report: rep, merge: refuseMerge}
		}
	}
	if err := ctx.Err(); err != nil {
		return wire.RewindResult{}, err
	}
	recorded, err := txn.Rewind(puts, o.rewindRoot)
	if err != nil {
		return wire.RewindResult{}, err
	}
	rep.Recorded = recorded
	if state != nil {
		for i, p := range paths {
			if !puts[i].Keep {
				state.Store.Invalidate(p.Path, "was rewound (review.rewind)")
			}
		}
	}
	return rep, nil
}

// ErrBadRequest: the request itself is wrong (a resolve that is not one
// of the three, a file the rewind does not touch); nothing was done.
var ErrBadRequest = errors.New("invalid rewind request")

// ValidResolve checks a resolve: "", KeepTheirs, Merge or Force.
func ValidResolve(v string) error {
	switch v {
	case "", KeepTheirs, Merge, Force:
		return nil
	}
	return fmt.Errorf("%w: resolve must be keepTheirs, merge or force, not %s", ErrBadRequest, quote.Short(v))
}

// resolveOf is what the request says to do with p when it conflicts.
func (r RewindRequest) resolveOf(p review.RewindPath) string {
	if v, ok := r.ResolveFiles[p.Display]; ok {
		return v
	}
	if v, ok := r.ResolveFiles[p.Path]; ok {
		return v
	}
	return r.Resolve
}

// rewindRoot is rootOf for a rewind's path.
func (o *options) rewindRoot(p review.RewindPath) *workspace.Dir {
	return o.rootOf(review.Target{Path: p.Path, Root: p.Root})
}

// assess checks one path's live file against what the agent left, and
// decides what the rewind does to it under its resolve. A file the agent's
// calls left as it is now, with nothing unrecorded between them, is
// restored; any other is a conflict, dealt with as its resolve says, or
// left as "conflict" (refused unless a dry run).
func assess(txn *review.RewindTxn, r RewindRequest, p review.RewindPath) (wire.RewindFile, review.Put, error) {
	plan := wire.RewindFile{Path: p.Display}
	for i := len(p.Changes) - 1; i >= 0; i-- {
		id := p.Changes[i].Entry.ToolCallID
		if len(plan.Calls) == 0 || plan.Calls[len(plan.Calls)-1] != id {
			plan.Calls = append(plan.Calls, id)
		}
	}
	o, err := review.Observe(p.Path, max(p.After.Size, r.MaxFileBytes))
	if err != nil {
		return plan, review.Put{}, fmt.Errorf("%w: cannot check %s: %w; nothing was restored", ErrFailed, p.Display, err)
	}
	live, readable := o.State()
	put := review.Put{Live: live, To: p.Before}
	reason, changedBy := conflictOf(txn, r, p, o)
	if reason == "" {
		plan.Action = "restore"
		if !p.Before.Exists {
			plan.Action = "remove"
		}
		plan.Diff = review.Diff(p.Display, live, p.Before)
		return plan, put, nil
	}
	c := &wire.RewindConflict{Reason: reason, ChangedBy: changedBy, Choices: []string{KeepTheirs}}
	plan.Conflict = c
	plan.Action = "conflict"
	var merged []byte
	mergeOK := false
	if readable {
		c.Choices = append(c.Choices, Force)
		plan.Diff = review.Diff(p.Display, live, p.Before)
		var why string
		merged, c.Overlap, why = mergeChain(txn, p, live)
		if merged != nil {
			mergeOK = true
			c.Choices = []string{KeepTheirs, Merge, Force}
			plan.MergeDiff = review.Diff(p.Display, live, review.State{Exists: true, Data: merged, Mode: p.Before.Mode})
		} else if why != "" && len(c.Overlap) == 0 {
			c.Overlap = []string{why}
		}
	} else {
		plan.Diff = fmt.Sprintf("%s: hostd cannot read what it holds now (not a regular file, or larger than %d bytes), so it cannot keep it: only keepTheirs\n", p.Display, r.MaxFileBytes)
	}
	switch r.resolveOf(p) {
	case KeepTheirs:
		plan.Action, plan.Diff, plan.MergeDiff = "keep", "", ""
		put.Keep = true
	case Merge:
		if mergeOK {
			plan.Action, plan.Diff, plan.MergeDiff = "merge", plan.MergeDiff, ""
			put.To = review.State{Exists: true, Data: merged, Mode: p.Before.Mode}
		}
	case Force:
		if readable {
			plan.Action = "force"
			put.Overwrite = true
		}
	}
	return plan, put, nil
}

// conflictOf says why the live file, or the chain of the agent's changes
// to it, is not purely the agent's, and who changed it when the record
// knows; "" when it is.
func conflictOf(txn *review.RewindTxn, r RewindRequest, p review.RewindPath, o review.Observation) (string, []wire.PathChange) {
	last := p.Changes[len(p.Changes)-1]
	for k := 1; k < len(p.Changes); k++ {
		prev, cur := p.Changes[k-1], p.Changes[k]
		if !sameSide(prev.After, cur.Before) {
			by := r.Store.ChangesBetween(p.Path, prev.Seq(), cur.Seq())
			return fmt.Sprintf("changed between calls %s and %s by something else", quote.Short(prev.Entry.ToolCallID), quote.Short(cur.Entry.ToolCallID)), by
		}
	}
	if reason := differs(o, p.After); reason != "" {
		reason = strings.Replace(reason, "since the call", "since the agent's last change to it ("+quote.Short(last.Entry.ToolCallID)+")", 1)
		return reason, r.Store.ChangesBetween(p.Path, last.Seq(), 0)
	}
	return "", nil
}

// sameSide reports whether two facts describe the same content.
func sameSide(a, b review.Facts) bool {
	return a.Exists == b.Exists && a.Link == b.Link && a.SHA256 == b.SHA256
}

// mergeChain undoes the agent's changes of one path newest first, each as
// a three-way merge (what it left, what the file holds, what it found),
// so that every edit no change of the selection made is kept. It returns
// nil with the overlapping lines, or with why it cannot merge at all.
func mergeChain(txn *review.RewindTxn, p review.RewindPath, live review.State) (merged []byte, overlaps []string, why string) {
	if !live.Exists || live.Link {
		return nil, nil, "merge needs the file as text, and it is absent or a link now"
	}
	cur := string(live.Data)
	for k := len(p.Changes) - 1; k >= 0; k-- {
		l := p.Changes[k]
		if !l.Before.Exists || !l.After.Exists {
			return nil, nil, fmt.Sprintf("merge cannot undo a creation or a removal (%s %s it)", l.Entry.ToolCallID, map[bool]string{true: "created", false: "removed"}[!l.Before.Exists])
		}
		before, err := txn.BeforeOf(l)
		if err != nil {
			return nil, nil, err.Error()
		}
		after, err := txn.AfterOf(l)
		if err != nil {
			return nil, nil, err.Error()
		}
		out, ov, ok := undoKeeping(string(after), cur, string(before))
		if !ok {
			return nil, ov, ""
		}
		cur = out
	}
	return []byte(cur), nil, ""
}
