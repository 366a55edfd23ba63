package rpc

import (
	"reflect"

	"github.com/hostd-dev/hostd/rpc/wire"
)

// The error codes in the OpenRPC document, generated from their Go
// definitions so that a client's types cannot fall behind them:
//
//   - components.errors: every JSON-RPC error hostd answers with
//     (wire.Codes), protocol codes included, each with x-retriable and
//     x-description;
//   - x-tool-errors: every tool error code (wire.ToolCodes), retriable
//     or not, with the JSON Schema of its details, made from the Go type
//     the tools set them with;
//   - x-repeat-guard-details: what the repeat guard adds to details when
//     it stops a turn (wire.RepeatGuardDetails).

// wireErrors is components.errors.
func wireErrors() wire.OpenRPCErrors {
	out := make(wire.OpenRPCErrors, 0, len(wire.Codes))
	for _, c := range wire.Codes {
		out = append(out, wire.OpenRPCErrorDef{Code: c.Num, Message: c.Name, Data: wire.ErrorData{Code: c.Name}, Retriable: c.Retriable, Description: c.Description})
	}
	return out
}

// toolErrors is x-tool-errors, in the table's order, and the schemas
// their details refer to, added to comp.
func toolErrors(comp wire.OpenRPCComponents) []wire.OpenRPCToolError {
	comp.Schemas["LineText"] = objectSchema(reflect.TypeFor[wire.LineText]())
	var out []wire.OpenRPCToolError
	for _, c := range wire.ToolCodes {
		e := wire.OpenRPCToolError{Code: c.Code, Retriable: c.Retriable, Description: c.Description}
		if c.Details != nil {
			e.Details = objectSchema(c.Details)
		}
		out = append(out, e)
	}
	return out
}

// repeatGuardDetails is x-repeat-guard-details.
func repeatGuardDetails() schema {
	s := objectSchema(reflect.TypeFor[wire.RepeatGuardDetails]())
	s["description"] = "What the repeat guard adds to error.details when it stops a turn (the result then carries terminate: true; edit-contract §9.3)."
	return s
}
