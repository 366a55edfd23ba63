package review

import (
	"errors"
	"fmt"
	"slices"

	bolt "go.etcd.io/bbolt"

	"github.com/hostd-dev/hostd/workspace"
)

// Target is one entry a rollback puts back.
type Target struct {
	Entry  Entry  // as recorded, without its diff
	Path   string // canonical path
	Root   string // the root the path lies under, when recorded
	Before State  // what the rollback writes (or, when absent, removes)
	After  Facts  // what the entry left; the live file must still be this

	seq uint64
}

// RestoreTxn is one rollback between BeginRestore and Commit or Abort. It
// belongs to one goroutine. While it lives, its call is busy: not evicted,
// and a second BeginRestore of it fails with ErrBusy.
type RestoreTxn struct {
	s       *Store
	key     callKey
	targets []Target
	intent  intentRecord
	started bool
	done    bool
}

// BeginRestore prepares the rollback of every entry of a call that is not
// rolled back yet, loading the bytes each needs. It writes nothing: the
// caller checks the live files first and calls Restore only when it will
// restore, or Abort. It fails with ErrNotFound for an unknown call, ErrRolledBack
// when every entry is already rolled back, and ErrBusy.
//
// Targets come in restore order: paths that get content back first,
// removals last, so that a crash between the steps of an MV's rollback
// leaves the content in two places rather than in none.
func (s *Store) BeginRestore(sessionID, toolCallID string) (*RestoreTxn, error) {
	key := callKey{sessionID, toolCallID}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, ErrClosed
	}
	c := s.calls[key]
	if c == nil {
		s.mu.Unlock()
		return nil, fmt.Errorf("%w: %q in session %q", ErrNotFound, toolCallID, sessionID)
	}
	if c.busy {
		s.mu.Unlock()
		return nil, fmt.Errorf("%w: %q", ErrBusy, toolCallID)
	}
	recs := c.live()
	if len(recs) == 0 {
		s.mu.Unlock()
		return nil, fmt.Errorf("%w: %q", ErrRolledBack, toolCallID)
	}
	c.busy = true
	s.mu.Unlock()

	t := &RestoreTxn{s: s, key: key}
	for i := range recs {
		r := &recs[i]
		tg := Target{Entry: r.entry(""), Path: r.Path, Root: r.Root, After: r.After, seq: r.Seq,
			Before: State{Exists: r.Before.Exists, Mode: r.Before.Mode, Link: r.Before.Link}}
		if r.Before.Exists {
			data, err := s.loadBefore(r.Seq, r.Before)
			if err != nil {
				s.release(key)
				return nil, err
			}
			tg.Before.Data = data
		}
		t.targets = append(t.targets, tg)
	}
	slices.SortStableFunc(t.targets, func(a, b Target) int { return contentFirst(a.Before.Exists, b.Before.Exists) })
	return t, nil
}

// contentFirst is the order of a rollback's or a rewind's writes: a path
// that gets content back (exists) before one that is removed, so that a
// crash between the steps of an MV's undo leaves the content in two
// places rather than in none.
func contentFirst(aExists, bExists bool) int {
	switch {
	case aExists == bExists:
		return 0
	case aExists:
		return -1
	}
	return 1
}

// Targets are the entries to restore, in restore order.
func (t *RestoreTxn) Targets() []Target { return t.targets }

// Restore puts every target back to its before state, all or nothing,
// once the caller's conflict check has passed: live[i] is what target i
// held at that check. It durably records the intent to restore (from then
// on a crash is settled forward by the next Open: the rollback is
// finished), restores the targets in order, each through the root rootOf
// gives (nil: through its parent directory, as recovery does) and only if
// it still holds live[i], and marks them rolled back. The caller holds
// the file locks of every target from its check to here.
//
// If a restore fails, the targets already restored are put back and
// nothing is restored (ErrRollbackFailed, wrapping the cause); if putting
// them back fails too, or the mark cannot be recorded, the rollback stays
// recorded as in progress, its call busy, and the next Open finishes it
// (ErrRollbackIncomplete). ErrClosed: the store was closed first. Restore
// ends the RestoreTxn whatever it returns.
func (t *RestoreTxn) Restore(live []State, rootOf func(Target) *workspace.Dir) error {
	if t.done || t.started {
		return ErrDone
	}
	if len(live) != len(t.targets) {
		t.Abort()
		return fmt.Errorf("%w: %d live states for %d targets", ErrInvalidChange, len(live), len(t.targets))
	}
	if err := t.start(); err != nil {
		t.Abort()
		if errors.Is(err, ErrClosed) {
			return err
		}
		return fmt.Errorf("%w: %w; nothing was restored", ErrRollbackFailed, err)
	}
	steps := make([]step, len(t.targets))
	for i, tg := range t.targets {
		steps[i] = step{path: tg.Path, display: tg.Entry.Path, from: live[i], check: true, to: tg.Before, setMode: true}
		if rootOf != nil {
			steps[i].dir = rootOf(tg)
		}
	}
	if _, err := run(steps, false); err != nil {
		se := err.(*stepError)
		if se.undo != nil {
			t.done = true // the intent stays for Open to finish
			return fmt.Errorf("%w: restoring %s failed (%v) and putting back the paths already restored failed too (%v); it will be finished when hostd restarts",
				ErrRollbackIncomplete, se.display, se.err, se.undo)
		}
		t.Abort()
		return fmt.Errorf("%w: restoring %s: %w; the paths already restored were put back, so nothing was restored", ErrRollbackFailed, se.display, se.err)
	}
	if err := t.s.markRolledBack(&t.intent, t.intent.Seqs); err != nil {
		// Every file is restored; only the mark is missing. The intent is
		// still recorded, so the next Open sees the files at their before
		// content and completes the mark.
		t.done = true
		return fmt.Errorf("%w: the files were restored but the rollback could not be recorded (%v); it will be recorded when hostd restarts", ErrRollbackIncomplete, err)
	}
	t.done = true
	return nil
}

// start durably records the intent to restore the targets.
func (t *RestoreTxn) start() error {
	t.intent = intentRecord{Kind: intentRestore, Session: t.key.session, ToolCallID: t.key.id}
	for _, tg := range t.targets {
		t.intent.Seqs = append(t.intent.Seqs, tg.seq)
	}
	s := t.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	t.intent.At = s.clock().UTC()
	err := s.update(func(tx *bolt.Tx) error { return putIntent(tx.Bucket(bucketIntents), &t.intent) })
	if err != nil {
		return fmt.Errorf("review store: record rollback intent: %w", err)
	}
	s.intents++
	t.started = true
	return nil
}

// Abort ends a rollback the caller will not carry out (its conflict check
// failed): the call is released. After Restore it does nothing, so
// `defer txn.Abort()` is safe.
func (t *RestoreTxn) Abort() error {
	if t.done {
		return nil
	}
	t.done = true
	if !t.started {
		t.s.release(t.key)
		return nil
	}
	return t.s.markRolledBack(&t.intent, nil)
}

// release clears a call's busy mark without touching the database.
func (s *Store) release(key callKey) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.calls[key]; c != nil {
		c.busy = false
	}
}
