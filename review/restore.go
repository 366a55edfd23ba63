package review

import (
	"fmt"
	"slices"

	bolt "go.etcd.io/bbolt"
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
// caller checks the live files first and calls Start only when it will
// restore. It fails with ErrNotFound for an unknown call, ErrRolledBack
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
	var recs []entryRecord
	for _, r := range c.entries {
		if !r.RolledBack {
			recs = append(recs, *r)
		}
	}
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
	slices.SortStableFunc(t.targets, func(a, b Target) int {
		switch {
		case a.Before.Exists == b.Before.Exists:
			return 0
		case a.Before.Exists:
			return -1
		}
		return 1
	})
	return t, nil
}

// Targets are the entries to restore, in restore order.
func (t *RestoreTxn) Targets() []Target { return t.targets }

// Start durably records the intent to restore the targets. From then on a
// crash is settled forward by the next Open: the rollback is finished.
func (t *RestoreTxn) Start() error {
	if t.done || t.started {
		return ErrDone
	}
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
	err := s.update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketIntents)
		id, err := b.NextSequence()
		if err != nil {
			return err
		}
		t.intent.ID = id
		return putJSON(b, id, &t.intent)
	})
	if err != nil {
		return fmt.Errorf("review store: record rollback intent: %w", err)
	}
	s.intents++
	t.started = true
	return nil
}

// Commit marks every target rolled back and drops the intent, durably.
// Call it after every target was restored.
func (t *RestoreTxn) Commit() error {
	if t.done || !t.started {
		return ErrDone
	}
	if err := t.s.markRolledBack(&t.intent, t.intent.Seqs); err != nil {
		return err
	}
	t.done = true
	return nil
}

// Abort ends a rollback that restored nothing (or whose restores the
// caller has undone): the intent, if started, is dropped and the call is
// released. Abort after Commit does nothing.
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
