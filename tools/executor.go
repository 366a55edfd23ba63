// Package tools owns the file tools a model calls (read, grep, write,
// edit) and the executor that threads a session through to each of them.
// Tools resolve every path through the session's workspace, record what
// they display in the session's snapshot store, and change files only
// through workspace.WriteFile and workspace.RemoveFile. The edit language
// itself lives in tools/hashline and is pure. Nothing here speaks JSON-RPC.
package tools

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"go.uber.org/zap"

	"github.com/hostd-dev/hostd/budget"
	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/quote"
	"github.com/hostd-dev/hostd/review"
	"github.com/hostd-dev/hostd/session"
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
	// Blocks resolves syntactic block locators; nil when this build has
	// no grammars.
	Blocks BlockResolverFactory
	// Syntax checks whole texts for boundary repair; nil: no grammars,
	// so only exact restatements are repaired.
	Syntax SyntaxFactory
	// ToolName is the tool being run, as review records it.
	ToolName string
	// Budget is the daemon-wide memory budget the payloads a call applies
	// take from; nil: unlimited.
	Budget *budget.Budget
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
	Blocks   BlockResolverFactory
	Syntax   SyntaxFactory
	Tools    []Tool         // usually Builtin()
	Budget   *budget.Budget // the daemon-wide memory budget; nil: unlimited
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
	c := &Call{
		Session:    s,
		State:      s.State(),
		Args:       req.Args,
		PromptID:   req.PromptID,
		ToolCallID: id,
		Limits:     e.opt.Limits,
		Log:        e.opt.Log,
		Review:     e.opt.Review,
		Blocks:     e.opt.Blocks,
		Syntax:     e.opt.Syntax,
		ToolName:   req.Tool,
		Budget:     e.opt.Budget,
	}
	var out Outcome
	if err := ctx.Err(); err != nil {
		out = Failed(Errorf(CodeToolFailed, "the call was cancelled before it ran; nothing was changed, call again"))
	} else {
		out = t.Run(ctx, c)
	}
	finish(out, id)
	return out, nil
}

func newToolCallID() string {
	var b [8]byte
	rand.Read(b[:])
	return "tc-" + hex.EncodeToString(b[:])
}

// DecodeArgs decodes a tool's JSON arguments strictly: unknown fields and
// wrong types are INVALID_ARGUMENT naming the field.
func DecodeArgs(raw json.RawMessage, v any) *Error {
	if len(bytes.TrimSpace(raw)) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		raw = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return Errorf(CodeInvalidArgument, "argument %q must be a %s, not a JSON %s", te.Field, te.Type, te.Value)
		}
		return Errorf(CodeInvalidArgument, "arguments are not valid: %v; see the tool's inputSchema", err)
	}
	return nil
}
