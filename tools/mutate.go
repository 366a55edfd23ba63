package tools

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"strconv"

	"go.uber.org/zap"

	"github.com/hostd-dev/hostd/review"
	"github.com/hostd-dev/hostd/tools/hashline"
	"github.com/hostd-dev/hostd/workspace"
)

// BlockResolverFactory builds the syntactic block resolver for one text of
// one path (edit-contract §8.2). It lives here so the executor can carry
// it without importing the grammars. ctx bounds its parse: the edit call
// passes one context to every resolver and checker it builds, whose
// deadline is the call's parse time (config.Limits.MaxParseMs).
type BlockResolverFactory func(ctx context.Context, path, text string) (BlockResolver, error)

// SyntaxFactory builds the syntax checker boundary repair uses for one
// path (edit-contract §8.4); nil when this build has no grammars. ctx
// bounds its parses, as for BlockResolverFactory.
type SyntaxFactory func(ctx context.Context, path, text string) hashline.Syntax

// BlockResolver resolves the block opening at a 1-based line.
type BlockResolver interface {
	Resolve(line int) (start, end int, err error)
	Close()
}

// fileChange is one path of a mutation: what it was and what it becomes.
type fileChange struct {
	Path    workspace.Path
	Before  []byte
	Existed bool
	Mode    fs.FileMode // the file's mode before, or the mode a new file gets
	After   []byte
	Remove  bool
	// Link: the path is a symbolic link acted on itself (REM and MV of a
	// link); Before and After hold its target.
	Link bool
}

// mutate is the one way tools change files. It refuses read-only files,
// records the review intent durably before touching the disk (when review
// is on), applies every change through the path's open root in order,
// undoes the ones already applied if a later one fails, and records what
// landed. The caller holds the session's mutation lock and the file locks
// of every path (lockFiles), so no other call of this daemon changes them
// between the caller's read and these writes; another process that does
// is caught right before each rename (workspace.Expect) and nothing of
// the call stays. It returns the bytes that landed per canonical path
// (absent for removals).
//
// Order matters for MV: the destination is created before the source is
// removed, so no crash can leave the content nowhere.
func (c *Call) mutate(changes []fileChange) (map[string][]byte, *Error) {
	for _, ch := range changes {
		if ch.Existed && !ch.Link && ch.Mode&0o200 == 0 {
			return nil, Errorf(CodeToolDenied, "%s is read-only (mode %04o), so hostd will not replace or remove it; if it should change, make it writable first (chmod u+w), otherwise leave it as it is", ch.Path.Display, ch.Mode.Perm())
		}
	}
	// Under review with lazy commits (docs/review-store.md, "Which fsync
	// guarantees what"), the new contents are written and fsynced to
	// unnamed files while the intent is recorded: neither waits for the
	// other, and nothing is visible before the intent is durable.
	lazy := c.Review != nil && c.Review.LazyCommit()
	prepared := make([]*workspace.Prepared, len(changes))
	var prepDone chan struct{}
	if lazy {
		prepDone = make(chan struct{})
		go func() {
			defer close(prepDone)
			for i, ch := range changes {
				if !ch.Remove && !ch.Link {
					prepared[i] = ch.Path.Prepare(ch.After, ch.Mode)
				}
			}
		}()
	}
	discard := func() {
		if prepDone != nil {
			<-prepDone
		}
		for _, w := range prepared {
			if w != nil {
				w.Discard()
			}
		}
	}
	var txn *review.Txn
	if c.Review != nil {
		rc := make([]review.Change, len(changes))
		for i, ch := range changes {
			rc[i] = review.Change{
				Path: ch.Path.Abs, Display: ch.Path.Display,
				Before: ch.Before, BeforeExists: ch.Existed, BeforeMode: ch.Mode,
				After: ch.After, AfterExists: !ch.Remove, AfterMode: ch.Mode,
				BeforeLink: ch.Link && ch.Existed, AfterLink: ch.Link && !ch.Remove,
				Workspace: c.State.Workspace.Root(),
			}
			if d := ch.Path.Dir(); d != nil {
				rc[i].Root = d.Path()
			}
		}
		t, err := c.Review.Begin(c.Session.ID, c.ToolCallID, c.ToolName, rc)
		if err != nil {
			discard()
		}
		if errors.Is(err, review.ErrDuplicateCall) {
			return nil, Errorf(CodeInvalidArgument, "toolCallId %s was already used by an earlier change of this session, and review and rollback name a call by it; nothing was written: give every tool call its own toolCallId, or omit it and one is made", clipMessageTo(strconv.Quote(c.ToolCallID), 120))
		}
		if err != nil {
			return nil, Errorf(CodeToolFailed, "the change could not be recorded for review, so nothing was written: %v", err)
		}
		txn = t
	}
	landed := make(map[string][]byte, len(changes))
	if testHookBeforeApply != nil {
		testHookBeforeApply()
	}
	if prepDone != nil {
		<-prepDone
	}
	var syncs []*workspace.DirSync
	for i, ch := range changes {
		ds, err := applyChange(ch, prepared[i], lazy)
		prepared[i] = nil
		if ds != nil {
			syncs = append(syncs, ds)
		}
		if err != nil {
			discard()
			for _, ds := range syncs {
				ds.Sync() // the undo below syncs what it writes; this closes
			}
			undone := undo(changes[:i])
			if txn != nil {
				// Nothing of this call stays when the undo worked: drop
				// the intent without mistaking another program's bytes
				// for ours. Otherwise Abort settles what is there.
				if undone == nil {
					txn.Discard()
				} else {
					txn.Abort()
				}
			}
			return nil, c.applyError(ch, err)
		}
	}
	for _, ch := range changes {
		if !ch.Remove && !ch.Link {
			landed[ch.Path.Abs] = readLanded(ch, 2*c.Limits.MaxWriteBytes)
		}
	}
	if txn != nil {
		// The renames are made durable in the background, while the answer
		// goes out; the record must not reach the disk before they do.
		if len(syncs) > 0 {
			txn.SyncFirst(syncInBackground(syncs))
		}
		if _, err := txn.Commit(landed); err != nil {
			// A change the user could not review or undo must not stay:
			// Abort puts every path back as it was.
			if aerr := txn.Abort(); aerr != nil {
				c.Log.Error("review: commit and abort both failed", zap.Error(err), zap.NamedError("abort", aerr))
				return nil, Errorf(CodeToolFailed, "the change could not be recorded for review and undoing it failed (%v); the daemon will restore the files when it restarts", aerr)
			}
			return nil, Errorf(CodeToolFailed, "the change could not be recorded for review, so it was undone and nothing changed: %v", err)
		}
	}
	return landed, nil
}

