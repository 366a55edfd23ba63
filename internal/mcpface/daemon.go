package mcpface

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"sync/atomic"

	"github.com/sourcegraph/jsonrpc2"
)

// Daemon is the part of hostd's JSON-RPC contract the MCP face calls:
// tools.definitions, session.create, session.delete and tools.execute.
// A failed call's error is a *CallError when the daemon answered with a
// JSON-RPC error.
type Daemon interface {
	Call(ctx context.Context, method string, params, result any) error
}

// CallError is a JSON-RPC error the daemon answered with: its numeric
// code, the name in error.data.code (wire-contract §2) and the message.
type CallError struct {
	Code    int64
	Name    string
	Message string
}

func (e *CallError) Error() string { return e.Name + ": " + e.Message }

// Remote is a Daemon on the far side of one JSON-RPC connection (LSP
// framing), such as the shared daemon's socket. It is safe for concurrent
// calls. A call whose context ends is cancelled at the daemon with
// $/cancelRequest, so a tool call the MCP client cancels stops there too.
type Remote struct {
	conn *jsonrpc2.Conn
	ids  atomic.Uint64
}

// NewRemote speaks JSON-RPC on rwc until Close or until the daemon hangs
// up. Requests the daemon sends are refused; notifications
// (review.recorded) are ignored.
func NewRemote(rwc io.ReadWriteCloser) *Remote {
	return &Remote{conn: jsonrpc2.NewConn(context.Background(),
		jsonrpc2.NewBufferedStream(rwc, jsonrpc2.VSCodeObjectCodec{}),
		jsonrpc2.HandlerWithError(refuse),
		jsonrpc2.SetLogger(log.New(io.Discard, "", 0)))}
}

func refuse(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
	if req.Notif {
		return nil, nil
	}
	return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "the MCP face of hostd serves no methods on this connection"}
}

// Call sends one request and waits for its answer or ctx.
func (r *Remote) Call(ctx context.Context, method string, params, result any) error {
	id := jsonrpc2.ID{Num: r.ids.Add(1)}
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-ctx.Done():
			// Best effort: the daemon answers REQUEST_CANCELLED, which
			// nobody waits for any more.
			r.conn.Notify(context.Background(), "$/cancelRequest", map[string]any{"id": id.Num})
		case <-done:
		}
	}()
	err := r.conn.Call(ctx, method, params, result, jsonrpc2.PickID(id))
	var rpcErr *jsonrpc2.Error
	if errors.As(err, &rpcErr) {
		ce := &CallError{Code: rpcErr.Code, Message: rpcErr.Message, Name: fmt.Sprintf("JSON-RPC error %d", rpcErr.Code)}
		if rpcErr.Data != nil {
			var data struct {
				Code string `json:"code"`
			}
			if json.Unmarshal(*rpcErr.Data, &data) == nil && data.Code != "" {
				ce.Name = data.Code
			}
		}
		return ce
	}
	return err
}

// Done is closed once the connection to the daemon has ended.
func (r *Remote) Done() <-chan struct{} { return r.conn.DisconnectNotify() }

// Close ends the connection.
func (r *Remote) Close() error { return r.conn.Close() }
