package rpc

import (
	"context"
	"encoding/json"
	"reflect"

	"github.com/hostd-dev/hostd/rpc/wire"
)

// Method is one row of the method table. The same row dispatches calls
// and describes the method in rpc.discover, so the document cannot drift
// from what the server does.
type Method struct {
	Name    string
	Summary string
	// Unstable marks a debugging surface whose shape may change.
	Unstable bool
	// Errors are the application errors the method can answer with,
	// besides the protocol errors every method can.
	Errors []wire.Code

	params reflect.Type // a struct; its fields are the named parameters
	result reflect.Type
	call   func(ctx context.Context, raw json.RawMessage) (any, error)
	// after runs once the answer has been written (host.shutdown).
	after func()
	// runsInline: the method never waits (no I/O, no lock a tool may
	// hold), so it is answered inline, on the connection's reader, without
	// a goroutine (inline()).
	runsInline bool
}

// method builds a table row from a typed handler. P must be a struct; its
// json and doc tags are the parameters' names, requiredness and
// descriptions.
func method[P, R any](name, summary string, h func(context.Context, P) (R, error)) *Method {
	return &Method{
		Name:    name,
		Summary: summary,
		params:  reflect.TypeFor[P](),
		result:  reflect.TypeFor[R](),
		call: func(ctx context.Context, raw json.RawMessage) (any, error) {
			var p P
			if err := decodeParams(raw, &p); err != nil {
				return nil, err
			}
			return h(ctx, p)
		},
	}
}

func (m *Method) unstable() *Method { m.Unstable = true; return m }

func (m *Method) inline() *Method { m.runsInline = true; return m }

func (m *Method) errors(codes ...wire.Code) *Method { m.Errors = codes; return m }

func (m *Method) then(f func()) *Method { m.after = f; return m }
