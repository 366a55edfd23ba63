package tools

import (
	"errors"
	"strconv"

	"github.com/hostd-dev/hostd/review"
	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/workspace"
)

// mutate makes a tool's change to files through review's one change API
// (review.Store.Apply; with review off, the nil store makes the change
// the same way and records nothing) and turns its failures into tool
// errors. It refuses read-only files first. The caller holds the
// session's mutation lock and the file locks of every path (lockFiles).
// It returns the bytes that landed per canonical path (absent for
// removals).
func (c *Call) mutate(edits []review.Edit) (map[string][]byte, *wire.ToolError) {
	for _, e := range edits {
		if e.Existed && !e.Link && e.Mode&0o200 == 0 {
			return nil, Errorf(wire.ToolDenied, "%s is read-only (mode %04o), so hostd will not replace or remove it; if it should change, make it writable first (chmod u+w), otherwise leave it as it is", e.Path.Display, e.Mode.Perm())
		}
	}
	if testHookBeforeApply != nil {
		testHookBeforeApply()
	}
	landed, err := c.Review.Apply(review.Call{
		Session: c.Session.ID, ToolCallID: c.ToolCallID, Tool: c.ToolName, PromptID: c.PromptID,
		Workspace: c.State.Workspace.Root(), MaxLanded: 2 * c.Limits.MaxWriteBytes,
	}, edits)
	if err == nil {
		return landed, nil
	}
	var we *review.WriteError
	switch {
	case errors.As(err, &we):
		return nil, c.writeError(we.Edit, we.Err)
	case errors.Is(err, review.ErrDuplicateCall):
		return nil, Errorf(wire.ToolInvalidArgument, "toolCallId %s was already used by an earlier change of this session, and review and rollback name a call by it; nothing was written: give every tool call its own toolCallId, or omit it and one is made", clipMessageTo(strconv.Quote(c.ToolCallID), 120))
	}
	return nil, Errorf(wire.ToolFailed, "%v", err)
}

// testHookBeforeApply runs after the gates and before the change is
// made; tests use it to play another program writing the file.
var testHookBeforeApply func()

// writeError is the tool error for a path that could not be written;
// every path of the call has been put back.
func (c *Call) writeError(e review.Edit, err error) *wire.ToolError {
	switch {
	case errors.Is(err, workspace.ErrChanged):
		if c.ToolName == "edit" && e.Existed {
			te := Errorf(wire.ToolTagMismatch, "%s changed on disk while this edit was being written (%v; another program wrote it); nothing was written: read it again and redo the edit against what it holds now", e.Path.Display, err)
			if l, le := loadText(e.Path, c.Limits.MaxWriteBytes); le == nil {
				te.Details = wire.TagMismatchDetails{LiveTag: workspace.Sum(l.Text.Body).Tag()}
			}
			return te
		}
		return Errorf(wire.ToolFailed, "%s changed on disk while this call was writing it (%v; another program wrote it); nothing was written: read it to see what it holds now, then call again", e.Path.Display, err)
	case errors.Is(err, workspace.ErrOutside):
		return Errorf(wire.ToolOutsideWorkspace, "%s leads outside the workspace now (a directory on its way was replaced by a link); nothing was written anywhere: use a path inside the workspace", e.Path.Display)
	case errors.Is(err, workspace.ErrBusy):
		return busyError(e.Path.Display, "replaced or removed")
	}
	return Errorf(wire.ToolFailed, "writing %s failed, and every file of this call was left as it was: %v", e.Path.Display, err)
}
