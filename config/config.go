// Package config owns hostd's settings: every limit of the edit contract
// (edit-contract §4.4 and §12) and of the wire contract (wire-contract §1) as a
// named, documented default, the config file that overrides them, and the
// command-line flags that override the file. It holds values only; the
// packages that enforce a limit receive it through their constructors.
package config

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"time"

	"github.com/hostd-dev/hostd/internal/endpoint"
)

// Limits are the bounds hostd enforces. The JSON names are the camelCase
// names host.info reports and the config file uses: host.info sends them
// as wire.Limits, the same fields, converted by rpc.
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

const (
	kib = 1 << 10
	mib = 1 << 20
)

// DefaultLimits returns the contract's values.
func DefaultLimits() Limits {
	return Limits{
		MaxPathsPerSession:         64,
		MaxVersionsPerPath:         4,
		MaxRetainedBytesPerSession: 8 * mib,
		MaxRetainedFileBytes:       2 * mib,
		MaxLedgerEntries:           4096,

		MaxLineChars:     16384,
		DefaultReadLimit: 2000,
		MaxReadLimit:     20000,
		MaxGrepMatches:   20000,
		MaxGrepFileBytes: 16 * mib,
		MaxWriteBytes:    32 * mib,
		MaxResultBytes:   512 * kib,

		MaxOpsPayloadBytes:    256 * kib,
		MaxOpsPerCall:         200,
		MaxExpandedLines:      100000,
		MaxRevealLines:        40,
		MaxRevealLineChars:    512,
		MaxRegisterLines:      4096,
		MaxRegisterBytes:      1 * mib,
		MaxNamedRegisters:     16,
		MaxBlockParseBytes:    4 * mib,
		RepeatGuardAttempts:   3,
		RecoveryDiffTimeoutMs: 2000,
		MaxParseMs:            500,

		MaxSessions:     256,
		MaxMCPSessions:  64,
		MaxFrameBytes:   64 * mib,
		ShutdownGraceMs: 10000,

		MaxMemoryBytes:   1024 * mib,
		MaxRetainedBytes: 256 * mib,
		MaxBudgetWaitMs:  10000,

		MaxParseTreeBytes:   256 * mib,
		MaxParseWorkers:     4,
		MaxParseWorkerBytes: 1024 * mib,

		MaxReviewEntriesPerSession: 2000,
		MaxReviewBytesPerSession:   256 * mib,
		MaxReviewEntries:           20000,
		MaxReviewBytes:             2048 * mib,
	}
}

// Config is everything hostd needs to start.
type Config struct {
	Stdio bool `json:"-"`
	// Standalone: a --stdio daemon that serves in its own process (it was
	// given its own state directory, or --standalone) instead of
	// forwarding to the user's shared daemon.
	Standalone bool `json:"-"`
	// IdleExit: a socket daemon shuts down once no client has been
	// connected for this long; 0 never.
	IdleExit time.Duration `json:"-"`
	// ConfigFile is the --config file, handed on to a shared daemon that
	// a forwarder starts.
	ConfigFile string `json:"-"`
	// RPCTrace logs every frame in and out, clipped (--rpc-trace).
	RPCTrace bool `json:"-"`

	Socket   string `json:"socket,omitempty"`
	StateDir string `json:"stateDir,omitempty"`
	LogFile  string `json:"logFile,omitempty"`
	LogLevel string `json:"logLevel,omitempty"`
	Limits   Limits `json:"limits"`
	// Encodings name the encoding of files that start with no byte-order
	// mark and are not UTF-8 (edit-contract §3.5); the last rule that
	// matches a file decides.
	Encodings []EncodingRule `json:"encodings,omitempty"`
	// LanguageServers: the language servers hostd runs
	// (docs/language-servers.md).
	LanguageServers LanguageServers `json:"languageServers"`
}

// Default returns a Config with the default socket, state directory and
// limits filled in from the environment.
func Default() Config {
	return Config{
		Socket:   DefaultSocketPath(),
		StateDir: DefaultStateDir(),
		LogLevel: "info",
		Limits:   DefaultLimits(),

		LanguageServers: DefaultLanguageServers(),
	}
}

// Load reads a JSON config file over c: the fields it names replace c's,
// the others keep their values. The file is one JSON object; unknown
// fields, a limit outside "limits", a second value after the object and a
// value of the wrong type are errors that give the file's line and column
// ("config FILE:LINE:COL: ..."), so a misspelt limit is reported instead
// of silently ignored. docs/config.md describes the format.
func (c *Config) Load(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	if err := c.load(data); err != nil {
		var pe *posError
		if errors.As(err, &pe) {
			line, col := position(data, pe.off)
			return fmt.Errorf("config %s:%d:%d: %s", path, line, col, pe.msg)
		}
		return fmt.Errorf("config %s: %w", path, err)
	}
	return nil
}

