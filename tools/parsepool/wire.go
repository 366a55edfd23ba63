package parsepool

import (
	"errors"
	"fmt"
	"time"

	"github.com/hostd-dev/hostd/tools/blocks"
	"github.com/hostd-dev/hostd/tools/syntax"
	"github.com/hostd-dev/hostd/workspace"
)

// The messages between the daemon and a parse worker (workers.go,
// worker.go), one gob stream each way over the worker's stdin and
// stdout. The daemon sends a workerConfig, the worker answers a
// workerHello; then every request gets exactly one response, in order.
// A worker serves one request at a time.

// workerProtocol changes with any change to the messages below that a
// worker of the same number would misread: a worker started from a
// binary replaced on disk since the daemon started (an upgrade) answers
// with its own, and is refused. A new op with new fields is not such a
// change: gob leaves out the fields a worker does not know, and a worker
// that does not know the op answers it as an unknown request, which the
// daemon takes as a check it could not make. 2: opErrors takes Known
// and answers Old, which a worker of 1 would leave out, so a chain of
// changes would lose the errors it started from.
const workerProtocol = 2

// workerConfig is the first message to a worker.
type workerConfig struct {
	MaxTreeBytes   int64 // the worker's tree cache bound (NewTrees)
	MaxMemoryBytes int64 // the memory the worker may grow by (limitMemory); 0: none
}

// workerHello is the worker's answer to its config: it is ready.
type workerHello struct {
	Protocol int
	PID      int
	// Limit says what memory limit the worker put on itself, as text for
	// the daemon's log ("" when the platform enforces it from outside).
	Limit string
	Err   string // the worker cannot serve: why
}

// workerOp is what a request asks.
type workerOp uint8

const (
	opResolve workerOp = iota + 1 // the block opening at Line of Text
	opCheck                       // whether Text parses cleanly, from Base's tree
	opOutline                     // the outline of lines From..To of Text
	opStats                       // the worker's tree cache counters
	opErrors                      // the error regions Text added to Base (AddedErrors)
	opWarm                        // parse Text and keep its tree (Workers.Warm)
)

// workerRequest is one question to a worker.
type workerRequest struct {
	Op workerOp
	// Handle names the daemon-side resolver or syntax checker asking, so
	// the worker keeps its state (the resolver's tree, the checker's last
	// candidate) between its requests. 0 for an outline.
	Handle uint64
	Path   string
	// Text is the text asked about. For a resolver whose handle the worker
	// already holds it may be left out (HasText false): the worker then
	// answers NeedText if it no longer holds the handle.
	Text    string
	HasText bool
	// Base is a checker's current text (opCheck), sent with the first
	// request of the handle to this worker (HasBase), as Text is; for
	// opErrors, the file before the change (HasBase false: there was
	// none), sent every time.
	Base    string
	HasBase bool
	// Delta: a check's Text is only what differs from Base: the
	// candidate is Base's first Prefix bytes, Text, and Base's last
	// Suffix bytes. A candidate differs from the file in a few lines, so
	// a check moves a few bytes, not the file.
	Delta          bool
	Prefix, Suffix int
	Line           int              // opResolve
	From, To       int              // opOutline
	Copies         []workspace.Copy // opErrors: the lines the change left as they were
	// Known are opErrors' regions of Base's that count as Base's own: the
	// errors of the version a chain of changes started from.
	Known    []syntax.ErrorRegion
	MaxBytes int64
	// Limit is the parse time the request may spend; the daemon ends
	// the worker if no answer comes within it and killGrace.
	Limit time.Duration
	// Release lists handles the daemon is done with.
	Release []uint64
}

// workerResponse is a worker's answer.
type workerResponse struct {
	NeedText bool // the handle is gone: send the request again with its texts
	// opResolve: the span, or the decline; FileWide says the decline
	// holds for every line (the file could not be parsed cleanly).
	Start, End int
	Decline    *wireDecline
	FileWide   bool
	// opCheck.
	Supported, Clean bool
	Why              blocks.Failure // why the text was not judged: spent, timeout
	// opOutline: the rows, or the error (in Decline).
	Decls []syntax.Decl
	// opErrors: the regions added, or why none could be found (Decline);
	// Old, Base's own regions.
	Errors []syntax.ErrorRegion
	Old    []syntax.ErrorRegion
	// opStats.
	Trees blocks.TreeStats
}

// wireDecline carries an *UnresolvedError or an *OutlineError.
type wireDecline struct {
	Line        int
	Reason      string
	Alternative string
	Start, End  int
	Kind        uint8 // index in wireKinds
	Outline     bool  // an *OutlineError
}

// wireKinds are the sentinels a decline unwraps to, by their index
// on the wire.
var wireKinds = []error{nil, blocks.ErrUnsupported, blocks.ErrTooLarge, blocks.ErrNotClean, blocks.ErrUnsafe, blocks.ErrParseTime, blocks.ErrLineRange, blocks.ErrNoBlock, blocks.ErrParserFailed}

func kindIndex(err error) uint8 {
	for i, k := range wireKinds {
		if k != nil && errors.Is(err, k) {
			return uint8(i)
		}
	}
	return 0
}

func kindAt(i uint8) error {
	if int(i) < len(wireKinds) {
		return wireKinds[i]
	}
	return nil
}

// toWire encodes a decline of Resolve or Outline; nil for any other
// error (which a worker never returns for either).
func toWire(err error) *wireDecline {
	var ue *blocks.UnresolvedError
	var oe *blocks.OutlineError
	switch {
	case errors.As(err, &ue):
		return &wireDecline{Line: ue.Line, Reason: ue.Reason, Alternative: ue.Alternative, Start: ue.Start, End: ue.End, Kind: kindIndex(ue.Kind)}
	case errors.As(err, &oe):
		return &wireDecline{Reason: oe.Reason, Kind: kindIndex(oe.Kind), Outline: true}
	case err != nil:
		k := kindIndex(err)
		if k == 0 {
			k = kindIndex(blocks.ErrParserFailed)
		}
		return &wireDecline{Reason: err.Error(), Kind: k}
	}
	return nil
}

// unresolved rebuilds the decline a worker sent.
func (d *wireDecline) unresolved() *blocks.UnresolvedError {
	return &blocks.UnresolvedError{Line: d.Line, Reason: d.Reason, Alternative: d.Alternative, Start: d.Start, End: d.End, Kind: kindAt(d.Kind)}
}

// plain rebuilds any other error a worker sent, unwrapping to its kind.
func (d *wireDecline) plain() error {
	if k := kindAt(d.Kind); k != nil {
		return &declineError{reason: d.Reason, kind: k}
	}
	return fmt.Errorf("%s", d.Reason)
}

// declineError is an error a worker sent, with the sentinel of its kind.
type declineError struct {
	reason string
	kind   error
}

func (e *declineError) Error() string { return e.reason }
func (e *declineError) Unwrap() error { return e.kind }

// outline rebuilds the outline error a worker sent.
func (d *wireDecline) outline() *blocks.OutlineError {
	return &blocks.OutlineError{Reason: d.Reason, Kind: kindAt(d.Kind)}
}

// minDeltaBytes is the smallest candidate a check sends as what differs
// from the file rather than whole.
const minDeltaBytes = 4 << 10
