package rpc

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/hostd-dev/hostd/internal/budget"
	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/session"
	"github.com/hostd-dev/hostd/tools"
	"github.com/hostd-dev/hostd/workspace"
)

// sentinel maps a domain error to its wire code.
type sentinel struct {
	err  error
	code wire.Code
}

// sentinels, with reviewSentinels, are the one place domain errors become
// wire codes. The first match wins, so more specific errors come first.
var sentinels = []sentinel{
	{session.ErrNotFound, wire.CodeSessionNotFound},
	{session.ErrLimit, wire.CodeSessionLimit},
	{session.ErrConflict, wire.CodeInvalidParams},
	{session.ErrBadID, wire.CodeInvalidParams},
	{session.ErrBadPref, wire.CodeInvalidParams},
	{workspace.ErrInvalid, wire.CodeWorkspaceInvalid},
	{tools.ErrUnknownTool, wire.CodeUnknownTool},
	{budget.ErrOverBudget, wire.CodeOverloaded},
	{errShuttingDown, wire.CodeShuttingDown},
	{context.Canceled, wire.CodeRequestCancelled},
	{context.DeadlineExceeded, wire.CodeRequestCancelled},
}

var errShuttingDown = errors.New("hostd is shutting down; reconnect once it has restarted")

// wireError is an error that already carries its wire code.
type wireError struct {
	code  wire.Code
	msg   string
	field string
}

func (e *wireError) Error() string { return e.msg }

func newError(code wire.Code, format string, args ...any) *wireError {
	return &wireError{code: code, msg: fmt.Sprintf(format, args...)}
}

// paramError is a params problem at one JSON path, such as
// "params.workspace: must be a string" (-32602 naming the field).
func paramError(path, problem string) *wireError {
	return &wireError{code: wire.CodeInvalidParams, msg: path + ": " + problem, field: path}
}

// toWire maps any handler error to the JSON-RPC error the client receives.
// Errors hostd does not recognise are INTERNAL_ERROR with their message;
// they are bugs, and the caller logs them.
func toWire(err error) (*jsonrpc2.Error, bool) {
	var we *wireError
	if errors.As(err, &we) {
		return makeError(we.code, we.msg, we.field), true
	}
	for _, list := range [][]sentinel{sentinels, reviewSentinels} {
		for _, s := range list {
			if errors.Is(err, s.err) {
				return makeError(s.code, err.Error(), ""), true
			}
		}
	}
	return makeError(wire.CodeInternal, err.Error(), ""), false
}

// maxMessageBytes caps an error message. Client strings are quoted short
// where messages are made (package quote); this cap keeps an answer small
// even when a message from elsewhere quotes one whole.
const maxMessageBytes = 2 << 10

func makeError(code wire.Code, msg, field string) *jsonrpc2.Error {
	if len(msg) > maxMessageBytes {
		msg = strings.ToValidUTF8(msg[:maxMessageBytes], "") + fmt.Sprintf("… (message cut at %d of %d bytes)", maxMessageBytes, len(msg))
	}
	if len(field) > maxMessageBytes {
		field = strings.ToValidUTF8(field[:maxMessageBytes], "") + "…"
	}
	e := &jsonrpc2.Error{Code: code.Num, Message: msg}
	e.SetError(wire.ErrorData{Code: code.Name, Field: field})
	return e
}
