package review

import (
	"errors"
	"fmt"
	"slices"
	"strconv"

	bolt "go.etcd.io/bbolt"

	"github.com/hostd-dev/hostd/workspace"
)

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
	slices.SortStableFunc(steps, func(a, b step) int { return contentFirst(a.to.Exists, b.to.Exists) })
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
