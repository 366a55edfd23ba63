package review

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	bolt "go.etcd.io/bbolt"
)

// defaultMode is the mode assumed for a side whose mode the caller left
// zero: a file nobody can read is far more likely a forgotten field than
// the truth.
const defaultMode fs.FileMode = 0o644

// changeTxn is one mutation between its durable intent (begin) and its
// record (commit) or its undoing (abort): Apply's recording half, which
// nothing outside this package reaches, so Apply is the one way a change
// is made and recorded. It belongs to the one tool call that began it and
// is not safe for concurrent use. The plannedChange slices passed to begin must
// not be modified until the changeTxn ends.
type changeTxn struct {
	s       *Store
	key     callKey
	intent  intentRecord
	changes []plannedChange
	done    bool
	// first are what must be durable before the record is (syncFirst).
	first []func() error
}

// syncFirst registers f, which makes the call's writes durable (the
// fsync of a directory a rename changed), to finish before the call's
// record reaches the disk. A record must never be durable while the
// change it describes is not: after a power loss the store would show a
// change the disk does not hold. The record's transaction runs f first;
// an error from f fails that transaction, which is tried again later, and
// meanwhile the intent keeps the call safe. f may be called more than
// once and must return the same result each time.
func (t *changeTxn) syncFirst(f func() error) {
	t.first = append(t.first, f)
}

// begin durably records the intent to make changes, with the bytes needed
// to restore every path, before the caller touches the disk: when begin
// returns, a crash at any later moment is recoverable. The caller then
// makes its changes (for MV, creating the destination before removing the
// source, so no crash can leave the content nowhere) and ends the
// changeTxn with commit or abort.
//
// begin fails with ErrInvalidChange, ErrDuplicateCall, ErrTooLarge (the
// call could never be retained) or ErrClosed; the caller must then not
// make the change.
func (s *Store) begin(sessionID, toolCallID, tool string, changes []plannedChange) (*changeTxn, error) {
	return s.beginTurn(sessionID, toolCallID, tool, "", changes)
}

// beginTurn is begin of a call that belongs to the user turn promptID
// (tools.execute's promptId): its entries carry it, and a rewind of the
// turn (BeginRewind) finds them by it.
func (s *Store) beginTurn(sessionID, toolCallID, tool, promptID string, changes []plannedChange) (*changeTxn, error) {
	if sessionID == "" || toolCallID == "" || tool == "" {
		return nil, fmt.Errorf("%w: sessionId, toolCallId and tool are required", ErrInvalidChange)
	}
	changes, err := s.checkChanges(changes)
	if err != nil {
		return nil, err
	}
	t := &changeTxn{s: s, key: callKey{sessionID, toolCallID}, changes: changes}
	t.intent = intentRecord{Kind: intentMutation, Session: sessionID, ToolCallID: toolCallID, Tool: tool, PromptID: promptID}

	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	if s.calls[t.key] != nil || s.pending[t.key] {
		return nil, fmt.Errorf("%w: %q", ErrDuplicateCall, toolCallID)
	}
	t.intent.At = s.clock().UTC()
	err = s.update(func(tx *bolt.Tx) error {
		entries, before, intents := tx.Bucket(bucketEntries), tx.Bucket(bucketBefore), tx.Bucket(bucketIntents)
		t.intent.Paths = t.intent.Paths[:0]
		for _, c := range changes {
			seq, err := entries.NextSequence()
			if err != nil {
				return err
			}
			if c.BeforeExists {
				if err := before.Put(seqKey(seq), c.Before); err != nil {
					return err
				}
			}
			t.intent.Paths = append(t.intent.Paths, intentPath{
				Seq: seq, Path: c.Path, Display: c.Display, Change: c.kind(), Root: c.Root, Workspace: c.Workspace,
				Before: factsOf(c.BeforeExists, c.Before, c.BeforeMode).asLink(c.BeforeLink),
				After:  factsOf(c.AfterExists, c.After, c.AfterMode).asLink(c.AfterLink),
			})
		}
		return putIntent(intents, &t.intent)
	})
	if err != nil {
		return nil, fmt.Errorf("review store: record intent: %w", err)
	}
	s.pending[t.key] = true
	s.intents++
	return t, nil
}

// checkChanges validates a mutation's plan and fills in defaults. It
// returns a copy, so the defaults never write into the caller's slice.
func (s *Store) checkChanges(in []plannedChange) ([]plannedChange, error) {
	if len(in) == 0 {
		return nil, fmt.Errorf("%w: no changes", ErrInvalidChange)
	}
	changes := make([]plannedChange, len(in))
	seen := make(map[string]bool, len(in))
	var budget int64
	for i, c := range in {
		switch {
		case !filepath.IsAbs(c.Path) || filepath.Clean(c.Path) != c.Path:
			return nil, fmt.Errorf("%w: path %q is not a clean absolute path", ErrInvalidChange, c.Path)
		case seen[c.Path]:
			return nil, fmt.Errorf("%w: %s appears twice in one call", ErrInvalidChange, c.Path)
		case !c.BeforeExists && !c.AfterExists:
			return nil, fmt.Errorf("%w: %s is absent both before and after", ErrInvalidChange, c.Path)
		case !c.BeforeExists && len(c.Before) > 0, !c.AfterExists && len(c.After) > 0:
			return nil, fmt.Errorf("%w: %s has bytes on a side where it does not exist", ErrInvalidChange, c.Path)
		}
		seen[c.Path] = true
		if c.Display == "" {
			c.Display = c.Path
		}
		if c.BeforeMode.Perm() == 0 {
			c.BeforeMode = defaultMode
		}
		if c.AfterMode.Perm() == 0 {
			c.AfterMode = defaultMode
		}
		changes[i] = c
		budget += entryBudget(c)
	}
	maxEntries := min(s.lim.MaxReviewEntriesPerSession, s.lim.MaxReviewEntries)
	maxBytes := min(s.lim.MaxReviewBytesPerSession, s.lim.MaxReviewBytes)
	if len(changes) > maxEntries {
		return nil, fmt.Errorf("%w: %d paths in one call, retention keeps at most %d entries", ErrTooLarge, len(changes), maxEntries)
	}
	if budget > maxBytes {
		return nil, fmt.Errorf("%w: up to %s to keep, retention keeps at most %s per session",
			ErrTooLarge, humanBytes(budget), humanBytes(maxBytes))
	}
	return changes, nil
}

