package wire

import (
	"encoding/json"
	"time"
)

// The params and results of every method the daemon serves, as they cross
// the wire. The daemon's method table dispatches on them and generates the
// OpenRPC document from them (json and doc tags); clients decode the same
// types. Every shape here is the wire's own, in plain structs: the domain
// packages convert to them at the handler, or build them for what they
// emit, so the protocol never takes its shape from a domain type's tags.

// HostInfo is the result of host.info.
type HostInfo struct {
	Name            string        `json:"name"`
	Version         string        `json:"version"`
	Commit          string        `json:"commit,omitempty" doc:"the commit the daemon was built from, when the build recorded it; a trailing +modified marks uncommitted changes"`
	ProtocolVersion int           `json:"protocolVersion"`
	PID             int           `json:"pid"`
	StartedAt       time.Time     `json:"startedAt"`
	Grammars        []string      `json:"grammars" doc:"languages block ops (N*) can resolve"`
	Limits          Limits        `json:"limits" doc:"every limit in force, by its config-file name"`
	Review          *ReviewHealth `json:"review,omitempty" doc:"present only when the review store needs attention"`
}

// ReviewHealth says that the review store was found damaged, at start or
// while running.
type ReviewHealth struct {
	Recovered *ReviewRecovery `json:"recovered,omitempty" doc:"the store was damaged at start: the file was moved aside (from) and a fresh, empty store started"`
	Broken    string          `json:"broken,omitempty" doc:"the store turned out damaged while running: review calls and changes fail until hostd restarts"`
}

// ExternalRoot is an approved root outside the workspace.
type ExternalRoot struct {
	Path     string `json:"path" doc:"absolute directory"`
	Writable bool   `json:"writable,omitempty" doc:"tools may write under it (default false: read-only)"`
}

// SessionCreateParams are the params of session.create.
type SessionCreateParams struct {
	Workspace     string         `json:"workspace" doc:"absolute path of the workspace root directory"`
	Scratch       string         `json:"scratch,omitempty" doc:"absolute path of a writable scratch directory"`
	ExternalRoots []ExternalRoot `json:"externalRoots,omitempty"`
	SessionID     string         `json:"sessionId,omitempty" doc:"re-attach under this id (letters, digits, - _ . :); generated when absent"`
	EditResult    ResultForm     `json:"editResult,omitempty" doc:"\"compact\" (default) or \"full\": the form of this session's edit results when a call does not choose one; a session re-attached by id keeps its own"`
}

// SessionRef is a session and its canonical workspace root.
type SessionRef struct {
	SessionID string `json:"sessionId"`
	Workspace string `json:"workspace" doc:"canonical workspace root: absolute, symlinks resolved"`
	// EditResult is the session's form, reported by session.create
	// (whichever it is: a client written when the default was full
	// reads "compact" as it always did).
	EditResult string `json:"editResult,omitempty" doc:"the form of the session's edit results when a call does not choose one: \"compact\" or \"full\" (session.create reports it)"`
}

// SessionIDParams name one session.
type SessionIDParams struct {
	SessionID string `json:"sessionId"`
}

// SessionList is the result of session.list.
type SessionList struct {
	Sessions []SessionInfo `json:"sessions"`
}

// SetWorkspaceParams are the params of session.setWorkspace.
type SetWorkspaceParams struct {
	SessionID string `json:"sessionId"`
	Workspace string `json:"workspace" doc:"absolute path of the new workspace root directory"`
}

// ExecuteParams are the params of tools.execute.
type ExecuteParams struct {
	SessionID  string          `json:"sessionId"`
	Tool       string          `json:"tool" doc:"a name from tools.definitions"`
	Args       json.RawMessage `json:"args,omitempty" doc:"the tool's arguments, as its inputSchema describes"`
	PromptID   string          `json:"promptId,omitempty" doc:"the user prompt (turn) this call belongs to; the repeat guard counts only with it"`
	ToolCallID string          `json:"toolCallId,omitempty" doc:"keys review entries; generated and returned when absent"`
}

// Stats is the result of debug.stats.
type Stats struct {
	Sessions      int                  `json:"sessions"`
	RetainedBytes int64                `json:"retainedBytes" doc:"snapshot text retained across every session"`
	Snapshots     int                  `json:"snapshots"`
	Registers     int                  `json:"registers" doc:"named registers across every session"`
	UptimeMs      int64                `json:"uptimeMs"`
	Goroutines    int                  `json:"goroutines"`
	HeapBytes     uint64               `json:"heapBytes"`
	Calls         map[string]CallStats `json:"calls" doc:"per method; (unknown) counts calls of methods that do not exist"`
	Review        *ReviewStats         `json:"review,omitempty" doc:"the durable review store's usage; absent without one"`
	Connections   ConnectionStats      `json:"connections"`
	Budget        *BudgetStats         `json:"budget,omitempty" doc:"the daemon-wide memory budget (limits.maxMemoryBytes); absent without one"`
	Collector     Collector            `json:"collector" doc:"the Go collector's limit and target, which the daemon's memory governor sets, and its work so far"`
}

