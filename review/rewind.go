package review

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/hostd-dev/hostd/workspace"
	"github.com/hostd-dev/hostd/workspace/textenc"
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
		for _, r := range c.entries {
			if !r.RolledBack {
				recs = append(recs, *r)
			}
		}
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

// Put is what the rewind does to one of its paths, as the caller decided
// after checking the live file.
type Put struct {
	// Path indexes Paths.
	Path int
	// Keep leaves the path as it is and its changes not rolled back (the
	// person's later work stays: "keep theirs").
	Keep bool
	// Live is what the path held at the caller's check; the write happens
	// only if it still does.
	Live State
	// To is what the path gets: the path's Before, or a merge of it with
	// what another wrote since.
	To State
	// Overwrite: Live is not what the agent left (someone else's work) and
	// To replaces it anyway ("force"). Live is recorded as the before side
	// of an entry of its own, so that its rollback brings it back.
	Overwrite bool
}

// rewindPut is one path of a rewind's intent.
type rewindPut struct {
	Path      string `json:"path"`
	Display   string `json:"display"`
	Root      string `json:"root,omitempty"`
	Workspace string `json:"workspace,omitempty"`
	From      Facts  `json:"from"`
	To        Facts  `json:"to"`
	// ToSeq is the key in the before bucket of To's bytes: the first
	// change's before bytes, or (Own) the rewind's own copy, a merge.
	ToSeq uint64 `json:"toSeq,omitempty"`
	Own   bool   `json:"own,omitempty"`
	// Record is the seq of the entry that keeps From, which the rewind
	// overwrites; its before bytes are From's. 0: nothing to keep.
	Record uint64 `json:"record,omitempty"`
	// Seqs are the entries the path's rewind rolls back.
	Seqs []uint64 `json:"seqs"`
}

// Rewind carries out the caller's decisions, all or nothing. It records
// the intent with the bytes every path gets (from then on a crash is
// settled forward by the next Open: the rewind is finished), writes each
// path once, each checked right before its write against its Live state,
// then marks every rolled-back entry and records every overwritten
// content, in one transaction. It returns the toolCallId under which the
// overwritten contents are recorded ("" when none). rootOf gives the open
// root of a path (nil: through its parent directory).
//
// If a write fails, the paths already written are put back and nothing is
// rewound (ErrRollbackFailed); if putting them back fails too, or the
// record cannot be written, the rewind stays recorded and the next Open
// finishes it (ErrRollbackIncomplete). Rewind ends the RewindTxn whatever
// it returns.
func (t *RewindTxn) Rewind(puts []Put, rootOf func(RewindPath) *workspace.Dir) (recorded string, err error) {
	if t.done || t.started {
		return "", ErrDone
	}
	in, data, err := t.plan(puts)
	if err != nil {
		t.Abort()
		return "", err
	}
	if rewindHook != nil {
		rewindHook("before")
	}
	if err := t.start(in, data); err != nil {
		t.Abort()
		if errors.Is(err, ErrClosed) {
			return "", err
		}
		return "", fmt.Errorf("%w: %w; nothing was restored", ErrRollbackFailed, err)
	}
	t.started = true
	if rewindHook != nil {
		rewindHook("intent")
	}
	var steps []step
	for _, p := range puts {
		if p.Keep {
			continue
		}
		rp := t.paths[p.Path]
		st := step{path: rp.Path, display: rp.Display, from: p.Live, check: true, to: p.To, setMode: true}
		if rootOf != nil {
			st.dir = rootOf(rp)
		}
		steps = append(steps, st)
	}
	// Paths that get content back first, removals last: a crash between
	// the steps of an MV's rewind leaves the content in two places rather
	// than in none.
	slices.SortStableFunc(steps, func(a, b step) int {
		switch {
		case a.to.Exists == b.to.Exists:
			return 0
		case a.to.Exists:
			return -1
		}
		return 1
	})
	for i := range steps {
		n := strconv.Itoa(i + 1)
		steps[i].made = func() {
			if rewindHook != nil {
				rewindHook("step" + n)
			}
		}
	}
	if _, err := run(steps, false); err != nil {
		se := err.(*stepError)
		t.done = true
		if se.undo != nil {
			return "", fmt.Errorf("%w: writing %s failed (%v) and putting back the paths already written failed too (%v); it will be finished when hostd restarts",
				ErrRollbackIncomplete, se.display, se.err, se.undo)
		}
		if derr := t.s.finishRewind(in, nil, nil); derr != nil {
			return "", fmt.Errorf("%w: writing %s failed (%v); the paths already written were put back, but the rewind could not be dropped (%v); it is settled when hostd restarts", ErrRollbackIncomplete, se.display, se.err, derr)
		}
		return "", fmt.Errorf("%w: writing %s: %w; the paths already written were put back, so nothing was restored", ErrRollbackFailed, se.display, se.err)
	}
	if rewindHook != nil {
		rewindHook("written")
	}
	done := make([]int, len(in.Puts))
	for i := range done {
		done[i] = i
	}
	t.done = true
	if err := t.s.finishRewind(in, done, data); err != nil {
		return "", fmt.Errorf("%w: the files were rewound but the rewind could not be recorded (%v); it will be recorded when hostd restarts", ErrRollbackIncomplete, err)
	}
	for _, p := range in.Puts {
		if p.Record != 0 && !sameFacts(p.From, p.To) {
			return in.ToolCallID, nil
		}
	}
	return "", nil
}

