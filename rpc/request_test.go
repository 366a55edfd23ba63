package rpc

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/rpc/wire"
)

// A request id names one call on a connection: while a call runs, a second
// request with its id is refused (whether its method runs inline or on its
// own goroutine) and the running call is untouched; once the call is
// answered, the id is free again. Other connections have ids of their own.
func TestARequestIDInFlightIsRefusedUntilItsCallIsAnswered(t *testing.T) {
	h := newHarness(t)
	c := h.raw()
	c.send(`{"jsonrpc":"2.0","id":1,"method":"session.create","params":{"workspace":` + quoteJSON(t.TempDir()) + `,"sessionId":"s"}}`)
	if r := c.recv(); r.Error != nil {
		t.Fatalf("session.create: %+v", r.Error)
	}
	block := `{"jsonrpc":"2.0","id":7,"method":"tools.execute","params":{"sessionId":"s","tool":"block","toolCallId":"held"}}`
	c.send(block)
	waitFor(t, h.block.started, "the call to start")

	for _, dup := range []string{
		`{"jsonrpc":"2.0","id":7,"method":"host.info"}`, // inline
		`{"jsonrpc":"2.0","id":7,"method":"tools.execute","params":{"sessionId":"s","tool":"block","toolCallId":"again"}}`,
	} {
		c.send(dup)
		r := c.recv()
		if string(r.ID) != "7" || r.Error == nil || r.Error.Data.Code != wire.CodeInvalidRequest.Name {
			t.Fatalf("a second request with id 7 = %+v, want INVALID_REQUEST", r)
		}
	}
	noneWithin(t, h.block.started, 50*time.Millisecond, "a second call under the id in flight")
	other := h.raw()
	other.send(`{"jsonrpc":"2.0","id":7,"method":"host.info"}`)
	if r := other.recv(); r.Error != nil {
		t.Fatalf("id 7 on another connection: %+v", r.Error)
	}

	h.block.release <- struct{}{}
	if r := c.recv(); string(r.ID) != "7" || r.Error != nil {
		t.Fatalf("the held call's answer: %+v", r)
	}
	c.send(`{"jsonrpc":"2.0","id":7,"method":"host.info"}`)
	if r := c.recv(); r.Error != nil {
		t.Fatalf("id 7 once its call was answered: %+v", r.Error)
	}
}

func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
