package review

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	bolt "go.etcd.io/bbolt"
	"go.uber.org/zap"

	"github.com/hostd-dev/hostd/internal/quote"
	"github.com/hostd-dev/hostd/workspace"
	"github.com/hostd-dev/hostd/workspace/textenc"
)

// recover settles every intent an earlier process left behind:
//
//   - a mutation whose every path holds its after content is recorded as
//     it stands (rolled forward). Its commit may have been pending (a lazy
//     commit, lazy.go) after its tool result was returned, so the model
//     may have been told; the change is whole on disk, and recording it
//     lets the user review it and roll it back like any other.
//   - any other unfinished mutation (some path still at its before
//     content: it died between its writes, so it never answered) is
//     undone, toward the only content the store is sure to hold, the
//     before bytes in the intent.
//   - an unfinished rollback is finished. The user asked for it, every
//     conflict check had passed before its intent was written, and the
//     before bytes are in the entries it restores.
//
// An intent that cannot be settled now (an I/O error) stays in the
// database, is logged, and is tried again at the next Open; its call is
// protected meanwhile (no reuse of its toolCallId, no eviction).
func (s *Store) recover() error {
	var intents []*intentRecord
	err := s.view(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketIntents).ForEach(func(k, v []byte) error {
			in := new(intentRecord)
			if err := json.Unmarshal(v, in); err != nil {
				return fmt.Errorf("intent %x: %w", k, err)
			}
			intents = append(intents, in)
			return nil
		})
	})
	if err != nil {
		return err
	}
	for _, in := range intents {
		key := callKey{in.Session, in.ToolCallID}
		s.removeTemps(in)
		var err error
		switch in.Kind {
		case intentMutation:
			s.pending[key] = true
			err = s.settleMutation(in, true)
		case intentRestore:
			if c := s.calls[key]; c != nil {
				c.busy = true
			}
			err = s.settleRestore(in)
		case intentRewind:
			// Its calls stay busy (never evicted) until it is settled,
			// which may take another start.
			s.pending[key] = true
			s.busyRewindLocked(in)
			err = s.settleRewind(in)
		default:
			err = fmt.Errorf("unknown intent kind %q", in.Kind)
		}
		fields := []zap.Field{zap.String(logSession, in.Session), zap.String(logToolCall, in.ToolCallID), zap.String(logIntent, in.Kind)}
		switch {
		case errors.Is(err, ErrUnsettled):
			s.log.Warn("review: settled an interrupted change, leaving some paths as found", append(fields, zap.Error(err))...)
		case err != nil:
			s.log.Error("review: could not settle an interrupted change; will retry at the next start", append(fields, zap.Error(err))...)
		default:
			s.log.Info("review: settled an interrupted change", fields...)
		}
	}
	return nil
}

// busyRewindLocked marks busy every call with an entry the rewind rolls
// back. Open runs it before the store is shared.
func (s *Store) busyRewindLocked(in *intentRecord) {
	seqs := map[uint64]bool{}
	for _, p := range in.Puts {
		for _, seq := range p.Seqs {
			seqs[seq] = true
		}
	}
	for _, c := range s.order {
		for _, r := range c.entries {
			if c.key.session == in.Session && seqs[r.Seq] {
				c.busy = true
			}
		}
	}
}

// removeTemps deletes the temporary files an atomic write of the intent's
// paths left when the process died inside it. Every write of a path is
// made under an intent, so the intents left at Open name every directory
// that can hold such a file; and Open runs before anything is served, so
// no write of this process can be using one. A failure is only logged: a
// leftover file holds no one's content and the next Open tries again.
func (s *Store) removeTemps(in *intentRecord) {
	paths := make([]string, 0, len(in.Paths))
	for _, p := range in.Paths {
		paths = append(paths, p.Path)
	}
	for _, r := range s.recordsOf(callKey{in.Session, in.ToolCallID}, in.Seqs) {
		paths = append(paths, r.Path)
	}
	for _, p := range in.Puts {
		paths = append(paths, p.Path)
	}
	for _, p := range paths {
		removed, err := workspace.RemoveTemps(p)
		if len(removed) > 0 {
			s.log.Info("review: removed temporary files of an interrupted write", zap.String(logPath, p), zap.Strings(logFiles, removed))
		}
		if err != nil {
			s.log.Warn("review: could not remove temporary files of an interrupted write", zap.String(logPath, p), zap.Error(err))
		}
	}
}