// rewindHook, when set, runs at each point of a rewind: "before" its
// intent is recorded, "intent" right after, "stepN" after its Nth write,
// "written" after the last. Only a hostd built with the hostdtesthooks
// tag sets it (hook_tagged.go), from its environment, so that a test can
// kill the daemon at an exact point of a rewind.
var rewindHook func(point string)

// RewindHookEnv is the environment variable that makes a hostd built
// with the hostdtesthooks tag (the end-to-end tests' hostd) stop for good
// at one point of every rewind (rewindHook): "before", "intent", "stepN"
// or "written". It says so on stderr first ("rewind hook: stopped at
// POINT"), and the test, which waits for that line, kills the daemon
// there. Release builds ignore it.
const RewindHookEnv = "HOSTD_TEST_REWIND_HOOK"

// plan turns the caller's puts into the rewind's intent, and the bytes
// the intent stores with it, by their future seq's place: ownData[i] is
// what goes under puts i's own seq (a merge), keepData[i] the live bytes
// recorded for an overwrite.
func (t *RewindTxn) plan(puts []Put) (*intentRecord, *rewindData, error) {
	in := &intentRecord{Kind: intentRewind, Session: t.session}
	data := &rewindData{}
	seen := map[int]bool{}
	for _, p := range puts {
		if p.Path < 0 || p.Path >= len(t.paths) || seen[p.Path] {
			return nil, nil, fmt.Errorf("%w: put of path %d", ErrInvalidChange, p.Path)
		}
		seen[p.Path] = true
		if p.Keep {
			continue
		}
		rp := t.paths[p.Path]
		rput := rewindPut{Path: rp.Path, Display: rp.Display, Root: rp.Root,
			From: stateFacts(p.Live), To: stateFacts(p.To)}
		for _, l := range rp.Changes {
			rput.Seqs = append(rput.Seqs, l.seq)
		}
		first := rp.Changes[0]
		if p.To.Exists && !sameState(p.To, rp.Before) {
			rput.Own = true
		} else if p.To.Exists {
			rput.ToSeq = first.seq
		}
		data.own = append(data.own, ownBytes(rput.Own, p.To.Data))
		if p.Overwrite && p.Live.Exists {
			data.keep = append(data.keep, p.Live.Data)
		} else {
			data.keep = append(data.keep, nil)
		}
		if p.Overwrite {
			rput.Record = 1 // set to a real seq by start
		}
		in.Puts = append(in.Puts, rput)
	}
	if len(in.Puts) == 0 {
		return nil, nil, fmt.Errorf("%w: every path is kept as it is, so there is nothing to rewind", ErrNothingToRewind)
	}
	return in, data, nil
}

func ownBytes(own bool, b []byte) []byte {
	if own {
		return b
	}
	return nil
}

// rewindData are the bytes a rewind's intent stores, per put.
type rewindData struct {
	own  [][]byte // a merge's result
	keep [][]byte // the overwritten live bytes
}

func stateFacts(st State) Facts {
	f := factsOf(st.Exists, st.Data, st.Mode).asLink(st.Link)
	if st.Exists && !st.Link && st.Mode.Perm() == 0 {
		f.Mode = defaultMode
	}
	return f
}

