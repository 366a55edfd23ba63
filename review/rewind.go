package review

import (
	"errors"
	"fmt"
	"slices"
	"strconv"

	bolt "go.etcd.io/bbolt"

	"github.com/hostd-dev/hostd/rpc/wire"
)

// A rewind undoes many calls of one session at once: every change of a
// user turn, every change since a call, or every change of the session.
// It is a rollback of many calls made as one: one conflict check by the
// caller (package rollback), one durable intent, one run of steps, one
// transaction that marks every entry rolled back. Per path it writes once,
// from what the file holds now to what it held before the first of the
// selected changes (or, when the caller merges, to that with another's
// later edits kept), so a path several calls changed is never written
// through its intermediate states.

// Selection names the entries of one session a rewind undoes. Exactly one
// of its fields is set.
type Selection struct {
	// PromptID: every change of the calls of this user turn.
	PromptID string
	// Since: every change of this call and of every later call.
	Since string
	// ToolCallID: every change of this call alone.
	ToolCallID string
	// All: every change of the session.
	All bool
}

// ErrNothingToRewind: the selection names calls whose every entry is
// already rolled back.
var ErrNothingToRewind = errors.New("nothing to rewind")

// RewindPath is one path a rewind puts back, with the selected changes
// of it, oldest first.
type RewindPath struct {
	Path    string // canonical
	Display string
	Root    string
	// Before is what the first selected change found: what the rewind
	// writes back (absent: it removes the path).
	Before State
	// After is what the last selected change left; the live file must
	// still be that for the path to rewind without a conflict.
	After   Facts
	Changes []Link
}

// Link is one selected change of a path.
type Link struct {
	Entry  Entry // without its diff
	Before Facts
	After  Facts
	seq    uint64
	diffOf func() string
}

// Seq is the entry's sequence number: later changes have larger ones.
func (l Link) Seq() uint64 { return l.seq }

// RewindTxn is one rewind between BeginRewind and Rewind or Abort. It
// belongs to one goroutine; while it lives, every call it selects is busy
// (not evicted, not rolled back by another).
type RewindTxn struct {
	s       *Store
	session string
	calls   []*call // newest first
	paths   []RewindPath
	started bool
	done    bool
}

// BeginRewind gathers the session's entries that sel names and are not
// rolled back yet, per path, and loads what each path held before its
// first selected change. It writes nothing. It fails with ErrNotFound when
// sel names no call of the session, ErrNothingToRewind when every entry
// is already rolled back, ErrBusy when a call is being rolled back, and
// ErrInvalidChange for a selection that names nothing or two things.
func (s *Store) BeginRewind(session string, sel Selection) (*RewindTxn, error) {
	set := 0
	for _, on := range []bool{sel.PromptID != "", sel.Since != "", sel.ToolCallID != "", sel.All} {
		if on {
			set++
		}
	}
	if set != 1 {
		return nil, fmt.Errorf("%w: name exactly one of a prompt, a tool call to rewind since, a tool call, or all", ErrInvalidChange)
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, ErrClosed
	}
	var chosen []*call // oldest first
	since := false
	for _, c := range s.order {
		if c.key.session != session {
			continue
		}
		switch {
		case sel.All:
		case sel.PromptID != "":
			if c.entries[0].PromptID != sel.PromptID {
				continue
			}
		case sel.ToolCallID != "":
			if c.key.id != sel.ToolCallID {
				continue
			}
		case sel.Since != "":
			since = since || c.key.id == sel.Since
			if !since {
				continue
			}
		}
		chosen = append(chosen, c)
	}
	if len(chosen) == 0 {
		s.mu.Unlock()
		return nil, fmt.Errorf("%w: %s", ErrNotFound, sel)
	}
	var recs []entryRecord
	for _, c := range chosen {
		if c.busy {
			s.mu.Unlock()
			return nil, fmt.Errorf("%w: %q", ErrBusy, c.key.id)
		}
		recs = append(recs, c.live()...)
	}
	if len(recs) == 0 {
		s.mu.Unlock()
		return nil, fmt.Errorf("%w: every change of %s is already rolled back", ErrNothingToRewind, sel)
	}
	for _, c := range chosen {
		c.busy = true
	}
	lazy := make(map[uint64]string)
	for _, r := range recs {
		if d, ok := s.lazyDiffs[r.Seq]; ok {
			lazy[r.Seq] = d
		}
	}
	s.mu.Unlock()

	t := &RewindTxn{s: s, session: session}
	for i := len(chosen) - 1; i >= 0; i-- {
		t.calls = append(t.calls, chosen[i])
	}
	slices.SortFunc(recs, func(a, b entryRecord) int { return cmpSeq(a.Seq, b.Seq) })
	index := map[string]int{}
	for i := range recs {
		r := &recs[i]
		seq := r.Seq
		l := Link{Entry: r.entry(""), Before: r.Before, After: r.After, seq: seq,
			diffOf: func() string {
				if d, ok := lazy[seq]; ok {
					return d
				}
				return s.diffOf(seq)
			}}
		j, ok := index[r.Path]
		if !ok {
			j = len(t.paths)
			index[r.Path] = j
			p := RewindPath{Path: r.Path, Display: r.Display, Root: r.Root,
				Before: State{Exists: r.Before.Exists, Mode: r.Before.Mode, Link: r.Before.Link}}
			if r.Before.Exists {
				data, err := s.loadBefore(seq, r.Before)
				if err != nil {
					t.Abort()
					return nil, err
				}
				p.Before.Data = data
			}
			t.paths = append(t.paths, p)
		}
		t.paths[j].After = r.After
		t.paths[j].Changes = append(t.paths[j].Changes, l)
	}
	return t, nil
}