// settleMutation puts every path of an unfinished mutation back to its
// before content and drops the intent. When some path holds content that
// is neither its before nor its after, nothing is touched: undoing the
// other paths would still leave that one unexplained, and overwriting it
// could destroy work. The call is then recorded as it stands, so the user
// sees it and can roll it back through the ordinary conflict-checked path.
//
// atOpen (recovery, not Abort): a mutation whose every path holds its
// after content is recorded as it stands instead of undone; it may be a
// lazy commit that a crash kept off the disk (see recover).
func (s *Store) settleMutation(in *intentRecord, atOpen bool) error {
	obs := make([]Observation, len(in.Paths))
	var strangers []string
	for i, p := range in.Paths {
		o, err := Observe(p.Path, max(p.Before.Size, p.After.Size))
		if err != nil {
			return err
		}
		obs[i] = o
		if !o.matches(p.Before) && !o.matches(p.After) {
			strangers = append(strangers, p.Display)
		}
	}
	forward := atOpen && len(strangers) == 0
	for i, p := range in.Paths {
		forward = forward && obs[i].matches(p.After)
	}
	drop := make([]uint64, 0, len(in.Paths))
	if len(strangers) == 0 && !forward {
		for i, p := range in.Paths {
			drop = append(drop, p.Seq)
			if obs[i].matches(p.Before) && (!p.Before.Exists || obs[i].Mode == p.Before.Mode) {
				continue
			}
			st := State{Exists: p.Before.Exists, Mode: p.Before.Mode, Link: p.Before.Link}
			if p.Before.Exists {
				var err error
				if st.Data, err = s.loadBefore(p.Seq, p.Before); err != nil {
					return err
				}
			}
			if err := restoreUnder(p.Root, p.Path, st); err != nil {
				return fmt.Errorf("put back %s: %w", p.Display, err)
			}
		}
		return s.finish(in, nil, nil, drop, nil)
	}

	var recs []*entryRecord
	var diffs []string
	for i, p := range in.Paths {
		if obs[i].matches(p.Before) {
			drop = append(drop, p.Seq)
			continue
		}
		var before []byte
		if p.Before.Exists {
			var err error
			if before, err = s.loadBefore(p.Seq, p.Before); err != nil {
				return err
			}
		}
		// Read the stranger's content for its digest and diff, bounded by
		// the largest file a tool writes.
		o, err := Observe(p.Path, max(s.lim.MaxWriteBytes, p.After.Size))
		if err != nil {
			return err
		}
		after := Facts{Exists: o.Exists, SHA256: o.SHA256, Size: o.Size, Mode: o.Mode}
		var diff string
		if o.Exists && o.Data == nil {
			diff = fmt.Sprintf("diff omitted: %s is now %s\n", quote.Path(p.Display), describe(o))
		} else {
			diff = renderDiff(p.Display, p.Before, after, before, o.Data, textenc.UTF8)
		}
		if forward {
			diff += "note: recorded when hostd next started, from the change's intent and the file on disk (hostd stopped before it wrote this record)\n"
		} else {
			diff += "note: recorded while settling a change interrupted by a crash or an aborted call; the file was left as found\n"
		}
		recs = append(recs, &entryRecord{
			Seq: p.Seq, Session: in.Session, ToolCallID: in.ToolCallID, Tool: in.Tool, PromptID: in.PromptID,
			Path: p.Path, Display: p.Display, Change: p.Change, Root: p.Root, Workspace: p.Workspace,
			Before: p.Before, After: after, At: s.clock().UTC(),
			Bytes: int64(len(before) + len(diff) + len(p.Path) + len(p.Display)),
		})
		diffs = append(diffs, diff)
	}
	if err := s.finish(in, recs, diffs, drop, nil); err != nil {
		return err
	}
	if forward {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrUnsettled, strings.Join(strangers, ", "))
}

