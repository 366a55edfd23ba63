package tools

import (
	"context"
	"io"
	"io/fs"
	"os"
	"syscall"

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
}

// mutate is the one way tools change files. It records the review intent
// durably before touching the disk (when review is on), applies every
// change through workspace.WriteFile / RemoveFile in order, undoes the ones
// already applied if a later one fails, and records what landed. The caller
// holds the session's mutation lock. It returns the bytes that landed per
// canonical path (absent for removals).
//
// Order matters for MV: the destination is created before the source is
// removed, so no crash can leave the content nowhere.
func (c *Call) mutate(changes []fileChange) (map[string][]byte, *Error) {
	var txn *review.Txn
	if c.Review != nil {
		rc := make([]review.Change, len(changes))
		for i, ch := range changes {
			rc[i] = review.Change{
				Path: ch.Path.Abs, Display: ch.Path.Display,
				Before: ch.Before, BeforeExists: ch.Existed, BeforeMode: ch.Mode,
				After: ch.After, AfterExists: !ch.Remove, AfterMode: ch.Mode,
			}
		}
		t, err := c.Review.Begin(c.Session.ID, c.ToolCallID, c.ToolName, rc)
		if err != nil {
			return nil, Errorf(CodeToolFailed, "the change could not be recorded for review, so nothing was written: %v", err)
		}
		txn = t
	}
	landed := make(map[string][]byte, len(changes))
	for i, ch := range changes {
		if err := applyChange(ch); err != nil {
			undo(changes[:i])
			if txn != nil {
				txn.Abort()
			}
			return nil, Errorf(CodeToolFailed, "writing %s failed, and every file of this call was left as it was: %v", ch.Path.Display, err)
		}
	}
	for _, ch := range changes {
		if !ch.Remove {
			landed[ch.Path.Abs] = readLanded(ch, 2*c.Limits.MaxWriteBytes)
		}
	}
	if txn != nil {
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

// readLanded re-reads what a write left on disk, so a formatter or a
// writethrough that changed it on save is seen (edit-contract §5.4). The
// bound leaves room for a formatter's growth and still limits what a
// runaway writer can make us hold. If the file cannot be read back, the
// write itself succeeded, so the intended bytes stand.
func readLanded(ch fileChange, limit int64) []byte {
	f, err := os.OpenFile(ch.Path.Abs, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return ch.After
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit))
	if err != nil {
		return ch.After
	}
	return data
}

func applyChange(ch fileChange) error {
	if ch.Remove {
		return workspace.RemoveFile(ch.Path.Abs)
	}
	return workspace.WriteFile(ch.Path.Abs, ch.After, ch.Mode)
}

// undo restores changes that were applied, newest first.
func undo(applied []fileChange) {
	for i := len(applied) - 1; i >= 0; i-- {
		ch := applied[i]
		if ch.Existed {
			workspace.WriteFile(ch.Path.Abs, ch.Before, ch.Mode)
		} else {
			os.Remove(ch.Path.Abs)
		}
	}
}