// ConnectionStats are the connections' outgoing queues in debug.stats.
type ConnectionStats struct {
	Open                 int          `json:"open"`
	DroppedNotifications int64        `json:"droppedNotifications" doc:"notifications not sent because a client's queue was full, since the daemon started"`
	SlowClosed           int64        `json:"slowClosed" doc:"connections closed because a frame was not accepted within the write timeout"`
	Queues               []QueueStats `json:"queues" doc:"one per open connection, oldest first"`
}

// QueueStats is one connection's outgoing queue.
type QueueStats struct {
	Conn                 uint64 `json:"conn" doc:"the connection's number in the daemon's log"`
	QueuedFrames         int    `json:"queuedFrames"`
	QueuedBytes          int    `json:"queuedBytes"`
	DroppedNotifications int64  `json:"droppedNotifications"`
}

// ReviewStats is the review store's usage in debug.stats.
type ReviewStats struct {
	Entries        int   `json:"entries"`
	Calls          int   `json:"calls"`
	Bytes          int64 `json:"bytes"`
	PendingIntents int   `json:"pendingIntents" doc:"mutations or rollbacks not yet settled"`
	EvictedCalls   int64 `json:"evictedCalls" doc:"calls dropped by retention since the daemon started"`
	// The same notices as host.info's review field.
	Recovered *ReviewRecovery `json:"recovered,omitempty" doc:"the store was damaged at start and moved aside; a fresh one started"`
	Broken    string          `json:"broken,omitempty" doc:"the store turned out damaged while running"`
}

// SessionDump is the result of debug.session.
type SessionDump struct {
	SessionID     string         `json:"sessionId"`
	Workspace     string         `json:"workspace"`
	RetainedBytes int64          `json:"retainedBytes"`
	Paths         []PathDump     `json:"paths" doc:"coldest first"`
	Registers     []RegisterInfo `json:"registers" doc:"coldest first"`
}

// PathDump is one path's retained history.
type PathDump struct {
	Path     string        `json:"path" doc:"as the model sees it: workspace-relative, or absolute outside the workspace"`
	Versions []VersionDump `json:"versions" doc:"newest first"`
}

// VersionDump is one recorded version of a path.
type VersionDump struct {
	Tag        string    `json:"tag"`
	Bytes      int64     `json:"bytes"`
	Lines      int       `json:"lines"`
	SeenLines  LineSet   `json:"seenLines"`
	Retained   bool      `json:"retained" doc:"the full text is kept (false: tagged only, over limits.maxRetainedFileBytes)"`
	RecordedAt time.Time `json:"recordedAt"`
}

// ReviewListParams are the params of review.list.
type ReviewListParams struct {
	SessionID string `json:"sessionId"`
	Path      string `json:"path,omitempty" doc:"keep only this file's entries: workspace-relative or absolute"`
}

// ReviewList is the result of review.list.
type ReviewList struct {
	Entries []ReviewEntry `json:"entries" doc:"oldest first"`
}

// ReviewSessions is the result of review.sessions.
type ReviewSessions struct {
	Sessions []ReviewSession `json:"sessions" doc:"most recently changed first"`
}

// RollbackParams are the params of review.rollback.
type RollbackParams struct {
	SessionID  string `json:"sessionId"`
	ToolCallID string `json:"toolCallId"`
}

// RollbackResult is the result of review.rollback.
type RollbackResult struct {
	Restored []string `json:"restored" doc:"the paths put back, as the model sees them"`
}

// RewindParams are the params of review.rewind: a session, and exactly
// one of promptId, since, toolCallId and all.
type RewindParams struct {
	SessionID    string            `json:"sessionId"`
	PromptID     string            `json:"promptId,omitempty" doc:"rewind every change of this user turn (tools.execute's promptId)"`
	Since        string            `json:"since,omitempty" doc:"rewind the changes of this tool call and of every later call of the session"`
	ToolCallID   string            `json:"toolCallId,omitempty" doc:"rewind the changes of this one tool call (review.rollback, with the ways forward from a conflict)"`
	All          bool              `json:"all,omitempty" doc:"rewind every change of the session"`
	DryRun       bool              `json:"dryRun,omitempty" doc:"answer what would be done, file by file with diffs and conflicts, and write nothing"`
	Resolve      string            `json:"resolve,omitempty" doc:"what to do with every conflicted file: keepTheirs (leave it, rewind the rest), merge (keep the later edits where they touch other lines; refused with the lines when they overlap) or force (restore anyway; what it overwrites is recorded as an entry of its own); absent: a conflict refuses the rewind"`
	ResolveFiles map[string]string `json:"resolveFiles,omitempty" doc:"per file (as the answer's files[].path shows it), what to do with it when it conflicts: keepTheirs, merge or force; overrides resolve for that file"`
}

// CallStats are one method's figures in debug.stats.
type CallStats struct {
	Count  uint64 `json:"count"`
	Errors uint64 `json:"errors" doc:"calls answered with an error, and tools.execute calls whose tool failed (ok: false)"`
	P50Us  int64  `json:"p50Us" doc:"median latency of the most recent calls, microseconds"`
	P99Us  int64  `json:"p99Us" doc:"99th-percentile latency of the most recent calls, microseconds"`
}

// NoParams is the params type of a method that takes none.
type NoParams struct{}

// Empty is the result of a method that answers {}.
type Empty struct{}