// commit records the call's entries and drops the intent. The index
// changes at once (List, rollback and eviction see the entries); the
// database write is lazy (lazy.go): the store's next write carries it, or
// a timer within flushDelay, after the functions given to syncFirst, and a
// crash before then is settled by Open from the intent and the disk.
//
// landed maps a canonical path to the bytes that actually landed when
// they differ from the plannedChange's After (a formatter on save); a path
// missing from landed landed as intended. The
// entries' afterSha256 is that of the landed bytes, so a rollback accepts
// the file as saved; the diff describes the intended change and notes the
// difference (edit-contract §5.4).
//
// If commit fails the change is not recorded and the caller must abort,
// which undoes it: a change the user cannot review must not stay.
func (t *changeTxn) commit(landed map[string][]byte) ([]Entry, error) {
	if t.done {
		return nil, ErrDone
	}
	for p := range landed {
		if i := t.index(p); i < 0 || !t.changes[i].AfterExists {
			return nil, fmt.Errorf("%w: landed bytes for %s, which this call does not create or modify", ErrInvalidChange, p)
		}
	}
	now := t.s.clock().UTC()
	recs := make([]*entryRecord, len(t.changes))
	diffs := make([]string, len(t.changes))
	for i, c := range t.changes {
		p := t.intent.Paths[i]
		after := p.After
		diffs[i] = renderDiff(c.Display, p.Before, p.After, c.Before, c.After, c.Encoding)
		if data, ok := landed[c.Path]; ok {
			if got := factsOf(true, data, after.Mode); got.SHA256 != after.SHA256 {
				diffs[i] += driftNote(got)
				after = got
			}
		}
		if c.AfterExists && !c.AfterLink {
			// The mode a rollback will expect is the one that landed.
			if info, err := os.Lstat(c.Path); err == nil && info.Mode().IsRegular() {
				after.Mode = info.Mode().Perm()
			}
		}
		recs[i] = &entryRecord{
			Seq: p.Seq, Session: t.key.session, ToolCallID: t.key.id, Tool: t.intent.Tool, PromptID: t.intent.PromptID,
			Path: c.Path, Display: c.Display, Change: p.Change, Root: p.Root, Workspace: p.Workspace,
			Before: p.Before, After: after, At: now,
			Bytes: int64(len(c.Before) + len(diffs[i]) + len(c.Path) + len(c.Display)),
		}
	}
	first := t.first
	if first == nil {
		first = []func() error{} // lazy, with nothing to wait for
	}
	if err := t.s.finish(&t.intent, recs, diffs, nil, first); err != nil {
		return nil, fmt.Errorf("review store: record entries: %w", err)
	}
	t.done = true
	out := make([]Entry, len(recs))
	for i, r := range recs {
		out[i] = r.entry(diffs[i])
	}
	t.s.notify(Recorded{SessionID: t.key.session, ToolCallID: t.key.id, Entries: out})
	return out, nil
}

// abort ends a mutation that will not be reported as done: every path
// that holds its after content is put back to its before content, and
// the intent is dropped. A path the caller already put back, or never
// touched, is left alone. A path holding anything else is left as it is
// and recorded, and abort returns ErrUnsettled naming it. abort after
// commit does nothing, so `defer txn.abort()` is safe.
func (t *changeTxn) abort() error {
	if t.done {
		return nil
	}
	t.done = true
	return t.s.settleMutation(&t.intent, false)
}

// discard ends a mutation whose writes the caller made none of, or has
// already undone itself: the intent is dropped without looking at the
// paths, so bytes another process wrote there meanwhile are neither
// mistaken for the call's nor put back over. Use abort when unsure.
func (t *changeTxn) discard() error {
	if t.done {
		return nil
	}
	t.done = true
	drop := make([]uint64, len(t.intent.Paths))
	for i, p := range t.intent.Paths {
		drop[i] = p.Seq
	}
	return t.s.finish(&t.intent, nil, nil, drop, nil)
}

func (t *changeTxn) index(path string) int {
	for i, c := range t.changes {
		if c.Path == path {
			return i
		}
	}
	return -1
}

// entryBudget bounds from above what one plannedChange's entry will count against
// retention once recorded (before bytes, diff, paths), so that begin can
// refuse a call that could never fit instead of recording it over the
// bound. A unified diff prints each line of either side at most once, with
// a prefix byte and perhaps a newline, plus at most one hunk header (under
// 96 bytes) per line and two labels; a clipped diff or a summary stays
// within MaxDiffBytes plus a line; a drift or recovery note adds a line.
func entryBudget(c plannedChange) int64 {
	lines := int64(bytes.Count(c.Before, []byte("\n")) + bytes.Count(c.After, []byte("\n")) + 2)
	unified := int64(len(c.Before)+len(c.After)) + 96*lines
	diff := min(MaxDiffBytes+64, unified) + 2*int64(len(c.Display)) + 600
	return int64(len(c.Before)+len(c.Path)+len(c.Display)) + diff
}
