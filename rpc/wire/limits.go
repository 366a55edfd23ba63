package wire

// Limits are the bounds a daemon enforces, as host.info reports them: by
// the camelCase names its config file uses. The daemon's own settings are
// config.Limits, field for field the same: the handler converts one to
// the other with a Go conversion, so the compiler holds the two lists
// equal, and a limit added to one and not the other does not build.
type Limits struct {
	// Snapshot store, edit-contract §4.4.
	MaxPathsPerSession         int   `json:"maxPathsPerSession"`         // 64: LRU eviction of the coldest path history
	MaxVersionsPerPath         int   `json:"maxVersionsPerPath"`         // 4: oldest dropped first
	MaxRetainedBytesPerSession int64 `json:"maxRetainedBytesPerSession"` // 8 MiB: LRU path eviction until under
	MaxRetainedFileBytes       int64 `json:"maxRetainedFileBytes"`       // 2 MiB: larger files are tagged, not retained
	MaxLedgerEntries           int   `json:"maxLedgerEntries"`           // minted (path, tag) pairs remembered per session (edit-contract §4.5)

	// Producers, edit-contract §5.
	MaxLineChars     int   `json:"maxLineChars"`     // 16,384: longer lines are clipped and not seen
	DefaultReadLimit int   `json:"defaultReadLimit"` // 2,000 lines per read by default
	MaxReadLimit     int   `json:"maxReadLimit"`     // the largest window one read returns
	MaxGrepMatches   int   `json:"maxGrepMatches"`   // grep stops collecting after this many matches
	MaxGrepFileBytes int64 `json:"maxGrepFileBytes"` // grep skips files larger than this
	GrepThreads      int   `json:"grepThreads"`      // goroutines one grep searches on; 0: GOMAXPROCS
	MaxWriteBytes    int64 `json:"maxWriteBytes"`    // largest content a write accepts
	MaxResultBytes   int64 `json:"maxResultBytes"`   // lines a read or grep shows stop past this many bytes, with a notice

	// Edit, edit-contract §12.
	MaxOpsPayloadBytes    int   `json:"maxOpsPayloadBytes"`    // 256 KB: INVALID_ARGUMENT
	MaxOpsPerCall         int   `json:"maxOpsPerCall"`         // 200: INVALID_ARGUMENT
	MaxExpandedLines      int   `json:"maxExpandedLines"`      // 100,000: EDIT_AMPLIFICATION_LIMIT
	MaxRevealLines        int   `json:"maxRevealLines"`        // 40: truncate the reveal, merge nothing
	MaxRevealLineChars    int   `json:"maxRevealLineChars"`    // 512: clip, mark truncated, merge nothing
	MaxRegisterLines      int   `json:"maxRegisterLines"`      // 4,096: INVALID_ARGUMENT on the CUT
	MaxRegisterBytes      int64 `json:"maxRegisterBytes"`      // 1 MiB: INVALID_ARGUMENT on the CUT
	MaxNamedRegisters     int   `json:"maxNamedRegisters"`     // 16: LRU eviction of the coldest
	MaxBlockParseBytes    int64 `json:"maxBlockParseBytes"`    // 4 MiB: decline the block op
	RepeatGuardAttempts   int   `json:"repeatGuardAttempts"`   // 3: counted failures on one path in one prompt stop the turn
	RecoveryDiffTimeoutMs int   `json:"recoveryDiffTimeoutMs"` // bound on the drift-recovery diff
	MaxParseMs            int   `json:"maxParseMs"`            // 500: parse time of one edit call (block ops and repair checks together)

	// Daemon, wire-contract §1.
	MaxSessions int `json:"maxSessions"` // SESSION_LIMIT past this
	// MaxMCPSessions, 64: MCP sessions (each with its hostd session) one
	// `hostd mcp` holds at once, at most half of maxSessions; past it the
	// least recently used idle one is ended.
	MaxMCPSessions  int   `json:"maxMcpSessions"`
	MaxFrameBytes   int64 `json:"maxFrameBytes"`   // 64 MiB: a larger frame closes that connection
	ShutdownGraceMs int   `json:"shutdownGraceMs"` // how long in-flight calls may finish on shutdown

	// Daemon-wide memory (the hardening issue): every per-call bound holds
	// alone, these hold their sum.
	MaxMemoryBytes   int64 `json:"maxMemoryBytes"`   // 1 GiB: bytes in flight (frames being read, payloads being applied); over it a call waits, then is refused as retriable
	MaxRetainedBytes int64 `json:"maxRetainedBytes"` // 256 MiB: snapshot text retained across all sessions (one LRU over them)
	MaxBudgetWaitMs  int   `json:"maxBudgetWaitMs"`  // 10 s: how long a call waits for room in maxMemoryBytes
	// MaxParseTreeBytes, 256 MiB: parse trees kept across all sessions
	// (C memory, estimated from their texts' tokens), least recently used
	// evicted past it.
	MaxParseTreeBytes int64 `json:"maxParseTreeBytes"`
	// MaxParseWorkers, 4: the parse worker processes that run at once
	// (tree-sitter parses outside the daemon); each keeps an even share
	// of MaxParseTreeBytes.
	MaxParseWorkers int `json:"maxParseWorkers"`
	// MaxParseWorkerBytes, 1 GiB: the memory each parse worker may take
	// (beyond what it maps at start, where the system counts it so);
	// past it the worker ends and its parse is declined.
	MaxParseWorkerBytes int64 `json:"maxParseWorkerBytes"`

	// Review store, wire-contract §5.
	MaxReviewEntriesPerSession int   `json:"maxReviewEntriesPerSession"`
	MaxReviewBytesPerSession   int64 `json:"maxReviewBytesPerSession"`
	MaxReviewEntries           int   `json:"maxReviewEntries"`
	MaxReviewBytes             int64 `json:"maxReviewBytes"`
}
