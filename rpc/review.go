package rpc

import (
	"context"
	"errors"
	"time"

	"go.uber.org/zap"

	"github.com/hostd-dev/hostd/review"
	"github.com/hostd-dev/hostd/rollback"
	"github.com/hostd-dev/hostd/workspace"
)

// reviewMethods are served when the daemon has a review store
// (Options.Review); without one they do not exist, and a client asking
// for them gets METHOD_NOT_FOUND.
func (s *Server) reviewMethods() []*Method {
	return []*Method{
		method("review.list", "The session's review entries (every change a tool made), oldest first; path keeps one file's.", s.reviewList).errors(CodeSessionNotFound),
		method("review.rollback", "Undo every change of one tool call, all or nothing. ROLLBACK_CONFLICT when a file changed since (or the call was already rolled back); nothing is restored then.", s.reviewRollback).errors(CodeSessionNotFound, CodeReviewNotFound, CodeRollbackConflict),
	}
}

// reviewSentinels extend the error mapping with the review store's
// errors. A call already rolled back, or being rolled back, cannot be
// rolled back now for the same reason a changed file cannot: the disk no
// longer holds what the call left there.
var reviewSentinels = []sentinel{
	{review.ErrNotFound, CodeReviewNotFound},
	{rollback.ErrConflict, CodeRollbackConflict},
	{review.ErrRolledBack, CodeRollbackConflict},
	{review.ErrBusy, CodeRollbackConflict},
	// An I/O failure stands in the way of a rollback as a changed file
	// does; the message names the cause and whether anything changed.
	{rollback.ErrFailed, CodeRollbackConflict},
	{rollback.ErrIncomplete, CodeRollbackConflict},
	// A store found damaged while in use is not a bug in the daemon, but
	// nothing the caller can fix either; the message says to restart.
	{review.ErrBroken, CodeInternal},
}

// ReviewListParams are the params of review.list.
type ReviewListParams struct {
	SessionID string `json:"sessionId"`
	Path      string `json:"path,omitempty" doc:"keep only this file's entries: workspace-relative or absolute"`
}

// ReviewList is the result of review.list.
type ReviewList struct {
	Entries []review.Entry `json:"entries" doc:"oldest first"`
}

func (s *Server) reviewList(_ context.Context, p ReviewListParams) (ReviewList, error) {
	sess, err := s.opts.Sessions.Get(p.SessionID)
	if err != nil {
		return ReviewList{}, err
	}
	path := p.Path
	if path != "" {
		// Entries know the canonical path; a path spelled another way (a
		// symlink, a relative path) still finds them.
		if r, err := sess.State().Workspace.Resolve(path, workspace.Read); err == nil {
			path = r.Abs
		}
	}
	entries, err := s.opts.Review.List(p.SessionID, path)
	if entries == nil {
		entries = []review.Entry{}
	}
	return ReviewList{Entries: entries}, err
}

// RollbackParams are the params of review.rollback.
type RollbackParams struct {
	SessionID  string `json:"sessionId"`
	ToolCallID string `json:"toolCallId"`
}

// RollbackResult is the result of review.rollback.
type RollbackResult struct {
	Restored []string `json:"restored" doc:"the paths put back, as the model sees them"`
}

func (s *Server) reviewRollback(ctx context.Context, p RollbackParams) (RollbackResult, error) {
	sess, err := s.opts.Sessions.Get(p.SessionID)
	if err != nil {
		return RollbackResult{}, err
	}
	// The session's mutation lock keeps a tool of this session from
	// writing between the conflict check and the restore.
	lock := func(string) func() { return sess.LockMutations() }
	// The file locks keep every other session's tools off the restored
	// paths for as long; the session's roots confine each restore.
	opts := []rollback.Option{rollback.WithLock(lock), rollback.WithRoots(sess.State().Workspace.DirOf)}
	if s.opts.Executor != nil {
		opts = append(opts, rollback.WithFiles(s.opts.Executor.Files()))
	}
	restored, err := rollback.Rollback(ctx, s.opts.Review, p.SessionID, p.ToolCallID, opts...)
	if err != nil {
		if errors.Is(err, review.ErrNotFound) {
			err = newError(CodeReviewNotFound, "%v: session %q has no entries for toolCallId %q; review.list shows the calls it has", err, p.SessionID, p.ToolCallID)
		}
		return RollbackResult{}, err
	}
	// The session must not keep a tag for content the rollback replaced
	// (edit-contract §13.1).
	state := sess.State()
	out := RollbackResult{Restored: make([]string, len(restored))}
	for i, path := range restored {
		state.Store.Invalidate(path, "was rolled back (review.rollback "+p.ToolCallID+")")
		out.Restored[i] = state.Workspace.Display(path)
	}
	return out, nil
}

// RecordedNotification is the method of the notification every connected
// client receives when a tool call's changes are recorded for review; its
// params are a review.Recorded.
const RecordedNotification = "review.recorded"

// notifyTimeout bounds how long one client may take to accept a
// notification before it is skipped.
const notifyTimeout = 5 * time.Second

// broadcastRecorded sends review.recorded to every connection. It runs
// off the recording goroutine, so a slow client never delays a tool
// result; each client gets notifications in the order calls were
// recorded because one goroutine per notification sends them in turn and
// recording is serialized per session.
func (s *Server) broadcastRecorded(r review.Recorded) {
	s.mu.Lock()
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	if len(conns) == 0 {
		return
	}
	go func() {
		for _, c := range conns {
			ctx, cancel := context.WithTimeout(context.Background(), notifyTimeout)
			if err := c.jc.Notify(ctx, RecordedNotification, r); err != nil {
				c.log.Debug("review.recorded not delivered", zap.Error(err))
			}
			cancel()
		}
	}()
}
