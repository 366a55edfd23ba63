// Package tools owns the file tools a model calls (read, grep, write,
// edit) and the executor that threads a session through to each of them.
// Tools resolve every path through the session's workspace and record what
// they display in the session's snapshot store. They change files only
// through review's change API (review.Store.Apply, in mutate), which makes
// the change durable, reviewable and undoable; the edit language itself
// lives in tools/hashline and is pure. Nothing here speaks JSON-RPC.
package tools

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/internal/budget"
	"github.com/hostd-dev/hostd/internal/filelock"
	"github.com/hostd-dev/hostd/internal/quote"
	"github.com/hostd-dev/hostd/review"
	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/session"
	"github.com/hostd-dev/hostd/tools/langserver"
)

// ErrUnknownTool is returned by Execute for a tool name that does not exist
// (UNKNOWN_TOOL on the wire).
var ErrUnknownTool = errors.New("unknown tool")

// Call is one tool invocation with everything a tool needs.
type Call struct {
	Session    *session.Session
	State      *session.State // the session's state when the call started
	Args       json.RawMessage
	PromptID   string
	ToolCallID string
	Limits     config.Limits
	Log        *zap.Logger
	// Review records every mutation for review and rollback; nil when
	// review is off.
	Review *review.Store
	// Parser resolves block locators, checks texts for boundary repair,
	// outlines, finds the syntax errors a write or an edit added
	// (feedback.go) and warms what a read recorded; nil when this build
	// has no grammars.
	Parser Parser
	// Diagnostics are the language servers (diagnostics.go); nil: off.
	Diagnostics *langserver.Manager
	// DiagnosticsWait bounds how long a write or an edit waits for its
	// language server's errors.
	DiagnosticsWait time.Duration
	// ToolName is the tool being run, as review records it.
	ToolName string
	// Files are the daemon's per-file locks (lockFiles).
	Files *filelock.Table
	// Budget is the daemon-wide memory budget the payloads of write and
	// edit are held against (holdPayload); nil: unlimited.
	Budget *budget.Budget
}

// payloadFactor is how many times its size a file costs write or edit at
// their peak (the old bytes and text, the new text and bytes, the review
// record's copy), measured on a 31 MB file; holdPayload reserves that.
const payloadFactor = 6

// holdPayload reserves the memory a write or edit of a file of size bytes
// works with in the daemon-wide budget, waiting for room if other calls
// hold it, and refuses with HOST_BUSY past the budget's wait bound. Taken
// after the session's mutation lock and before the file locks, so a call
// waiting for memory blocks no other session's edit of the same file.
func (c *Call) holdPayload(ctx context.Context, size int64, what string) (func(), *wire.ToolError) {
	size = min(size, c.Limits.MaxWriteBytes+1) // larger is refused as FILE_TOO_LARGE on load
	if lim := c.Budget.Limit(); lim > 0 && payloadFactor*size > lim {
		return nil, Errorf(wire.ToolFileTooLarge, "%s needs about %d bytes of memory, more than the daemon's whole budget (limits.maxMemoryBytes %d); work on a smaller file", what, payloadFactor*size, lim)
	}
	rel, err := c.Budget.Acquire(ctx, payloadFactor*size, what)
	if err != nil {
		if ctx.Err() != nil {
			return nil, Errorf(wire.ToolFailed, "the call was cancelled while it waited for memory; nothing was changed, call again")
		}
		return nil, Errorf(wire.ToolHostBusy, "%v; nothing was changed", err)
	}
	return rel, nil
}

// lockFiles takes the daemon-wide locks of the canonical paths a mutation
// reads and then replaces, so the version it checks is the version it
// replaces whatever other sessions do meanwhile (lock order: the
// session's mutation lock, then these, then the review store's).
func (c *Call) lockFiles(ctx context.Context, abs ...string) (func(), *wire.ToolError) {
	unlock, err := c.Files.Lock(ctx, abs...)
	if err != nil {
		return nil, Errorf(wire.ToolFailed, "the call was cancelled while another call was changing the same file; nothing was changed, call again")
	}
	return unlock, nil
}

// Tool is one model-facing tool.
type Tool interface {
	Name() string
	Run(ctx context.Context, c *Call) Outcome
}

// Request is a tools.execute call.
type Request struct {
	SessionID  string
	Tool       string
	Args       json.RawMessage
	PromptID   string
	ToolCallID string
}

// Options configure an Executor.
type Options struct {
	Sessions *session.Manager
	Limits   config.Limits
	Log      *zap.Logger // nil: no logs
	Review   *review.Store
	// Parser is how the tools parse; nil: no grammars.
	Parser Parser
	// Diagnostics are the language servers; nil: off. DiagnosticsWait:
	// how long a write or an edit waits for them (0: the default).
	Diagnostics     *langserver.Manager
	DiagnosticsWait time.Duration
	Tools           []Tool // usually Builtin()
	// Files are the daemon-wide per-file locks; nil: the executor makes
	// its own. Rollback must share them (Executor.Files).
	Files *filelock.Table
	// Budget is the daemon-wide memory budget; nil: unlimited.
	Budget *budget.Budget
}

// Executor dispatches tool calls. It is safe for concurrent use: it holds
// no mutable state of its own; each session serializes its own mutations.
type Executor struct {
	opt   Options
	tools map[string]Tool
}

