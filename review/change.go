package review

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"go.uber.org/zap"

	"github.com/hostd-dev/hostd/workspace"
)

// Edit is one path of a change a tool makes: what the path held when the
// tool read it, and what it becomes. A write or edit is one Edit; REM is
// one with Remove; MV is two, the destination's creation first and the
// source's removal second, so that no crash can leave the content nowhere.
type Edit struct {
	Path    workspace.Path // resolved: canonical, as the model sees it, and under its open root
	Before  []byte
	Existed bool
	Mode    fs.FileMode // the file's mode before, or the mode a new file gets
	After   []byte
	Remove  bool
	// Link: the path is a symbolic link acted on itself (REM and MV of a
	// link); Before and After hold its target.
	Link bool
}

// Call names the tool call a change belongs to, as review records it.
type Call struct {
	Session    string
	ToolCallID string
	Tool       string
	// PromptID is the user turn the call belongs to (tools.execute's
	// promptId), which a rewind of the turn goes by; "" when the client
	// sent none.
	PromptID string
	// Workspace is the session's workspace root, which review.sessions
	// reports.
	Workspace string
	// MaxLanded bounds how much of a written file is read back to see
	// what landed (a formatter may grow it on save).
	MaxLanded int64
}

// ErrNotRecorded: a change could not be recorded for review, so it was
// not made or was undone; the message says which, and why. A change the
// user cannot review or undo must not stay.
var ErrNotRecorded = errors.New("the change could not be recorded for review")

// WriteError is a path of a change that could not be written: Err is
// workspace.ErrChanged when another program changed it since the tool
// read it, workspace.ErrOutside when its way now leads out of its root,
// or the I/O error. Every path of the change was put back, and nothing
// of it is recorded.
type WriteError struct {
	Edit Edit
	Err  error
}

func (e *WriteError) Error() string { return "writing " + e.Edit.Path.Display + ": " + e.Err.Error() }
func (e *WriteError) Unwrap() error { return e.Err }

// Apply makes one tool call's change to files: the one way tools change
// them. Under review (s not nil) it records the durable intent, with the
// bytes that restore every path, before the first name changes (begin);
// with lazy commits the new contents are meanwhile written and fsynced
// to unnamed files, neither waiting for the other. Then it writes each
// path in order through its open root, each checked right before its
// rename against the bytes the tool read, so another program's write is
// never replaced (a *WriteError wrapping workspace.ErrChanged); if one
// fails, the paths already written are put back and the intent dropped.
// It re-reads what landed (a formatter may change a file on save,
// edit-contract §5.4), leaves the directory fsyncs to the background,
// where the record waits for them (docs/review-store.md, "Which fsync
// guarantees what"), and commits the record; a commit that fails undoes
// the change (ErrNotRecorded).
//
// s may be nil: review is off, and the change is made and undone on
// failure all the same, with every write durable before Apply returns.
// The caller holds the file lock of every path (internal/filelock), so no
// other call of this daemon changes one meanwhile. Apply returns the
// bytes that landed per canonical path (absent for removals). A
// duplicate toolCallId fails before anything is written, with
// ErrDuplicateCall (wrapped in ErrNotRecorded).
func (s *Store) Apply(c Call, edits []Edit) (map[string][]byte, error) {
	steps, err := editSteps(edits)
	if err != nil {
		return nil, err
	}
	lazy := s != nil && s.LazyCommit()
	prepared := func() {}
	if lazy {
		prepared = prepare(steps, edits)
	}
	var txn *changeTxn
	if s != nil {
		if txn, err = s.beginTurn(c.Session, c.ToolCallID, c.Tool, c.PromptID, changesOf(c, edits)); err != nil {
			prepared()
			discardPrepared(steps)
			return nil, fmt.Errorf("%w, so nothing was written: %w", ErrNotRecorded, err)
		}
	}
	if testHookBeforeWrite != nil {
		testHookBeforeWrite()
	}
	prepared()
	syncs, err := run(steps, lazy)
	if err != nil {
		se := err.(*stepError)
		if txn != nil {
			// Nothing of this call stays when the undo worked: drop the
			// intent without mistaking another program's bytes for ours.
			// Otherwise Abort settles what is there.
			if se.undo == nil {
				txn.discard()
			} else {
				txn.abort()
			}
		}
		return nil, &WriteError{Edit: edits[se.index], Err: se.err}
	}
	landed := make(map[string][]byte, len(edits))
	for _, e := range edits {
		if !e.Remove && !e.Link {
			landed[e.Path.Abs] = readLanded(e, c.MaxLanded)
		}
	}
	if txn != nil {
		if err := s.record(txn, landed, syncs); err != nil {
			return nil, err
		}
	}
	return landed, nil
}

