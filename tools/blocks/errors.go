package blocks

import (
	"errors"
	"fmt"
)

// Sentinels for the ways a block op declines. Every decline is an
// *UnresolvedError that unwraps to one of the first nine, so the tool layer
// can tell them apart with errors.Is without parsing the reason.
var (
	// ErrUnsupported: no grammar for this file type. Block ops only are
	// lost; ranges and gaps still work.
	ErrUnsupported = errors.New("block ops unavailable for this file type")
	// ErrTooLarge: the text is over the block-resolution parse limit
	// (edit-contract §12, config.Limits.MaxBlockParseBytes).
	ErrTooLarge = errors.New("file too large to parse for block ops")
	// ErrNotClean: the file does not parse without errors, so no span is
	// trusted (edit-contract §8.2).
	ErrNotClean = errors.New("file does not parse cleanly")
	// ErrUnsafe: the text has a shape its grammar is known to crash on
	// (guard.go), so it is never parsed.
	ErrUnsafe = errors.New("file cannot be parsed safely for block ops")
	// ErrParseTime: the parse did not finish within the edit call's parse
	// time (config.Limits.MaxParseMs), or that time was already spent.
	ErrParseTime = errors.New("file could not be parsed in time for block ops")
	// ErrParseBusy: every parse worker stayed busy with other requests
	// for as long as a request waits for one (tools/parsepool, workerWait), so
	// the file was not parsed. Unlike ErrParseTime it says nothing of the
	// file: the same call again, a moment later, may well be served.
	ErrParseBusy = errors.New("the parse workers were all busy")
	// ErrLineRange: the anchor is not a line of the file.
	ErrLineRange = errors.New("line outside the file")
	// ErrNoBlock: the line opens no multi-line construct (blank, comment,
	// closing delimiter, last line, single-line statement, a decorator that
	// is not the first of its run).
	ErrNoBlock = errors.New("no block opens at this line")
	// ErrParserFailed: the parse worker process ended while parsing the
	// file (a grammar's abort, the worker's memory limit) or could not be
	// started (tools/parsepool). The daemon lives on; only this file's parse
	// is lost.
	ErrParserFailed = errors.New("the parser failed on this file")

	// ErrClosed is returned by Resolve after Close.
	ErrClosed = errors.New("blocks: resolver is closed")
	// ErrInvalidLimit is returned by NewResolver for a non-positive parse
	// limit: a zero limit would silently disable block ops.
	ErrInvalidLimit = errors.New("blocks: parse limit must be positive")
)

// UnresolvedError is a declined block op. Its message is what the model
// reads: why there is no block and, when the host can name it, the plain
// range to use instead.
type UnresolvedError struct {
	// Line is the anchor line (1-based).
	Line int
	// Reason says why no block resolved.
	Reason string
	// Alternative is the plain-range op the model should use instead, e.g.
	// "PUT 12.=30:", when the host can name the range; otherwise "".
	Alternative string
	// Start and End are the inclusive lines Alternative names (0 when it
	// is empty), so a caller can phrase the alternative for its own op
	// (CUT 12.=30, PUT 12.=30 @name).
	Start, End int
	// Kind is the sentinel this decline unwraps to.
	Kind error
}

func (e *UnresolvedError) Error() string {
	if e.Alternative == "" {
		return e.Reason
	}
	return e.Reason + "; use the plain range " + e.Alternative + " instead"
}

// Unwrap returns the sentinel of the decline's kind.
func (e *UnresolvedError) Unwrap() error { return e.Kind }

// PlainRange reports the range Alternative names. It lets a caller that
// must not import this package (the pure edit language) read the range
// through a small interface.
func (e *UnresolvedError) PlainRange() (start, end int, ok bool) {
	return e.Start, e.End, e.Alternative != ""
}

// DeclineReason is the reason alone, without the alternative, for a
// caller that phrases the alternative for its own op.
func (e *UnresolvedError) DeclineReason() string { return e.Reason }

// Decline builds an UnresolvedError without an alternative.
func Decline(kind error, line int, format string, args ...any) *UnresolvedError {
	return &UnresolvedError{Line: line, Reason: fmt.Sprintf(format, args...), Kind: kind}
}

// withRange attaches the plain range start..end as the alternative.
func (e *UnresolvedError) withRange(start, end int) *UnresolvedError {
	e.Start, e.End = start, end
	e.Alternative = fmt.Sprintf("PUT %d.=%d:", start, end)
	return e
}

// PlainOps is the reminder every file-wide decline carries: only block
// locators are lost.
const PlainOps = "every range and gap op still works (PUT N.=M:, CUT N.=M, PUT <N:, PUT >N:)"
