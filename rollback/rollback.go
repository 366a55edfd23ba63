// Package rollback undoes recorded changes: one tool call's (wire-contract
// §5, review.rollback, Undo), or many calls' as one (review.rewind,
// Rewind: a user turn, the calls since one, a session, with a preview and
// the ways forward from a conflict, rewind.go). It checks that every path
// still holds exactly what the calls left there, and only then has review
// put every path back, all or nothing. A rollback never overwrites work done since the call, and a
// crash in the middle of one is finished by the next review.Open.
//
// It owns the conflict check, the locks a rollback holds (the session's
// mutation lock, the daemon's file locks of every path) and what the
// session learns from it (Undo invalidates its snapshots of the restored
// paths). The durable record and every file write, restores and their
// undo included, belong to package review (RestoreTxn.Restore,
// RewindTxn.Rewind); rollback writes no file itself.
package rollback

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hostd-dev/hostd/internal/filelock"
	"github.com/hostd-dev/hostd/review"
	"github.com/hostd-dev/hostd/workspace"
)

// ErrConflict: a path changed since the call being rolled back; nothing
// was restored (ROLLBACK_CONFLICT). The error is a *ConflictError.
var ErrConflict = errors.New("rollback conflict")

// ErrIncomplete: a restore failed and putting the already restored paths
// back failed too. The rollback stays recorded as in progress and is
// finished by the next review.Open. It is review's error, named here for
// callers of Rollback.
var ErrIncomplete = review.ErrRollbackIncomplete

// ErrFailed: the rollback could not be carried out because a file could
// not be read or written, or the review store could not be read or could
// not record it; nothing was restored. The message names the cause. Like
// a conflict, it is the disk, not the request, that stands in the way
// (ROLLBACK_CONFLICT). Review's error, named here for callers.
var ErrFailed = review.ErrRollbackFailed

// Conflict is one path that changed since the call.
type Conflict struct {
	Path    string // canonical
	Display string
	Reason  string // what changed, for a person
	// Later are the tool calls of the session that changed the path after
	// this one and are not rolled back, newest first: rolling those back
	// first, in that order, is usually the way out.
	Later []string
}

// ConflictError lists every conflicting path, so the user can deal with all
// of them at once rather than one per attempt.
type ConflictError struct {
	Conflicts []Conflict
}

func (e *ConflictError) Error() string {
	parts := make([]string, len(e.Conflicts))
	for i, c := range e.Conflicts {
		parts[i] = c.Display + ": " + c.Reason
		if len(c.Later) > 0 {
			parts[i] += " (later calls changed it: roll back " + strings.Join(c.Later, ", ") + " first, in that order)"
		}
	}
	return "rollback conflict: " + strings.Join(parts, "; ") + "; nothing was restored. " + waysForward + " (name this call with toolCallId, or --call)"
}

// Unwrap makes errors.Is(err, ErrConflict) hold.
func (e *ConflictError) Unwrap() error { return ErrConflict }

// Option configures Rollback.
type Option func(*options)

type options struct {
	lock  func(sessionID string) (unlock func())
	files *filelock.Table
	dirOf func(abs string) (*workspace.Dir, bool)
	// opened caches the recorded roots opened by this rollback.
	opened map[string]*workspace.Dir
}

// WithFiles makes Rollback hold the daemon's file locks of every path it
// restores from the conflict check to the last restore, so no tool call
// of any session changes one of them in between.
func WithFiles(t *filelock.Table) Option {
	return func(o *options) { o.files = t }
}

// WithRoots confines each restore to the open root dirOf returns for its
// path (the session's workspace), and checks right before each write that
// the path still holds what the conflict check saw. A path under no root
// is restored through its parent directory, as crash recovery does.
func WithRoots(dirOf func(abs string) (*workspace.Dir, bool)) Option {
	return func(o *options) { o.dirOf = dirOf }
}

// WithLock makes Rollback hold the session's mutation lock for its whole
// run, so no mutation of that session lands between the conflict check
// and the restore. Without it the caller must already hold that lock.
func WithLock(lock func(sessionID string) (unlock func())) Option {
	return func(o *options) { o.lock = lock }
}

