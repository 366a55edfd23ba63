package rpc

import (
	"context"

	"go.uber.org/zap"

	"github.com/hostd-dev/hostd/internal/filelock"
	"github.com/hostd-dev/hostd/internal/quote"
	"github.com/hostd-dev/hostd/review"
	"github.com/hostd-dev/hostd/rollback"
	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/session"
	"github.com/hostd-dev/hostd/workspace"
)

// reviewMethods are served when the daemon has a review store
// (Options.Review); without one they do not exist, and a client asking
// for them gets METHOD_NOT_FOUND.
func (s *Server) reviewMethods() []*Method {
	return []*Method{
		method("review.sessions", "Every session with review records, live or not (a daemon restart ends sessions, never their records), the most recently changed first.", s.reviewSessions),
		method("review.list", "The session's review entries (every change a tool made), oldest first; path keeps one file's. The session may be gone (a restart), as long as it has records.", s.reviewList).errors(wire.CodeSessionNotFound),
		method("review.rewind", "Undo, all or nothing, every change of a user turn (promptId), of a tool call and every later one (since), of one call (toolCallId) or of the whole session (all), newest first; dryRun previews it file by file with diffs and conflicts. A file changed since the agent's last change to it is a conflict: resolve says what to do (keepTheirs, merge, force); without it ROLLBACK_CONFLICT names each file and the choices, and nothing is restored.", s.reviewRewind).errors(wire.CodeSessionNotFound, wire.CodeReviewNotFound, wire.CodeRollbackConflict),
		method("review.rollback", "Undo every change of one tool call, all or nothing; the session may be gone, as long as it has records. ROLLBACK_CONFLICT when a file changed since (or the call was already rolled back); nothing is restored then.", s.reviewRollback).errors(wire.CodeSessionNotFound, wire.CodeReviewNotFound, wire.CodeRollbackConflict),
	}
}

// reviewSentinels extend the error mapping with the review store's
// errors. A call already rolled back, or being rolled back, cannot be
// rolled back now for the same reason a changed file cannot: the disk no
// longer holds what the call left there.
var reviewSentinels = []sentinel{
	{review.ErrNotFound, wire.CodeReviewNotFound},
	{rollback.ErrConflict, wire.CodeRollbackConflict},
	{review.ErrRolledBack, wire.CodeRollbackConflict},
	{review.ErrNothingToRewind, wire.CodeRollbackConflict},
	{rollback.ErrBadRequest, wire.CodeInvalidParams},
	{review.ErrBusy, wire.CodeRollbackConflict},
	// An I/O failure stands in the way of a rollback as a changed file
	// does; the message names the cause and whether anything changed.
	{rollback.ErrFailed, wire.CodeRollbackConflict},
	{rollback.ErrIncomplete, wire.CodeRollbackConflict},
	// A store found damaged while in use is not a bug in the daemon, but
	// nothing the caller can fix either; the message says to restart.
	{review.ErrBroken, wire.CodeInternal},
}

func (s *Server) reviewSessions(context.Context, struct{}) (wire.ReviewSessions, error) {
	sums, err := s.opts.Review.Sessions()
	out := wire.ReviewSessions{Sessions: make([]wire.ReviewSession, len(sums))}
	for i, sum := range sums {
		out.Sessions[i] = wire.ReviewSession(sum)
	}
	return out, err
}

// recordedSession finds a session that is live or has review records: the
// live one (nil when it is gone), or SESSION_NOT_FOUND for neither.
func (s *Server) recordedSession(id string) (*session.Session, error) {
	sess, err := s.opts.Sessions.Get(id)
	if err == nil {
		return sess, nil
	}
	if sums, serr := s.opts.Review.Sessions(); serr == nil {
		for _, sum := range sums {
			if sum.SessionID == id {
				return nil, nil
			}
		}
	}
	return nil, newError(wire.CodeSessionNotFound, "session not found: %s has no live session and no review records; review.sessions lists the sessions that have records", quote.Short(id))
}