// settleRestore finishes an unfinished rollback: each entry whose path
// still holds its after content gets its before content back; each that
// already holds its before content is done. Both are marked rolled back.
// A path holding anything else was changed by someone else during the
// crash window; it is left alone and its entry stays rollback-able.
func (s *Store) settleRestore(in *intentRecord) error {
	recs := s.recordsOf(callKey{in.Session, in.ToolCallID}, in.Seqs)
	var done []uint64
	var strangers []string
	for _, r := range recs {
		ok, err := s.settle("restore", settling{root: r.Root, path: r.Path, display: r.Display, from: r.After, to: r.Before, seq: r.Seq})
		if err != nil {
			return err
		}
		if !ok {
			strangers = append(strangers, r.Display)
			continue
		}
		done = append(done, r.Seq)
	}
	if err := s.markRolledBack(in, done); err != nil {
		return err
	}
	if len(strangers) > 0 {
		return fmt.Errorf("%w: %s", ErrUnsettled, strings.Join(strangers, ", "))
	}
	return nil
}

// settling is one path of an unfinished rollback or rewind: it goes from
// from to to, whose bytes the before bucket keeps under seq.
type settling struct {
	root, path, display string
	from, to            Facts
	seq                 uint64
}

// settle finishes one path of an unfinished rollback or rewind: a path
// that already holds p.to is done; one that still holds p.from gets p.to.
// It reports false, writing nothing, for a path holding anything else:
// another program changed it during the crash window. verb names the
// write in its error.
func (s *Store) settle(verb string, p settling) (bool, error) {
	o, err := Observe(p.path, max(p.from.Size, p.to.Size))
	if err != nil {
		return false, err
	}
	switch {
	case o.matches(p.to):
		return true, nil
	case !o.matches(p.from):
		return false, nil
	}
	st := State{Exists: p.to.Exists, Mode: p.to.Mode, Link: p.to.Link}
	if p.to.Exists {
		if st.Data, err = s.loadBefore(p.seq, p.to); err != nil {
			return false, err
		}
	}
	if err := restoreUnder(p.root, p.path, st); err != nil {
		return false, fmt.Errorf("%s %s: %w", verb, p.display, err)
	}
	return true, nil
}

// recordsOf returns copies of the call's entries with the given seqs that
// are not rolled back yet.
func (s *Store) recordsOf(key callKey, seqs []uint64) []entryRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.calls[key]
	if c == nil {
		return nil
	}
	var out []entryRecord
	for _, r := range c.entries {
		for _, seq := range seqs {
			if r.Seq == seq && !r.RolledBack {
				out = append(out, *r)
			}
		}
	}
	return out
}

// markRolledBack marks the entries rolled back and deletes the restore
// intent in one transaction, then releases the call for eviction and for
// another rollback.
func (s *Store) markRolledBack(in *intentRecord, seqs []uint64) error {
	key := callKey{in.Session, in.ToolCallID}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	c := s.calls[key]
	var marked []*entryRecord
	if c != nil {
		for _, r := range c.entries {
			for _, seq := range seqs {
				if r.Seq == seq {
					marked = append(marked, r)
				}
			}
		}
	}
	err := s.update(func(tx *bolt.Tx) error {
		entries := tx.Bucket(bucketEntries)
		if err := putRolledBack(entries, marked); err != nil {
			return err
		}
		if in.ID == 0 {
			return nil
		}
		return tx.Bucket(bucketIntents).Delete(seqKey(in.ID))
	})
	if err != nil {
		return err
	}
	for _, r := range marked {
		r.RolledBack = true
	}
	if in.ID != 0 {
		s.intents--
	}
	if c != nil {
		c.busy = false
	}
	return nil
}

func describe(o Observation) string {
	switch {
	case !o.Exists:
		return "absent"
	case !o.Regular:
		return "not a regular file"
	}
	return humanBytes(o.Size) + ", too large to read"
}
