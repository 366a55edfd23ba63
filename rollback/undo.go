package rollback

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/hostd-dev/hostd/internal/filelock"
	"github.com/hostd-dev/hostd/internal/quote"
	"github.com/hostd-dev/hostd/review"
	"github.com/hostd-dev/hostd/session"
)

// Request is one review.rollback: a tool call of a session whose records
// the review store holds.
type Request struct {
	Store *review.Store
	// Files are the daemon's file locks (the tools'); nil when the daemon
	// runs no tools.
	Files *filelock.Table
	// Session is the live session that made the call; nil when it is gone
	// (a daemon restart ends sessions, never their records).
	Session    *session.Session
	SessionID  string
	ToolCallID string
}

// Undo rolls back one tool call for review.rollback and returns the paths
// it restored as the user sees them. A live session's mutation lock is
// held throughout, so none of its tools writes between the conflict check
// and the restore, and its roots confine each restore; the daemon's file
// locks keep every other session's tools off the restored paths as long.
// The session must not keep a tag for content the rollback replaced
// (edit-contract §13.1): its snapshots of every restored path are
// invalidated before the lock is let go. A session that is gone has no
// tools running, and each restore is confined to the root recorded with
// its entry. Errors are Rollback's, an unknown call named with the
// session and toolCallId asked for.
func Undo(ctx context.Context, r Request) ([]string, error) {
	opts := []Option{WithFiles(r.Files)}
	state, unlock := holdSession(r.Session)
	defer unlock()
	if state != nil {
		opts = append(opts, WithRoots(state.Workspace.DirOf))
	}
	restored, err := Rollback(ctx, r.Store, r.SessionID, r.ToolCallID, opts...)
	if errors.Is(err, review.ErrNotFound) {
		return nil, fmt.Errorf("%w: session %s has no entries for toolCallId %s; review.list shows the calls it has", review.ErrNotFound, quote.Short(r.SessionID), quote.Short(r.ToolCallID))
	}
	if err != nil {
		return nil, err
	}
	if state == nil {
		return recordedDisplay(r.Store, r.SessionID, restored), nil
	}
	shown := make([]string, len(restored))
	for i, path := range restored {
		state.Store.Invalidate(path, "was rolled back (review.rollback "+r.ToolCallID+")")
		shown[i] = state.Workspace.Display(path)
	}
	return shown, nil
}

// holdSession takes a live session's mutation lock and holds its state,
// until unlock; the state is nil when the session is gone (sess nil, or
// deleted since the caller found it), which is then treated as a gone one.
// Under the lock no workspace switch happens meanwhile.
func holdSession(sess *session.Session) (state *session.State, unlock func()) {
	if sess == nil {
		return nil, func() {}
	}
	unlockMutations := sess.LockMutations()
	st, release, err := sess.Hold()
	if err != nil {
		return nil, unlockMutations
	}
	return st, func() {
		release()
		unlockMutations()
	}
}

// recordedDisplay shows canonical paths as the session's entries recorded
// them, for a session that is gone.
func recordedDisplay(store *review.Store, sessionID string, paths []string) []string {
	display := map[string]string{}
	if entries, err := store.List(sessionID, ""); err == nil {
		for _, e := range entries {
			display[e.Canonical] = e.Path
		}
	}
	shown := make([]string, len(paths))
	for i, path := range paths {
		shown[i] = cmp.Or(display[path], path)
	}
	return shown
}
