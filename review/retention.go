package review

import (
	bolt "go.etcd.io/bbolt"
	"go.uber.org/zap"
)

// finish ends an intent in one bbolt transaction: it records recs with
// their diffs, deletes the before bytes of the seqs in drop (paths that
// were put back and need no entry), evicts whole calls until the session
// and the store are within their limits again, and deletes the intent.
// Doing all of it in one transaction means a crash leaves either the
// intent (settled again at Open) or the record, never both or neither.
func (s *Store) finish(in *intentRecord, recs []*entryRecord, diffs []string, drop []uint64) error {
	key := callKey{in.Session, in.ToolCallID}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	victims := s.planEvictionLocked(key.session, recs)
	err := s.update(func(tx *bolt.Tx) error {
		entries, diffBucket := tx.Bucket(bucketEntries), tx.Bucket(bucketDiffs)
		for i, r := range recs {
			if err := putJSON(entries, r.Seq, r); err != nil {
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
		for _, c := range victims {
			for _, r := range c.entries {
				if err := deleteEntry(tx, r.Seq); err != nil {
					return err
				}
			}
		}
		return tx.Bucket(bucketIntents).Delete(seqKey(in.ID))
	})
	if err != nil {
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
// restore half a call. The call being recorded is never chosen (Begin
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
