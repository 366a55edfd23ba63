package review

import (
	"time"

	bolt "go.etcd.io/bbolt"
	"go.uber.org/zap"
)

// Lazy commits.
//
// A mutation costs the store two bbolt transactions, each two fsyncs: the
// intent (begin) and the record (commit). Only the intent must be durable
// before the tool answers: it holds the before bytes, and with the bytes
// on disk it is enough to rebuild the record (settleMutation rolls a path
// found at its after content forward at Open). So Commit changes the index
// at once and leaves its transaction pending; the store's next write
// transaction (the next begin, a rollback, Close) carries it first, and a
// timer writes it on its own after flushDelay when no write comes. A burst
// of edits thus pays two fsyncs per call instead of four, and a single
// edit's answer does not wait for its record's fsyncs.
//
// What a crash before the pending write costs: nothing but the wording of
// the rebuilt entry's diff, which is made from the before bytes and the
// file on disk and says so.

// flushDelay is how long a pending commit waits for another write to carry
// it before it is written on its own.
const flushDelay = 50 * time.Millisecond

// flushRetryDelay is how long a failed background write waits before it
// tries again (a full disk, say); every write meanwhile tries too.
const flushRetryDelay = time.Second

// deferLocked leaves write pending, with the diffs List serves from memory
// until it lands, and arms the flush timer. s.mu is held.
func (s *Store) deferLocked(write func(*bolt.Tx) error, diffs map[uint64]string) {
	s.lazy = append(s.lazy, write)
	if s.lazyDiffs == nil {
		s.lazyDiffs = make(map[uint64]string)
	}
	for seq, d := range diffs {
		s.lazyDiffs[seq] = d
	}
	if len(s.lazy) == 1 {
		s.armFlushLocked(flushDelay)
	}
}

func (s *Store) armFlushLocked(d time.Duration) {
	if s.flushTimer == nil {
		s.flushTimer = time.AfterFunc(d, s.flushPending)
		return
	}
	s.flushTimer.Reset(d)
}

// flushPending writes the pending commits when no other write carried
// them within flushDelay.
func (s *Store) flushPending() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || len(s.lazy) == 0 {
		return
	}
	if err := s.update(func(*bolt.Tx) error { return nil }); err != nil {
		s.log.Warn("review: writing recorded changes failed; trying again (their intents keep them safe meanwhile)", zap.Error(err))
		if s.brokenErr() == nil {
			s.armFlushLocked(flushRetryDelay)
		}
	}
}

// update runs a bbolt write transaction guarded, with every pending commit
// written first, in order, in the same transaction. The caller holds s.mu
// (Open's first steps run before the store is shared and have none
// pending).
func (s *Store) update(fn func(*bolt.Tx) error) error {
	pending := s.lazy
	err := s.guard(func() error {
		return s.db.Update(func(tx *bolt.Tx) error {
			for _, w := range pending {
				if err := w(tx); err != nil {
					return err
				}
			}
			return fn(tx)
		})
	})
	if err == nil && len(pending) > 0 {
		s.lazy = nil
		s.lazyDiffs = nil
		if s.flushTimer != nil {
			s.flushTimer.Stop()
		}
	}
	return err
}

// SetLazyCommit turns lazy commits off (false) or back on (true, the
// default). Off, every Commit writes and fsyncs its own transaction before
// it returns, and callers asking LazyCommit make every write durable
// before they answer too: the write path hostd had before lazy commits,
// which the benchmarks measure the default against.
func (s *Store) SetLazyCommit(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.eager = !on
}

// LazyCommit reports whether commits are lazy (SetLazyCommit). When they
// are, a caller may leave its writes' directory fsyncs to changeTxn.syncFirst.
func (s *Store) LazyCommit() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.eager
}
