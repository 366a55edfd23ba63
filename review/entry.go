package review

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"

	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/workspace/textenc"
)

// Sentinel errors. Callers match them with errors.Is; the RPC layer maps
// ErrNotFound to REVIEW_NOT_FOUND.
var (
	// ErrNotFound: no review entries for that session and toolCallId.
	ErrNotFound = errors.New("no review entries for that tool call")
	// ErrRolledBack: every entry of the call is already rolled back. A
	// second rollback is reported, not silently accepted, so a client that
	// double-clicks learns the first one already happened.
	ErrRolledBack = errors.New("tool call already rolled back")
	// ErrBusy: a rollback of the same call is already running, or an
	// interrupted one is waiting to be finished at the next Open.
	ErrBusy = errors.New("a rollback of this tool call is in progress")
	// ErrDuplicateCall: the session already has a recorded or in-flight
	// mutation under that toolCallId. Two mutations under one id would make
	// its rollback check one call's after-digest against the other's.
	ErrDuplicateCall = errors.New("toolCallId already used in this session")
	// ErrTooLarge: the call's before bytes or entry count exceed what the
	// retention limits could ever keep. The mutation must not run, since a
	// change the store cannot keep is a change the user cannot undo.
	ErrTooLarge = errors.New("change too large to keep for review")
	// ErrInvalidChange: a change that does not describe a mutation (both
	// sides absent, bytes on an absent side, a relative path, a duplicate).
	ErrInvalidChange = errors.New("invalid change")
	// ErrDone: Commit or Abort on a transaction that already ended.
	ErrDone = errors.New("review transaction already ended")
	// ErrClosed: the store was closed.
	ErrClosed = errors.New("review store closed")
	// ErrRollbackFailed: a rollback could not be carried out because a
	// file could not be written or the store could not record it; nothing
	// was restored. The message names the cause.
	ErrRollbackFailed = errors.New("rollback failed")
	// ErrRollbackIncomplete: a restore failed and putting the paths already
	// restored back failed too, or the rollback could not be marked. It
	// stays recorded as in progress and the next Open finishes it.
	ErrRollbackIncomplete = errors.New("rollback incomplete")
	// ErrUnsettled: an abort or a recovery found a path holding content
	// that is neither its before nor its after. The path was left as it
	// is, and the change was recorded so the user can still review and
	// roll it back.
	ErrUnsettled = errors.New("file holds neither the before nor the after content")
)

// The change kinds of a ReviewEntry (wire-contract §5).
const (
	ChangeCreate = "create"
	ChangeModify = "modify"
	ChangeDelete = "delete"
)

// plannedChange is one path of one mutation, planned before any byte is
// written: what Apply records of an Edit (changesOf). A write or edit is
// one; REM is one with AfterExists false; MV is two: the source's deletion
// and the destination's creation.
type plannedChange struct {
	// Path is the canonical absolute path (symlinks resolved).
	Path string
	// Display is the path as the model sees it, used in diffs and entries.
	Display string

	Before       []byte
	BeforeExists bool
	BeforeMode   fs.FileMode // permission bits the file had; ignored when absent

	After       []byte // the intended content
	AfterExists bool
	AfterMode   fs.FileMode // permission bits a created file gets

	// BeforeLink and AfterLink mark a side that is a symbolic link, not a
	// regular file: its bytes are the link's target. REM and MV of a link
	// act on the link itself, and its rollback makes the link again.
	BeforeLink bool
	AfterLink  bool

	// Root is the root directory the path lies under (the workspace, or
	// an approved root): a rollback confines its restore to it, even
	// after the session is gone. Workspace is the session's workspace
	// root, which review.sessions reports. Both are optional.
	Root      string
	Workspace string

	// Encoding is what the workspace's setting says the file is in when
	// it starts with no byte-order mark: the diff decodes both sides by
	// it, so a text in a legacy encoding is diffed as text. Not recorded;
	// crash recovery's diffs go by the byte-order mark alone.
	Encoding textenc.Encoding
}

func (c plannedChange) kind() string {
	switch {
	case !c.BeforeExists:
		return ChangeCreate
	case !c.AfterExists:
		return ChangeDelete
	}
	return ChangeModify
}

// Entry is one recorded path of one tool call: the wire's ReviewEntry,
// which is what review.list and review.recorded send, and the canonical
// path beside it.
type Entry struct {
	wire.ReviewEntry

	// Canonical is the resolved path, for the caller's own bookkeeping
	// (snapshot invalidation); it is not part of the wire shape.
	Canonical string `json:"-"`
}

// Facts describe one side of a change without its bytes. SHA256 is the
// digest of the raw file bytes, not the normalized text a tag hashes:
// rollback must notice any byte that changed, including line endings and
// trailing blanks that the tag deliberately ignores.
type Facts struct {
	Exists bool        `json:"exists"`
	SHA256 string      `json:"sha256,omitempty"`
	Size   int64       `json:"size"`
	Mode   fs.FileMode `json:"mode"`
	// Link: a symbolic link, whose bytes are its target.
	Link bool `json:"link,omitempty"`
}

// asLink marks facts as a symbolic link's when link is set.
func (f Facts) asLink(link bool) Facts {
	if link && f.Exists {
		f.Link, f.Mode = true, 0
	}
	return f
}

func factsOf(exists bool, data []byte, mode fs.FileMode) Facts {
	if !exists {
		return Facts{}
	}
	return Facts{Exists: true, SHA256: sha256Hex(data), Size: int64(len(data)), Mode: mode.Perm()}
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Stats is the store's usage, for debug.stats.
type Stats struct {
	Entries        int                     `json:"entries"`
	Calls          int                     `json:"calls"`
	Bytes          int64                   `json:"bytes"`
	PendingIntents int                     `json:"pendingIntents"`
	EvictedCalls   int64                   `json:"evictedCalls"` // since Open
	Sessions       map[string]SessionStats `json:"sessions"`
	// Recovered is set when Open found the database damaged and started
	// a fresh store.
	Recovered *Recovery `json:"recovered,omitempty"`
	// Broken is set when the database turned out damaged while in use.
	Broken string `json:"broken,omitempty"`
}

// SessionStats is one session's share of Stats.
type SessionStats struct {
	Entries int   `json:"entries"`
	Calls   int   `json:"calls"`
	Bytes   int64 `json:"bytes"`
}
