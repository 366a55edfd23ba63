package mcpface

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log"
	"net"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"
)

// peer is the far end of a Remote: it reports every request and
// notification it gets, and answers "fail" with a hostd error.
func peer(t *testing.T) (*Remote, <-chan *jsonrpc2.Request) {
	t.Helper()
	a, b := net.Pipe()
	got := make(chan *jsonrpc2.Request, 16)
	stop := make(chan struct{})
	srv := jsonrpc2.NewConn(context.Background(), jsonrpc2.NewBufferedStream(a, jsonrpc2.VSCodeObjectCodec{}),
		jsonrpc2.AsyncHandler(jsonrpc2.HandlerWithError(func(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
			got <- req
			if req.Method == "fail" {
				data := json.RawMessage(`{"code":"SESSION_NOT_FOUND"}`)
				return nil, &jsonrpc2.Error{Code: -32001, Message: `session not found: "x"`, Data: &data}
			}
			<-stop // "slow" answers only when the test ends
			return nil, nil
		})), jsonrpc2.SetLogger(log.New(io.Discard, "", 0)))
	r := NewRemote(b, 0)
	t.Cleanup(func() { close(stop); r.Close(); srv.Close() })
	return r, got
}

// A call whose context ends is cancelled at the daemon: the Remote sends
// $/cancelRequest with the call's id, so a tool call the MCP client
// cancels stops there too.
func TestCancelledCallIsCancelledAtTheDaemon(t *testing.T) {
	r, got := peer(t)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- r.Call(ctx, "slow", nil, nil) }()
	req := <-got
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("Call: %v, want context.Canceled", err)
	}
	select {
	case n := <-got:
		var p struct{ ID uint64 }
		json.Unmarshal(*n.Params, &p)
		if n.Method != "$/cancelRequest" || p.ID != req.ID.Num {
			t.Errorf("got %s %s, want $/cancelRequest of id %d", n.Method, *n.Params, req.ID.Num)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no $/cancelRequest")
	}
}

// A JSON-RPC error is a *CallError carrying the name in error.data.code.
func TestCallErrorCarriesTheCodeName(t *testing.T) {
	r, _ := peer(t)
	err := r.Call(context.Background(), "fail", nil, nil)
	var ce *CallError
	if !errors.As(err, &ce) || ce.Name != "SESSION_NOT_FOUND" || ce.Code != -32001 || ce.Message != `session not found: "x"` {
		t.Fatalf("%#v", err)
	}
}