// Rollback restores every entry of the call that is not rolled back yet
// and returns their canonical paths (Undo invalidates the session's
// snapshots of them and shows them as the user sees them). It fails with review.ErrNotFound for an unknown
// call, review.ErrRolledBack when it was already rolled back, review.ErrBusy
// when another rollback of it is running, a *ConflictError (ErrConflict)
// when any path changed since, ErrFailed when a file or the store could not
// be read or written, and ctx's error when cancelled before it started
// writing; in all of these nothing was restored. ErrIncomplete says that
// the rollback stopped halfway and is finished at the next start. Once the first
// file is written the rollback runs to its end regardless of ctx, because
// stopping halfway is the one outcome it must never produce.
func Rollback(ctx context.Context, store *review.Store, sessionID, toolCallID string, opts ...Option) (restored []string, err error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	defer o.closeOpened()
	if o.lock != nil {
		unlock := o.lock(sessionID)
		defer unlock()
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	txn, err := store.BeginRestore(sessionID, toolCallID)
	if err != nil {
		if errors.Is(err, review.ErrNotFound) || errors.Is(err, review.ErrRolledBack) || errors.Is(err, review.ErrBusy) || errors.Is(err, review.ErrClosed) {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %w; nothing was restored", ErrFailed, err)
	}
	defer txn.Abort() // released unless Restore ran

	targets := txn.Targets()
	if o.files != nil {
		paths := make([]string, len(targets))
		for i, t := range targets {
			paths[i] = t.Path
		}
		unlockFiles, err := o.files.Lock(ctx, paths...)
		if err != nil {
			return nil, err
		}
		defer unlockFiles()
	}
	live, err := check(targets)
	if err != nil {
		var ce *ConflictError
		if errors.As(err, &ce) {
			laterCalls(store, sessionID, toolCallID, ce)
		}
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := txn.Restore(live, o.rootOf); err != nil {
		return nil, err
	}
	restored = make([]string, len(targets))
	for i, t := range targets {
		restored[i] = t.Path
	}
	return restored, nil
}

// check compares every target's live file with what its entry left and
// returns the live states: each restore is checked against its state,
// and a restore that fails midway puts the others back to theirs.
// Memory is bounded by the after sizes: a file of any other size is a
// conflict without being read.
func check(targets []review.Target) ([]review.State, error) {
	live := make([]review.State, len(targets))
	var conflicts []Conflict
	for i, t := range targets {
		o, err := review.Observe(t.Path, t.After.Size)
		if err != nil {
			return nil, fmt.Errorf("%w: cannot check %s: %w; nothing was restored", ErrFailed, t.Entry.Path, err)
		}
		if reason := differs(o, t.After); reason != "" {
			conflicts = append(conflicts, Conflict{Path: t.Path, Display: t.Entry.Path, Reason: reason})
			continue
		}
		live[i], _ = o.State()
	}
	if len(conflicts) > 0 {
		return nil, &ConflictError{Conflicts: conflicts}
	}
	return live, nil
}

// differs says how the live file differs from what the entry left, or ""
// when it is exactly that. A changed mode is a change too: restoring the
// old mode would undo someone's chmod.
func differs(o review.Observation, after review.Facts) string {
	switch {
	case !after.Exists && o.Exists:
		return "the call deleted it, and it exists again"
	case !after.Exists:
		return ""
	case !o.Exists:
		return "deleted since the call"
	case after.Link && (!o.Link || o.SHA256 != after.SHA256):
		return "no longer the symbolic link the call left"
	case after.Link:
		return ""
	case !o.Regular:
		return "no longer a regular file"
	case o.Size != after.Size:
		return fmt.Sprintf("content changed since the call (%d bytes now, %d after the call)", o.Size, after.Size)
	case o.SHA256 != after.SHA256:
		return fmt.Sprintf("content changed since the call (sha256 %.12s now, %.12s after the call)", o.SHA256, after.SHA256)
	case o.Mode != after.Mode:
		return fmt.Sprintf("mode changed since the call (%04o now, %04o after the call)", o.Mode, after.Mode)
	}
	return ""
}

// rootOf is the open root t's path is confined to: the live session's
// (WithRoots), else the root recorded with the entry, opened once per
// rollback; nil for a record from before roots were recorded, which
// review restores through the path's parent directory.
func (o *options) rootOf(t review.Target) *workspace.Dir {
	if o.dirOf != nil {
		if d, ok := o.dirOf(t.Path); ok {
			return d
		}
	}
	if t.Root == "" {
		return nil
	}
	if d, ok := o.opened[t.Root]; ok {
		return d
	}
	d, err := workspace.OpenDir(t.Root)
	if err != nil {
		d = nil
	}
	if o.opened == nil {
		o.opened = map[string]*workspace.Dir{}
	}
	o.opened[t.Root] = d
	return d
}

// closeOpened closes the recorded roots this rollback opened.
func (o *options) closeOpened() {
	for _, d := range o.opened {
		if d != nil {
			d.Close()
		}
	}
}

// laterCalls fills each conflict's Later from the session's review entries.
func laterCalls(store *review.Store, sessionID, toolCallID string, ce *ConflictError) {
	for i := range ce.Conflicts {
		c := &ce.Conflicts[i]
		entries, err := store.List(sessionID, c.Path)
		if err != nil {
			continue
		}
		seen := false
		for _, e := range entries { // oldest first
			switch {
			case e.ToolCallID == toolCallID:
				seen = true
			case seen && !e.RolledBack && !slices.Contains(c.Later, e.ToolCallID):
				c.Later = append([]string{e.ToolCallID}, c.Later...)
			}
		}
	}
}