// editSteps are the steps of a tool's change, each checked against what
// the tool read.
func editSteps(edits []Edit) ([]step, error) {
	steps := make([]step, len(edits))
	for i, e := range edits {
		if e.Path.Dir() == nil {
			return nil, fmt.Errorf("%w: %s was not resolved by a workspace", ErrInvalidChange, e.Path.Abs)
		}
		steps[i] = step{
			dir: e.Path.Dir(), path: e.Path.Abs, display: e.Path.Display, check: true,
			from: State{Exists: e.Existed, Data: e.Before, Mode: e.Mode, Link: e.Link},
			to:   State{Exists: !e.Remove, Data: e.After, Mode: e.Mode, Link: e.Link},
		}
	}
	return steps, nil
}

// prepare writes and fsyncs every new content to an unnamed file
// (workspace.Path.Prepare) in the background, while the intent is
// recorded: nothing is visible before the intent is durable. The
// returned function waits for it; steps must not be touched before.
func prepare(steps []step, edits []Edit) (wait func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i, e := range edits {
			if !e.Remove && !e.Link {
				steps[i].prepared = e.Path.Prepare(e.After, e.Mode)
			}
		}
	}()
	return func() { <-done }
}

// record commits a change that landed. The renames are made durable in
// the background, while the answer goes out (syncs); the record must not
// reach the disk before they do. A change that cannot be recorded must
// not stay: it is undone.
func (s *Store) record(txn *changeTxn, landed map[string][]byte, syncs []*workspace.DirSync) error {
	if len(syncs) > 0 {
		txn.syncFirst(syncInBackground(syncs))
	}
	_, err := txn.commit(landed)
	if err == nil {
		return nil
	}
	if aerr := txn.abort(); aerr != nil {
		s.log.Error("review: commit and abort both failed", zap.Error(err), zap.NamedError("abort", aerr))
		return fmt.Errorf("%w, and undoing it did not finish (%v); hostd settles it when it next starts: each path is put back, or recorded as it stands when it holds the whole change", ErrNotRecorded, aerr)
	}
	return fmt.Errorf("%w, so it was undone and nothing changed: %w", ErrNotRecorded, err)
}

// changesOf is the record's plan of a change.
func changesOf(c Call, edits []Edit) []plannedChange {
	changes := make([]plannedChange, len(edits))
	for i, e := range edits {
		changes[i] = plannedChange{
			Path: e.Path.Abs, Display: e.Path.Display,
			Before: e.Before, BeforeExists: e.Existed, BeforeMode: e.Mode,
			After: e.After, AfterExists: !e.Remove, AfterMode: e.Mode,
			BeforeLink: e.Link && e.Existed, AfterLink: e.Link && !e.Remove,
			Root: e.Path.Dir().Path(), Workspace: c.Workspace,
			Encoding: e.Path.Charset.Enc,
		}
	}
	return changes
}

// readLanded re-reads what a write left on disk, so a formatter or a
// writethrough that changed it on save is seen (edit-contract §5.4). The
// bound leaves room for a formatter's growth and still limits what a
// runaway writer can make us hold. If the file cannot be read back, the
// write itself succeeded, so the intended bytes stand.
func readLanded(e Edit, limit int64) []byte {
	f, err := e.Path.Open()
	if err != nil {
		return e.After
	}
	defer f.Close()
	size := int64(len(e.After))
	if info, err := f.Stat(); err == nil {
		size = info.Size()
	}
	buf := bytes.NewBuffer(make([]byte, 0, min(size, limit)+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(f, limit)); err != nil {
		return e.After
	}
	if bytes.Equal(buf.Bytes(), e.After) {
		return e.After // the usual case: hold one copy, not two
	}
	return buf.Bytes()
}

// syncInBackground starts the directory fsyncs now and returns a function
// that waits for them, for the record (changeTxn.syncFirst). The answer does not
// wait: a power loss before they finish may undo the renames, and the
// record, written only after them, then agrees (edit-contract §13.1).
func syncInBackground(syncs []*workspace.DirSync) func() error {
	done := make(chan struct{})
	var err error
	go func() {
		defer close(done)
		for _, ds := range syncs {
			err = errors.Join(err, ds.Sync())
		}
	}()
	return func() error {
		<-done
		return err
	}
}
