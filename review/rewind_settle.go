package review

import (
	"fmt"

	bolt "go.etcd.io/bbolt"

	"github.com/hostd-dev/hostd/workspace/textenc"
)

// finishRewind ends a rewind's intent in one transaction: the entries of
// the puts in done are marked rolled back, an overwritten content of
// each is recorded as an entry of its own (read from its stored bytes
// when data is nil, as at Open), the rewind's own bytes are dropped, and
// the intent is deleted. Every call the rewind selected is released.
func (s *Store) finishRewind(in *intentRecord, done []int, data *rewindData) error {
	var recs []*entryRecord
	var diffs []string
	mark, all := map[uint64]bool{}, map[uint64]bool{}
	for _, p := range in.Puts {
		for _, seq := range p.Seqs {
			all[seq] = true
		}
	}
	for _, i := range done {
		p := in.Puts[i]
		for _, seq := range p.Seqs {
			mark[seq] = true
		}
		if p.Record == 0 || sameFacts(p.From, p.To) {
			continue
		}
		var from, to []byte
		var err error
		if data != nil {
			from = data.keep[i]
		} else if p.From.Exists {
			if from, err = s.loadBefore(p.Record, p.From); err != nil {
				return err
			}
		}
		if p.To.Exists {
			if to, err = s.loadBefore(p.ToSeq, p.To); err != nil {
				return err
			}
		}
		diff := renderDiff(p.Display, p.From, p.To, from, to, textenc.UTF8) +
			"note: a rewind overwrote this content, which no recorded change of this session had made; rolling this entry back brings it back\n"
		recs = append(recs, &entryRecord{
			Seq: p.Record, Session: in.Session, ToolCallID: in.ToolCallID, Tool: "rewind",
			Path: p.Path, Display: p.Display, Change: changeKind(p.From.Exists, p.To.Exists), Root: p.Root,
			Before: p.From, After: p.To, At: s.clock().UTC(),
			Bytes: int64(len(from) + len(diff) + len(p.Path) + len(p.Display)),
		})
		diffs = append(diffs, diff)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	var marked []*entryRecord
	for _, c := range s.order {
		if c.key.session != in.Session {
			continue
		}
		for _, r := range c.entries {
			if mark[r.Seq] {
				marked = append(marked, r)
			}
		}
	}
	recorded := map[uint64]bool{}
	for _, r := range recs {
		recorded[r.Seq] = true
	}
	victims := s.planEvictionLocked(in.Session, recs)
	err := s.update(func(tx *bolt.Tx) error {
		entries, diffBucket, before := tx.Bucket(bucketEntries), tx.Bucket(bucketDiffs), tx.Bucket(bucketBefore)
		if err := putRolledBack(entries, marked); err != nil {
			return err
		}
		for i, r := range recs {
			if err := putJSON(entries, r.Seq, r); err != nil {
				return err
			}
			if err := diffBucket.Put(seqKey(r.Seq), []byte(diffs[i])); err != nil {
				return err
			}
		}
		for _, p := range in.Puts {
			if p.Own {
				if err := before.Delete(seqKey(p.ToSeq)); err != nil {
					return err
				}
			}
			if p.Record != 0 && !recorded[p.Record] {
				if err := before.Delete(seqKey(p.Record)); err != nil {
					return err
				}
			}
		}
		if err := deleteCalls(tx, victims); err != nil {
			return err
		}
		return tx.Bucket(bucketIntents).Delete(seqKey(in.ID))
	})
	if err != nil {
		return err
	}
	for _, r := range marked {
		r.RolledBack = true
	}
	for _, c := range victims {
		s.removeLocked(c)
		s.evicted++
	}
	for _, r := range recs {
		s.addLocked(r)
	}
	for _, c := range s.order {
		if c.key.session != in.Session {
			continue
		}
		for _, r := range c.entries {
			if all[r.Seq] {
				c.busy = false
			}
		}
	}
	delete(s.pending, callKey{in.Session, in.ToolCallID})
	s.intents--
	return nil
}

func sameFacts(a, b Facts) bool {
	return a.Exists == b.Exists && a.Link == b.Link && a.SHA256 == b.SHA256
}

func changeKind(before, after bool) string {
	switch {
	case !before:
		return ChangeCreate
	case !after:
		return ChangeDelete
	}
	return ChangeModify
}

// settleRewind finishes a rewind an earlier process left: each path that
// still holds what the rewind's check saw gets what the rewind writes;
// each that already holds that is done. A path holding anything else was
// changed by another program during the crash window: it is left alone,
// and its changes stay not rolled back.
func (s *Store) settleRewind(in *intentRecord) error {
	var done []int
	var strangers []string
	for i, p := range in.Puts {
		ok, err := s.settle("rewind", settling{root: p.Root, path: p.Path, display: p.Display, from: p.From, to: p.To, seq: p.ToSeq})
		if err != nil {
			return err
		}
		if !ok {
			strangers = append(strangers, p.Display)
			continue
		}
		done = append(done, i)
	}
	if err := s.finishRewind(in, done, nil); err != nil {
		return err
	}
	if len(strangers) > 0 {
		return fmt.Errorf("%w: %v", ErrUnsettled, strangers)
	}
	return nil
}