func (sel Selection) String() string {
	switch {
	case sel.PromptID != "":
		return "prompt " + strconv.Quote(sel.PromptID)
	case sel.Since != "":
		return "tool call " + strconv.Quote(sel.Since) + " and after"
	case sel.ToolCallID != "":
		return "tool call " + strconv.Quote(sel.ToolCallID)
	}
	return "the whole session"
}

// Paths are the paths the rewind puts back, in the order their first
// selected change was made.
func (t *RewindTxn) Paths() []RewindPath { return t.paths }

// Calls are the selected calls' toolCallIds, newest first.
func (t *RewindTxn) Calls() []string {
	out := make([]string, len(t.calls))
	for i, c := range t.calls {
		out[i] = c.key.id
	}
	return out
}

// ErrNotKept: the store cannot give back a version of a file it keeps
// only as a diff that does not rebuild it (a summary, a clipped diff, a
// file saved other than the change describes).
var ErrNotKept = errors.New("that version of the file is not kept")

// BeforeOf is what the change found at its path (nil for absent).
func (t *RewindTxn) BeforeOf(l Link) ([]byte, error) {
	if !l.Before.Exists {
		return nil, nil
	}
	return t.s.loadBefore(l.seq, l.Before)
}

// AfterOf is what the change left at its path (nil for absent): the store
// keeps it as the change's diff over its before bytes, and the result is
// checked against the recorded digest.
func (t *RewindTxn) AfterOf(l Link) ([]byte, error) {
	if !l.After.Exists {
		return nil, nil
	}
	before, err := t.BeforeOf(l)
	if err != nil {
		return nil, err
	}
	if l.After.Link {
		return nil, fmt.Errorf("%w: %s is a symbolic link", ErrNotKept, l.Entry.Path)
	}
	after, ok := rebuild(before, l.diffOf())
	if !ok || sha256Hex(after) != l.After.SHA256 {
		return nil, fmt.Errorf("%w: hostd keeps %s's version after %s only as a diff, and that diff does not rebuild it (binary, too large, or saved other than the change describes)", ErrNotKept, l.Entry.Path, l.Entry.ToolCallID)
	}
	return after, nil
}

// diffOf reads an entry's diff.
func (s *Store) diffOf(seq uint64) string {
	var d string
	_ = s.view(func(tx *bolt.Tx) error {
		d = string(tx.Bucket(bucketDiffs).Get(seqKey(seq)))
		return nil
	})
	return d
}

// Abort ends a rewind the caller will not carry out: its calls are
// released. After Rewind it does nothing, so `defer txn.Abort()` is safe.
func (t *RewindTxn) Abort() {
	if t.done {
		return
	}
	t.done = true
	t.s.mu.Lock()
	defer t.s.mu.Unlock()
	for _, c := range t.calls {
		c.busy = false
	}
}

// ChangesBetween lists the recorded changes of the canonical path, by any
// session, not rolled back, with a seq above after and (when below is not
// 0) below below: who else changed a file a rewind finds changed, in the
// shape the rewind's answer sends. Newest first.
func (s *Store) ChangesBetween(path string, after, below uint64) []wire.PathChange {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []wire.PathChange
	for i := len(s.order) - 1; i >= 0; i-- {
		c := s.order[i]
		for j := len(c.entries) - 1; j >= 0; j-- {
			r := c.entries[j]
			if r.Path == path && !r.RolledBack && r.Seq > after && (below == 0 || r.Seq < below) {
				out = append(out, wire.PathChange{SessionID: r.Session, ToolCallID: r.ToolCallID, Tool: r.Tool, At: r.At})
			}
		}
	}
	return out
}