// Validate rejects limits that would disable a bound.
func (l Limits) Validate() error {
	ints := map[string]int64{
		"maxPathsPerSession": int64(l.MaxPathsPerSession), "maxVersionsPerPath": int64(l.MaxVersionsPerPath),
		"maxRetainedBytesPerSession": l.MaxRetainedBytesPerSession, "maxRetainedFileBytes": l.MaxRetainedFileBytes,
		"maxLedgerEntries": int64(l.MaxLedgerEntries), "maxLineChars": int64(l.MaxLineChars),
		"defaultReadLimit": int64(l.DefaultReadLimit), "maxReadLimit": int64(l.MaxReadLimit),
		"maxGrepMatches": int64(l.MaxGrepMatches), "maxGrepFileBytes": l.MaxGrepFileBytes,
		"maxWriteBytes": l.MaxWriteBytes, "maxResultBytes": l.MaxResultBytes, "maxOpsPayloadBytes": int64(l.MaxOpsPayloadBytes),
		"maxOpsPerCall": int64(l.MaxOpsPerCall), "maxExpandedLines": int64(l.MaxExpandedLines),
		"maxRevealLines": int64(l.MaxRevealLines), "maxRevealLineChars": int64(l.MaxRevealLineChars),
		"maxRegisterLines": int64(l.MaxRegisterLines), "maxRegisterBytes": l.MaxRegisterBytes,
		"maxNamedRegisters": int64(l.MaxNamedRegisters), "maxBlockParseBytes": l.MaxBlockParseBytes,
		"repeatGuardAttempts": int64(l.RepeatGuardAttempts), "recoveryDiffTimeoutMs": int64(l.RecoveryDiffTimeoutMs),
		"maxParseMs": int64(l.MaxParseMs), "maxSessions": int64(l.MaxSessions), "maxMcpSessions": int64(l.MaxMCPSessions), "maxFrameBytes": l.MaxFrameBytes, "shutdownGraceMs": int64(l.ShutdownGraceMs),
		"maxMemoryBytes": l.MaxMemoryBytes, "maxRetainedBytes": l.MaxRetainedBytes, "maxParseTreeBytes": l.MaxParseTreeBytes, "maxBudgetWaitMs": int64(l.MaxBudgetWaitMs),
		"maxParseWorkers": int64(l.MaxParseWorkers), "maxParseWorkerBytes": l.MaxParseWorkerBytes,
		"maxReviewEntriesPerSession": int64(l.MaxReviewEntriesPerSession), "maxReviewBytesPerSession": l.MaxReviewBytesPerSession,
		"maxReviewEntries": int64(l.MaxReviewEntries), "maxReviewBytes": l.MaxReviewBytes,
	}
	for _, name := range slices.Sorted(maps.Keys(ints)) {
		if v := ints[name]; v <= 0 {
			return &limitError{field: name, msg: fmt.Sprintf("must be positive, got %d", v)}
		}
	}
	if l.GrepThreads < 0 {
		return &limitError{field: "grepThreads", msg: fmt.Sprintf("must be 0 (one per CPU) or positive, got %d", l.GrepThreads)}
	}
	if share := l.MaxParseTreeBytes / int64(l.MaxParseWorkers); share < mib {
		return &limitError{field: "maxParseTreeBytes", msg: fmt.Sprintf("(%d) leaves each of limits.maxParseWorkers (%d) less than 1 MiB of trees", l.MaxParseTreeBytes, l.MaxParseWorkers)}
	}
	if l.DefaultReadLimit > l.MaxReadLimit {
		return &limitError{field: "defaultReadLimit", msg: fmt.Sprintf("(%d) exceeds limits.maxReadLimit (%d)", l.DefaultReadLimit, l.MaxReadLimit)}
	}
	return nil
}

// BudgetWait is MaxBudgetWaitMs as a duration.
func (l Limits) BudgetWait() time.Duration {
	return time.Duration(l.MaxBudgetWaitMs) * time.Millisecond
}

// ParseBudget is MaxParseMs as a duration.
func (l Limits) ParseBudget() time.Duration {
	return time.Duration(l.MaxParseMs) * time.Millisecond
}

// ShutdownGrace is ShutdownGraceMs as a duration.
func (l Limits) ShutdownGrace() time.Duration {
	return time.Duration(l.ShutdownGraceMs) * time.Millisecond
}

// DefaultSocketPath is the user's rendezvous (endpoint.Default: derived
// from the user's identity, not from the environment; wire-contract §1).
func DefaultSocketPath() string { return endpoint.Default() }

// DefaultStateDir is the user's state directory (endpoint.StateDir).
func DefaultStateDir() string { return endpoint.StateDir() }
