package wire

import "time"

// ReviewEntry is one recorded path of one tool call: wire-contract §5
// ReviewEntry, in review.list and the review.recorded notification.
type ReviewEntry struct {
	ID           string    `json:"id"`
	ToolCallID   string    `json:"toolCallId"`
	Tool         string    `json:"tool"`
	PromptID     string    `json:"promptId,omitempty" doc:"the user turn (tools.execute's promptId) the call belonged to; absent when the client sent none"`
	Path         string    `json:"path"` // as the model sees it
	Change       string    `json:"change"`
	BeforeSHA256 string    `json:"beforeSha256,omitempty"`
	AfterSHA256  string    `json:"afterSha256,omitempty"`
	Diff         string    `json:"diff"`
	At           time.Time `json:"at"`
	RolledBack   bool      `json:"rolledBack"`
}

// ReviewRecorded is the params of the review.recorded notification
// (RecordedNotification): one tool call's entries, as review.list returns
// them for that call.
type ReviewRecorded struct {
	SessionID  string        `json:"sessionId"`
	ToolCallID string        `json:"toolCallId"`
	Entries    []ReviewEntry `json:"entries"`
}

// ReviewSession is one session that has review records, live or not, in
// review.sessions.
type ReviewSession struct {
	SessionID string    `json:"sessionId"`
	Workspace string    `json:"workspace,omitempty" doc:"the workspace root of its latest recorded call (absent for records older than this field)"`
	Calls     int       `json:"calls"`
	Entries   int       `json:"entries"`
	Last      time.Time `json:"last" doc:"when its latest entry was recorded"`
}

// ReviewRecovery says that the daemon found its review store damaged at
// start, moved it aside and started a fresh, empty store (host.info's
// and debug.stats' review.recovered).
type ReviewRecovery struct {
	From   string    `json:"from" doc:"where the damaged file was moved"`
	Reason string    `json:"reason" doc:"what was wrong with it"`
	At     time.Time `json:"at"`
}

// The ways forward from a conflicted file (review.rewind's resolve and
// resolveFiles).
const (
	// ResolveKeepTheirs leaves a conflicted file as it is and rewinds the
	// others.
	ResolveKeepTheirs = "keepTheirs"
	// ResolveMerge undoes the agent's changes of a conflicted file and
	// keeps the later edits, when the two touch different lines.
	ResolveMerge = "merge"
	// ResolveForce restores a conflicted file anyway, and records what it
	// overwrote as a review entry of its own.
	ResolveForce = "force"
)

// RewindResult is the result of review.rewind.
type RewindResult struct {
	DryRun    bool         `json:"dryRun" doc:"true: nothing was written; this is what the same call without dryRun would do"`
	Calls     []string     `json:"calls" doc:"the tool calls whose changes are undone, newest first"`
	Files     []RewindFile `json:"files" doc:"every file the calls changed, in the order they first changed it"`
	Conflicts int          `json:"conflicts" doc:"how many files have a conflict"`
	Recorded  string       `json:"recorded,omitempty" doc:"the toolCallId under which what a forced rewind overwrote is recorded; review.rollback of it brings that content back"`
	Note      string       `json:"note" doc:"what hostd cannot undo"`
}

// RewindFile is what a rewind does, or would do, to one file.
type RewindFile struct {
	Path string `json:"path"`
	// Action: restore (content back), remove (the calls created it),
	// merge, force, keep (left as it is), or conflict (no resolve given).
	Action    string          `json:"action" doc:"restore, remove, merge, force, keep, or conflict (a dry run or a refusal without resolve)"`
	Diff      string          `json:"diff" doc:"what the file gets, as a unified diff from what it holds now; for a conflict, what force would do"`
	MergeDiff string          `json:"mergeDiff,omitempty" doc:"for a conflict that merges cleanly, what merge would do"`
	Calls     []string        `json:"calls" doc:"the calls whose changes of this file are undone, newest first"`
	Conflict  *RewindConflict `json:"conflict,omitempty"`
}

// RewindConflict says why a file cannot simply be rewound, and the ways
// forward.
type RewindConflict struct {
	Reason    string       `json:"reason"`
	ChangedBy []PathChange `json:"changedBy,omitempty" doc:"recorded tool calls, of any session, that changed it since; absent when what changed it is not in hostd's record (a person, a formatter, a shell command)"`
	Choices   []string     `json:"choices" doc:"the resolves that can deal with it: keepTheirs, merge (only when the edits touch different lines), force"`
	Overlap   []string     `json:"overlap,omitempty" doc:"when merge cannot keep both, the lines both changed"`
}

// PathChange is one recorded tool call that changed a file.
type PathChange struct {
	SessionID  string    `json:"sessionId"`
	ToolCallID string    `json:"toolCallId"`
	Tool       string    `json:"tool"`
	At         time.Time `json:"at"`
}