// testHookBeforeApply runs after the review intent and before the first
// write; tests use it to play another process writing the file.
var testHookBeforeApply func()

// applyError is the tool error for a change that could not be applied;
// every change of the call has been put back.
func (c *Call) applyError(ch fileChange, err error) *Error {
	switch {
	case errors.Is(err, workspace.ErrChanged):
		if c.ToolName == "edit" && ch.Existed {
			e := Errorf(CodeTagMismatch, "%s changed on disk while this edit was being written (%v; another program wrote it); nothing was written: read it again and redo the edit against what it holds now", ch.Path.Display, err)
			if l, le := loadText(ch.Path, c.Limits.MaxWriteBytes); le == nil {
				e.Details = map[string]any{"liveTag": workspace.Sum(l.Text.Body).Tag()}
			}
			return e
		}
		return Errorf(CodeToolFailed, "%s changed on disk while this call was writing it (%v; another program wrote it); nothing was written: read it to see what it holds now, then call again", ch.Path.Display, err)
	case errors.Is(err, workspace.ErrOutside):
		return Errorf(CodeOutsideWorkspace, "%s leads outside the workspace now (a directory on its way was replaced by a link); nothing was written anywhere: use a path inside the workspace", ch.Path.Display)
	case errors.Is(err, workspace.ErrBusy):
		return busyError(ch.Path.Display, "replaced or removed")
	}
	return Errorf(CodeToolFailed, "writing %s failed, and every file of this call was left as it was: %v", ch.Path.Display, err)
}

// readLanded re-reads what a write left on disk, so a formatter or a
// writethrough that changed it on save is seen (edit-contract §5.4). The
// bound leaves room for a formatter's growth and still limits what a
// runaway writer can make us hold. If the file cannot be read back, the
// write itself succeeded, so the intended bytes stand.
func readLanded(ch fileChange, limit int64) []byte {
	f, err := ch.Path.Open()
	if err != nil {
		return ch.After
	}
	defer f.Close()
	size := int64(len(ch.After))
	if info, err := f.Stat(); err == nil {
		size = info.Size()
	}
	data, err := readSized(f, size, limit)
	if err != nil {
		return ch.After
	}
	if bytes.Equal(data, ch.After) {
		return ch.After // the usual case: hold one copy, not two
	}
	return data
}

// applyChange makes one change, checking first that the path still holds
// what the call read from it; a write places its prepared content when
// there is one. With syncLater (the call is under a review intent, which
// keeps it safe until its record is written), a file write leaves its
// directory's fsync to the returned DirSync.
func applyChange(ch fileChange, prepared *workspace.Prepared, syncLater bool) (*workspace.DirSync, error) {
	want := workspace.Want(ch.Existed, ch.Before)
	want.Link = ch.Link
	switch {
	case prepared != nil:
		return prepared.Place(want)
	case ch.Link && !ch.Remove:
		return nil, ch.Path.Symlink(string(ch.After), want)
	case ch.Remove:
		return nil, ch.Path.RemoveFile(want)
	case syncLater:
		return ch.Path.WriteFileSyncLater(ch.After, ch.Mode, want)
	}
	return nil, ch.Path.WriteFile(ch.After, ch.Mode, want)
}

// syncInBackground starts the directory fsyncs now and returns a function
// that waits for them, for the review record (Txn.SyncFirst). The answer
// does not wait: a power loss before they finish may undo the renames, and
// the record, written only after them, then agrees (edit-contract §13.1,
// docs/review-store.md "Which fsync guarantees what").
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

// undo restores changes that were applied, newest first, each only if it
// still holds what this call wrote.
func undo(applied []fileChange) error {
	var errs []error
	for i := len(applied) - 1; i >= 0; i-- {
		ch := applied[i]
		mine := workspace.Want(!ch.Remove, ch.After)
		mine.Link = ch.Link
		if ch.Link && ch.Existed {
			errs = append(errs, ch.Path.Symlink(string(ch.Before), mine))
			continue
		}
		if ch.Existed {
			errs = append(errs, ch.Path.WriteFile(ch.Before, ch.Mode, mine))
		} else {
			errs = append(errs, ch.Path.RemoveFile(mine))
		}
	}
	return errors.Join(errs...)
}
