package review

import (
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"
	"go.uber.org/zap"
)

// finish ends an intent: it records recs with their diffs, deletes the
// before bytes of the seqs in drop (paths that were put back and need no
// entry), evicts whole calls until the session and the store are within
// their limits again, and deletes the intent. On disk all of it is one
// bbolt transaction, so a crash leaves either the intent (settled again at
// Open) or the record, never both or neither.
//
// A commit (first non-nil: what must be durable before its record, see
// changeTxn.syncFirst; empty but non-nil when nothing is) rides on the store's
// next write instead of paying two fsyncs of its own (deferLocked): the
// index changes now, the disk within flushDelay. Only a commit may be
// lazy, because Open rebuilds an unwritten commit from its intent and the
// bytes on disk (settleMutation); an undo or a discard must not come back
// as a change.
func (s *Store) finish(in *intentRecord, recs []*entryRecord, diffs []string, drop []uint64, first []func() error) error {
	key := callKey{in.Session, in.ToolCallID}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	victims := s.planEvictionLocked(key.session, recs)
	// The records are encoded now: a lazy write must store them as they
	// are at this commit, not as a later rollback marks them in memory.
	encoded := make([][]byte, len(recs))
	for i, r := range recs {
		data, err := json.Marshal(r)
		if err != nil {
			return err
		}
		encoded[i] = data
	}
	write := func(tx *bolt.Tx) error {
		for _, f := range first {
			if err := f(); err != nil {
				return fmt.Errorf("make the change durable before its record: %w", err)
			}
		}
		entries, diffBucket := tx.Bucket(bucketEntries), tx.Bucket(bucketDiffs)
		for i, r := range recs {
			if err := entries.Put(seqKey(r.Seq), encoded[i]); err != nil {
				return err
			}
			if err := diffBucket.Put(seqKey(r.Seq), []byte(diffs[i])); err != nil {
				return err
			}
		}
		for _, seq := range drop {
			if err := tx.Bucket(bucketBefore).Delete(seqKey(seq)); err != nil {
				return err
			}
		}
		if err := deleteCalls(tx, victims); err != nil {
			return err
		}
		return tx.Bucket(bucketIntents).Delete(seqKey(in.ID))
	}
	if first != nil && !s.eager {
		diffOf := make(map[uint64]string, len(recs))
		for i, r := range recs {
			diffOf[r.Seq] = diffs[i]
		}
		s.deferLocked(write, diffOf)
	} else if err := s.update(write); err != nil {
		return err
	}
	for _, c := range victims {
		s.removeLocked(c)
		s.evicted++
		s.log.Info("review: evicted call", zap.String(logSession, c.key.session),
			zap.String(logToolCall, c.key.id), zap.Int(logEntries, len(c.entries)), zap.Int64(logBytes, c.bytes))
	}
	for _, r := range recs {
		s.addLocked(r)
	}
	delete(s.pending, key)
	s.intents--
	return nil
}

// planEvictionLocked chooses the calls to evict so that, once recs are
// added, the session and the whole store are within their entry and byte
// limits. It evicts whole calls, oldest first, so no call is ever left
// with part of its entries: a rollback of what remained could otherwise
// restore half a call. The call being recorded is never chosen (begin
// refused any call that alone exceeds a limit), nor is a call whose
// rollback is in flight, since finishing that rollback needs its bytes.
func (s *Store) planEvictionLocked(session string, recs []*entryRecord) []*call {
	if len(recs) == 0 {
		return nil
	}
	var addBytes int64
	for _, r := range recs {
		addBytes += r.Bytes
	}
	var sess SessionStats
	if u := s.sessions[session]; u != nil {
		sess = *u
	}
	sess.Entries += len(recs)
	sess.Bytes += addBytes
	tot := s.total
	tot.Entries += len(recs)
	tot.Bytes += addBytes

	var victims []*call
	chosen := make(map[*call]bool)
	choose := func(c *call) {
		victims = append(victims, c)
		chosen[c] = true
		tot.Entries -= len(c.entries)
		tot.Bytes -= c.bytes
		if c.key.session == session {
			sess.Entries -= len(c.entries)
			sess.Bytes -= c.bytes
		}
	}
	for _, c := range s.order {
		if sess.Entries <= s.lim.MaxReviewEntriesPerSession && sess.Bytes <= s.lim.MaxReviewBytesPerSession {
			break
		}
		if c.key.session == session && !c.busy {
			choose(c)
		}
	}
	for _, c := range s.order {
		if tot.Entries <= s.lim.MaxReviewEntries && tot.Bytes <= s.lim.MaxReviewBytes {
			break
		}
		if !c.busy && !chosen[c] {
			choose(c)
		}
	}
	return victims
}

// Log field names, defined once.
const (
	logSession  = "session"
	logToolCall = "toolCallId"
	logEntries  = "entries"
	logBytes    = "bytes"
	logPath     = "path"
	logIntent   = "intent"
	logFiles    = "files"
	logFrom     = "movedTo"
	logReason   = "reason"
)
