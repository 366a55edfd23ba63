package client

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/hostd-dev/hostd/rpc/wire"
)

// Error is a JSON-RPC error the daemon answered with, named as
// wire-contract §2 names it.
type Error struct {
	Code    int64
	Name    string // error.data.code, else the protocol code's name, else "ERROR"
	Message string
	Data    json.RawMessage // error.data as sent, for details
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s (%d): %s", e.Name, e.Code, e.Message)
}

func newError(e *jsonrpc2.Error) *Error {
	out := &Error{Code: e.Code, Message: e.Message}
	if e.Data != nil {
		out.Data = *e.Data
		var d wire.ErrorData
		if json.Unmarshal(*e.Data, &d) == nil && d.Code != "" {
			out.Name = d.Code
		}
	}
	if out.Name == "" {
		out.Name = wire.CodeName(e.Code)
	}
	if out.Name == "" {
		out.Name = "ERROR"
	}
	return out
}

// Is reports whether err is the daemon answering with code.
func Is(err error, code wire.Code) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code.Num
}
