package rpc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/tools"
)

// The error codes in the OpenRPC document, generated from their Go
// definitions so that a client's types cannot fall behind them:
//
//   - components.errors: every JSON-RPC error hostd answers with
//     (wire.Codes), protocol codes included, each with x-retriable and
//     x-description;
//   - x-tool-errors: every tool error code (tools.ErrorCodes), retriable
//     or not, with the JSON Schema of its details, made from the Go type
//     the tools set them with;
//   - x-repeat-guard-details: what the repeat guard adds to details when
//     it stops a turn (tools.RepeatGuardDetails).

// OpenRPCErrorDef is one entry of components.errors: an OpenRPC error
// object, with whether the same request can succeed sent again
// (x-retriable) and what to do about it (x-description).
type OpenRPCErrorDef struct {
	Code        int64          `json:"code"`
	Message     string         `json:"message"`
	Data        wire.ErrorData `json:"data"`
	Retriable   bool           `json:"x-retriable"`
	Description string         `json:"x-description"`
}

// OpenRPCToolError is one entry of x-tool-errors: a code a tool result
// with ok: false carries in error.code (wire-contract §4).
type OpenRPCToolError struct {
	Code        string `json:"code"`
	Retriable   bool   `json:"retriable"`
	Description string `json:"description"`
	// Details is the schema of error.details; absent for a code that
	// carries none (but the repeat guard's).
	Details schema `json:"details,omitempty"`
}

// OpenRPCErrors is components.errors: an object of error objects by name
// (the name is each one's message), written in wire-contract §2's order
// rather than sorted, so the document and the types made from it read
// as the contract does.
type OpenRPCErrors []OpenRPCErrorDef

// MarshalJSON writes the errors as one object, in order.
func (es OpenRPCErrors) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, e := range es {
		if i > 0 {
			b = append(b, ',')
		}
		name, err := json.Marshal(e.Message)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(e)
		if err != nil {
			return nil, err
		}
		b = append(append(append(b, name...), ':'), v...)
	}
	return append(b, '}'), nil
}

// UnmarshalJSON reads the object MarshalJSON writes, keeping its order, so
// that a Go client decoding rpc.discover gets the errors as sent.
func (es *OpenRPCErrors) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil {
		return err
	} else if tok == nil {
		*es = nil
		return nil
	} else if tok != json.Delim('{') {
		return fmt.Errorf("components.errors: want an object, got %v", tok)
	}
	out := OpenRPCErrors{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		name, _ := tok.(string)
		var e OpenRPCErrorDef
		if err := dec.Decode(&e); err != nil {
			return fmt.Errorf("components.errors.%s: %w", name, err)
		}
		if e.Message != name {
			return fmt.Errorf("components.errors.%s has message %q: the name and the message are the same", name, e.Message)
		}
		out = append(out, e)
	}
	if _, err := dec.Token(); err != nil {
		return err
	}
	*es = out
	return nil
}

// wireErrors is components.errors.
func wireErrors() OpenRPCErrors {
	out := make(OpenRPCErrors, 0, len(wire.Codes))
	for _, c := range wire.Codes {
		out = append(out, OpenRPCErrorDef{Code: c.Num, Message: c.Name, Data: wire.ErrorData{Code: c.Name}, Retriable: c.Retriable, Description: c.Description})
	}
	return out
}

// toolErrors is x-tool-errors, in the table's order, and the schemas
// their details refer to, added to comp.
func toolErrors(comp OpenRPCComponents) []OpenRPCToolError {
	comp.Schemas["LineText"] = objectSchema(reflect.TypeFor[tools.LineText]())
	var out []OpenRPCToolError
	for _, c := range tools.ErrorCodes() {
		e := OpenRPCToolError{Code: c.Code, Retriable: c.Retriable, Description: c.Description}
		if c.Details != nil {
			e.Details = objectSchema(c.Details)
		}
		out = append(out, e)
	}
	return out
}

// repeatGuardDetails is x-repeat-guard-details.
func repeatGuardDetails() schema {
	s := objectSchema(reflect.TypeFor[tools.RepeatGuardDetails]())
	s["description"] = "What the repeat guard adds to error.details when it stops a turn (the result then carries terminate: true; edit-contract §9.3)."
	return s
}