// NewExecutor returns an executor serving opt.Tools for opt.Sessions.
func NewExecutor(opt Options) *Executor {
	if opt.Log == nil {
		opt.Log = zap.NewNop()
	}
	if opt.Files == nil {
		opt.Files = &filelock.Table{}
	}
	if opt.DiagnosticsWait <= 0 {
		opt.DiagnosticsWait = langserver.DefaultDiagnosticsWait
	}
	e := &Executor{opt: opt, tools: make(map[string]Tool)}
	for _, t := range opt.Tools {
		e.tools[t.Name()] = t
	}
	return e
}

// Execute runs one tool call. A protocol-level problem (unknown session or
// tool) is an error; a tool that runs and fails is an Outcome with ok=false.
func (e *Executor) Execute(ctx context.Context, req Request) (Outcome, error) {
	s, err := e.opt.Sessions.Get(req.SessionID)
	if err != nil {
		return nil, err
	}
	t, ok := e.tools[req.Tool]
	if !ok {
		names := make([]string, 0, len(e.tools))
		for n := range e.tools {
			names = append(names, n)
		}
		slices.Sort(names)
		return nil, fmt.Errorf("%w: %s (tools: %v)", ErrUnknownTool, quote.Short(req.Tool), names)
	}
	id := req.ToolCallID
	if id == "" {
		id = newToolCallID()
	}
	// The call's roots stay open until it returns, whatever a switch or
	// a delete of the session does meanwhile.
	st, release, err := s.Hold()
	if err != nil {
		return nil, err
	}
	defer release()
	c := &Call{
		Session:         s,
		State:           st,
		Args:            req.Args,
		PromptID:        req.PromptID,
		ToolCallID:      id,
		Limits:          e.opt.Limits,
		Log:             e.opt.Log,
		Review:          e.opt.Review,
		Parser:          e.opt.Parser,
		Diagnostics:     e.opt.Diagnostics,
		DiagnosticsWait: e.opt.DiagnosticsWait,
		ToolName:        req.Tool,
		Files:           e.opt.Files,
		Budget:          e.opt.Budget,
	}
	ctx = context.WithValue(ctx, sessionKey{}, s.ID)
	start := time.Now()
	var out Outcome
	if err := ctx.Err(); err != nil {
		out = Failed(Errorf(wire.ToolFailed, "the call was cancelled before it ran; nothing was changed, call again"))
	} else {
		out = t.Run(ctx, c)
	}
	finish(out, id)
	e.logCall(req, id, out, time.Since(start))
	return out, nil
}

// sessionKey carries the calling session's id in a tool call's context.
type sessionKey struct{}

// CallSession is the id of the session whose tool call ctx belongs to, ""
// outside one. The Parser of Options gets it
// this way: the daemon's parse workers run one parse of a session at a
// time, so one session's slow texts never hold every worker.
func CallSession(ctx context.Context) string {
	id, _ := ctx.Value(sessionKey{}).(string)
	return id
}

// mutating names the tools that change files: their calls are logged at
// info level, as are failures; a successful read or grep at debug.
var mutating = map[string]bool{"write": true, "edit": true}

// logCall logs one tool call with what a person debugging needs: the
// session, the tool, the call id, the path, the outcome (ok or the error
// code) and the duration.
func (e *Executor) logCall(req Request, id string, out Outcome, took time.Duration) {
	r := out.Base()
	level := zap.DebugLevel
	if mutating[req.Tool] || !r.OK {
		level = zap.InfoLevel
	}
	ce := e.opt.Log.Check(level, "tool call")
	if ce == nil {
		return
	}
	var a struct {
		Path string `json:"path"`
	}
	json.Unmarshal(req.Args, &a)
	outcome := "ok"
	if r.Error != nil {
		outcome = r.Error.Code
	}
	ce.Write(
		zap.String("session", req.SessionID),
		zap.String("tool", req.Tool),
		zap.String("toolCallId", clipMessageTo(id, 128)),
		zap.String("path", clipMessageTo(a.Path, 512)),
		zap.String("outcome", outcome),
		zap.Duration("took", took),
	)
}

// Files are the per-file locks the executor's mutations take; a rollback
// must take the same ones.
func (e *Executor) Files() *filelock.Table { return e.opt.Files }

// jsonKind names a Go type as a JSON schema does.
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "a boolean (true or false)"
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		return "an array"
	}
	return "an object"
}

// argFields lists the JSON names of an argument struct's fields, quoted,
// for the message of an argument error.
func argFields(v any) []string {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var names []string
	if t.Kind() != reflect.Struct {
		return names
	}
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			names = append(names, strconv.Quote(name))
		}
	}
	return names
}

func newToolCallID() string {
	var b [8]byte
	rand.Read(b[:])
	return "tc-" + hex.EncodeToString(b[:])
}

// DecodeArgs decodes a tool's JSON arguments strictly: unknown fields and
// wrong types are INVALID_ARGUMENT naming the field.
func DecodeArgs(raw json.RawMessage, v any) *wire.ToolError {
	if len(bytes.TrimSpace(raw)) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		raw = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return Errorf(wire.ToolInvalidArgument, "argument %q must be %s, not a JSON %s", te.Field, jsonKind(te.Type), te.Value)
		}
		fields := argFields(v)
		if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			return Errorf(wire.ToolInvalidArgument, "unknown argument %s; this tool takes %s", clipMessageTo(name, 80), strings.Join(fields, ", "))
		}
		return Errorf(wire.ToolInvalidArgument, "the arguments must be one JSON object with the fields %s", strings.Join(fields, ", "))
	}
	return nil
}