func (s *Server) reviewList(_ context.Context, p wire.ReviewListParams) (wire.ReviewList, error) {
	sess, err := s.recordedSession(p.SessionID)
	if err != nil {
		return wire.ReviewList{}, err
	}
	path := p.Path
	if path != "" && sess != nil {
		// Entries know the canonical path; a path spelled another way (a
		// symlink, a relative path) still finds them.
		if st, release, err := sess.Hold(); err == nil {
			if r, err := st.Workspace.Resolve(path, workspace.Read); err == nil {
				path = r.Abs
			}
			release()
		}
	}
	entries, err := s.opts.Review.List(p.SessionID, path)
	return wire.ReviewList{Entries: wireEntries(entries)}, err
}

func (s *Server) reviewRollback(ctx context.Context, p wire.RollbackParams) (wire.RollbackResult, error) {
	sess, err := s.recordedSession(p.SessionID)
	if err != nil {
		return wire.RollbackResult{}, err
	}
	restored, err := rollback.Undo(ctx, rollback.Request{
		Store: s.opts.Review, Files: s.fileLocks(), Session: sess,
		SessionID: p.SessionID, ToolCallID: p.ToolCallID,
	})
	return wire.RollbackResult{Restored: restored}, err
}

func (s *Server) reviewRewind(ctx context.Context, p wire.RewindParams) (wire.RewindResult, error) {
	set := 0
	for _, on := range []bool{p.PromptID != "", p.Since != "", p.ToolCallID != "", p.All} {
		if on {
			set++
		}
	}
	if set != 1 {
		return wire.RewindResult{}, paramError("params", "name exactly one of promptId, since, toolCallId or all: what to rewind")
	}
	if rollback.ValidResolve(p.Resolve) != nil {
		return wire.RewindResult{}, paramError("params.resolve", "must be keepTheirs, merge or force, not "+quote.Short(p.Resolve))
	}
	sess, err := s.recordedSession(p.SessionID)
	if err != nil {
		return wire.RewindResult{}, err
	}
	return rollback.Rewind(ctx, rollback.RewindRequest{
		Store: s.opts.Review, Files: s.fileLocks(), Session: sess, SessionID: p.SessionID,
		Selection: review.Selection{PromptID: p.PromptID, Since: p.Since, ToolCallID: p.ToolCallID, All: p.All},
		DryRun:    p.DryRun, Resolve: p.Resolve, ResolveFiles: p.ResolveFiles, MaxFileBytes: s.opts.Limits.MaxWriteBytes,
	})
}

// fileLocks are the daemon's file locks, which the tools take; nil when
// the daemon runs no tools.
func (s *Server) fileLocks() *filelock.Table {
	if s.opts.Executor == nil {
		return nil
	}
	return s.opts.Executor.Files()
}

// broadcastRecorded queues review.recorded on every connection's outbox.
// It runs on the recording goroutine, and neither waits nor starts a
// goroutine: the notification is encoded once, and a connection whose
// queue is full drops it (counted in debug.stats). Each client gets
// notifications in the order calls were recorded, since recording is
// serialized per session and each outbox is written in order. Queueing
// takes each outbox's own lock, a leaf, under Server.mu.
func (s *Server) broadcastRecorded(r review.Recorded) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.conns) == 0 {
		return
	}
	body, err := encodeNotification(wire.RecordedNotification, wire.ReviewRecorded{SessionID: r.SessionID, ToolCallID: r.ToolCallID, Entries: wireEntries(r.Entries)})
	if err != nil {
		s.log.Error("encoding review.recorded", zap.Error(err))
		return
	}
	if int64(len(body)) > s.opts.Limits.MaxFrameBytes {
		// No client may take it; review.list has the entries.
		s.log.Warn("review.recorded larger than limits.maxFrameBytes; not sent", zap.Int("bytes", len(body)), zap.String(LogSessionID, r.SessionID))
		s.droppedGone.Add(int64(len(s.conns)))
		return
	}
	for c := range s.conns {
		c.trace("out", body)
		if !c.out.notify(body) && c.out.dropped.Load() == 1 {
			c.log.Warn("the client is not reading fast enough; dropping notifications (review.list has every entry)")
		}
	}
}

// wireEntries are review entries as the wire sends them ([] for none).
func wireEntries(entries []review.Entry) []wire.ReviewEntry {
	out := make([]wire.ReviewEntry, len(entries))
	for i, e := range entries {
		out[i] = e.ReviewEntry
	}
	return out
}