func sameState(a, b State) bool {
	return a.Exists == b.Exists && a.Link == b.Link && string(a.Data) == string(b.Data)
}

// start durably records the rewind's intent, with a merge's bytes and
// the overwritten bytes under seqs of their own, and names the call that
// records the overwritten contents.
func (t *RewindTxn) start(in *intentRecord, data *rewindData) error {
	s := t.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	in.At = s.clock().UTC()
	err := s.update(func(tx *bolt.Tx) error {
		entries, before, intents := tx.Bucket(bucketEntries), tx.Bucket(bucketBefore), tx.Bucket(bucketIntents)
		for i := range in.Puts {
			p := &in.Puts[i]
			if p.Own {
				seq, err := entries.NextSequence()
				if err != nil {
					return err
				}
				p.ToSeq = seq
				if err := before.Put(seqKey(seq), data.own[i]); err != nil {
					return err
				}
			}
			if p.Record != 0 {
				seq, err := entries.NextSequence()
				if err != nil {
					return err
				}
				p.Record = seq
				if p.From.Exists {
					if err := before.Put(seqKey(seq), data.keep[i]); err != nil {
						return err
					}
				}
			}
		}
		id, err := intents.NextSequence()
		if err != nil {
			return err
		}
		in.ID = id
		in.ToolCallID = s.rewindCallIDLocked(in.Session, id)
		return putJSON(intents, id, in)
	})
	if err != nil {
		return fmt.Errorf("review store: record rewind intent: %w", err)
	}
	s.intents++
	s.pending[callKey{in.Session, in.ToolCallID}] = true
	return nil
}

// rewindCallIDLocked names the call that records what a rewind
// overwrote: "rewind-ID", made unique in the session.
func (s *Store) rewindCallIDLocked(session string, id uint64) string {
	base := "rewind-" + strconv.FormatUint(id, 10)
	name := base
	for n := 2; ; n++ {
		k := callKey{session, name}
		if s.calls[k] == nil && !s.pending[k] {
			return name
		}
		name = base + "." + strconv.Itoa(n)
	}
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

// finishRewind ends a rewind's intent in one transaction: the entries of
// the puts in done are marked rolled back, an overwritten content of
// each is recorded as an entry of its own (read from its stored bytes
// when data is nil, as at Open), the rewind's own bytes are dropped, and
// the intent is deleted. Every call of the session is released.
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
		for _, r := range marked {
			rolled := *r
			rolled.RolledBack = true
			if err := putJSON(entries, r.Seq, &rolled); err != nil {
				return err
			}
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
		o, err := Observe(p.Path, max(p.From.Size, p.To.Size))
		if err != nil {
			return err
		}
		switch {
		case o.matches(p.To):
		case o.matches(p.From):
			st := State{Exists: p.To.Exists, Mode: p.To.Mode, Link: p.To.Link}
			if p.To.Exists {
				if st.Data, err = s.loadBefore(p.ToSeq, p.To); err != nil {
					return err
				}
			}
			if err := restoreUnder(p.Root, p.Path, st); err != nil {
				return fmt.Errorf("rewind %s: %w", p.Display, err)
			}
		default:
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

// PathChange is a recorded change of a path, by any session.
type PathChange struct {
	SessionID  string    `json:"sessionId"`
	ToolCallID string    `json:"toolCallId"`
	Tool       string    `json:"tool"`
	At         time.Time `json:"at"`
}

// ChangesBetween lists the recorded changes of the canonical path, by any
// session, not rolled back, with a seq above after and (when below is not
// 0) below below: who else changed a file a rewind finds changed. Newest
// first.
func (s *Store) ChangesBetween(path string, after, below uint64) []PathChange {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []PathChange
	for i := len(s.order) - 1; i >= 0; i-- {
		c := s.order[i]
		for j := len(c.entries) - 1; j >= 0; j-- {
			r := c.entries[j]
			if r.Path == path && !r.RolledBack && r.Seq > after && (below == 0 || r.Seq < below) {
				out = append(out, PathChange{SessionID: r.Session, ToolCallID: r.ToolCallID, Tool: r.Tool, At: r.At})
			}
		}
	}
	return out
}
