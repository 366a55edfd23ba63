package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/hostd-dev/hostd/internal/testenv"
	"github.com/hostd-dev/hostd/rpc/wire"
)

// waitFor receives from ch or fails after a deadline.
func waitFor[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}

// noneWithin fails if ch delivers within d.
func noneWithin[T any](t *testing.T, ch <-chan T, d time.Duration, what string) {
	t.Helper()
	select {
	case v := <-ch:
		t.Fatalf("unexpected %s: %v", what, v)
	case <-time.After(d):
	}
}

// blockingMethod adds a method that waits for its context, so tests can
// see cancellation as the handler sees it.
func (h *harness) blockingMethod(started chan<- struct{}) {
	m := method("test.block", "Blocks until cancelled.", func(ctx context.Context, _ wire.NoParams) (wire.Empty, error) {
		started <- struct{}{}
		<-ctx.Done()
		return wire.Empty{}, ctx.Err()
	})
	h.srv.methods[m.Name] = m
}

func TestCancelRequestCancelsThatRequestOnly(t *testing.T) {
	h := newHarness(t)
	c := h.client()
	mustCall(t, c, "session.create", wire.SessionCreateParams{Workspace: t.TempDir(), SessionID: "s"}, nil)

	ctx := context.Background()
	first, err := c.DispatchCall(ctx, "tools.execute", wire.ExecuteParams{SessionID: "s", Tool: "block", ToolCallID: "first"}, jsonrpc2.PickID(jsonrpc2.ID{Num: 100}))
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, h.block.started, "first call to start")
	second, err := c.DispatchCall(ctx, "tools.execute", wire.ExecuteParams{SessionID: "s", Tool: "block", ToolCallID: "second"}, jsonrpc2.PickID(jsonrpc2.ID{Num: 101}))
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, h.block.started, "second call to start")

	if err := c.Notify(ctx, "$/cancelRequest", map[string]any{"id": 101}); err != nil {
		t.Fatal(err)
	}
	if got := waitFor(t, h.block.cancelled, "the second call's context to end"); got != "second" {
		t.Fatalf("cancelled %q, want second", got)
	}
	var res map[string]any
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := second.Wait(wctx, &res); err != nil || res["ok"] != false {
		t.Fatalf("cancelled call: %v %v", res, err)
	}
	noneWithin(t, h.block.cancelled, 100*time.Millisecond, "cancellation of the first call")

	close(h.block.release)
	if err := first.Wait(wctx, &res); err != nil || res["ok"] != true {
		t.Fatalf("first call must finish normally: %v %v", res, err)
	}
}

func TestACancelledHandlerAnswersRequestCancelled(t *testing.T) {
	h := newHarness(t)
	started := make(chan struct{}, 1)
	h.blockingMethod(started)
	c := h.raw()
	c.send(`{"jsonrpc":"2.0","id":"q","method":"test.block"}`)
	waitFor(t, started, "the handler to start")
	c.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"q"}}`)
	r := c.recv()
	if string(r.ID) != `"q"` || r.Error == nil || r.Error.Code != -32800 || r.Error.Data.Code != "REQUEST_CANCELLED" {
		t.Fatalf("got %+v", r)
	}
}

func TestCancelOfAnUnknownOrMalformedIDIsIgnored(t *testing.T) {
	h := newHarness(t)
	c := h.raw()
	c.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":99}}`)
	c.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":{}}}`)
	c.send(`{"jsonrpc":"2.0","method":"$/cancelRequest"}`)
	c.send(`{"jsonrpc":"2.0","method":"$/setTrace","params":{"value":"off"}}`)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"host.info"}`)
	if r := c.recv(); string(r.ID) != "1" || r.Error != nil {
		t.Fatalf("got %+v", r)
	}
}

func TestADuplicateInFlightIDIsRejected(t *testing.T) {
	h := newHarness(t)
	started := make(chan struct{}, 1)
	h.blockingMethod(started)
	c := h.raw()
	c.send(`{"jsonrpc":"2.0","id":7,"method":"test.block"}`)
	waitFor(t, started, "the handler to start")
	c.send(`{"jsonrpc":"2.0","id":7,"method":"host.info"}`)
	r := c.recv()
	if string(r.ID) != "7" || r.Error == nil || r.Error.Code != -32600 {
		t.Fatalf("got %+v", r)
	}
}

func TestAClientDisconnectingMidCallCancelsItsCalls(t *testing.T) {
	h := newHarness(t)
	setup := h.client()
	mustCall(t, setup, "session.create", wire.SessionCreateParams{Workspace: t.TempDir(), SessionID: "s"}, nil)

	c := h.raw()
	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools.execute","params":{"sessionId":"s","tool":"block","toolCallId":"gone"}}`)
	waitFor(t, h.block.started, "the call to start")
	c.nc.Close()
	if got := waitFor(t, h.block.cancelled, "the call to be cancelled"); got != "gone" {
		t.Fatalf("cancelled %q", got)
	}
	// The daemon and its other connections are unaffected.
	var list wire.SessionList
	mustCall(t, setup, "session.list", nil, &list)
	if len(list.Sessions) != 1 {
		t.Errorf("sessions: %+v", list)
	}
	// Nothing is left in flight: a shutdown completes at once.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := h.srv.Shutdown(ctx); err != nil {
		t.Errorf("shutdown: %v", err)
	}
}

func TestShutdownWaitsForCallsInFlightAndRefusesNewOnes(t *testing.T) {
	h := newHarness(t)
	c := h.client()
	mustCall(t, c, "session.create", wire.SessionCreateParams{Workspace: t.TempDir(), SessionID: "s"}, nil)
	ctx := context.Background()
	w, err := c.DispatchCall(ctx, "tools.execute", wire.ExecuteParams{SessionID: "s", Tool: "block"})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, h.block.started, "the call to start")

	stopped := make(chan error, 1)
	go func() {
		sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		stopped <- h.srv.Shutdown(sctx)
	}()
	noneWithin(t, stopped, 100*time.Millisecond, "shutdown before the call finished")

	// A new call while draining is refused, and says why.
	testenv.Until(t, 10*time.Second, "the server to refuse a call while it drains", func() bool {
		e := call(t, c, "host.info", nil, nil)
		if e != nil {
			wantError(t, e, wire.CodeShuttingDown, "shutting down")
		}
		return e != nil // else Shutdown has not started draining yet
	})

	close(h.block.release)
	var res map[string]any
	if err := w.Wait(ctx, &res); err != nil || res["content"] != "released" {
		t.Fatalf("the call in flight must be answered: %v %v", res, err)
	}
	if err := waitFor(t, stopped, "shutdown"); err != nil {
		t.Errorf("shutdown: %v", err)
	}
	// New connections are not accepted.
	if _, err := net.Dial("unix", h.sock); err == nil {
		t.Error("a connection was accepted after shutdown")
	}
}

func TestShutdownCancelsCallsAtTheEndOfTheGrace(t *testing.T) {
	h := newHarness(t)
	started := make(chan struct{}, 1)
	h.blockingMethod(started)
	c := h.client()
	w, err := c.DispatchCall(context.Background(), "test.block", nil)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, started, "the handler to start")
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := h.srv.Shutdown(ctx); err == nil {
		t.Error("shutdown must report the calls it cancelled")
	}
	werr := w.Wait(context.Background(), nil)
	var e *jsonrpc2.Error
	if !errors.As(werr, &e) || e.Code != wire.CodeRequestCancelled.Num {
		t.Errorf("the cancelled call must be answered REQUEST_CANCELLED, got %v", werr)
	}
}

func TestHostShutdownAnswersThenCallsOnShutdown(t *testing.T) {
	called := make(chan struct{})
	h := newHarness(t, func(o *Options) { o.OnShutdown = func() { close(called) } })
	var res json.RawMessage
	mustCall(t, h.client(), "host.shutdown", nil, &res)
	if string(res) != "{}" {
		t.Errorf("host.shutdown = %s, want {}", res)
	}
	waitFor(t, called, "OnShutdown")
}

func TestHostShutdownWithoutAHookShutsTheServerDown(t *testing.T) {
	h := newHarness(t)
	mustCall(t, h.client(), "host.shutdown", nil, nil)
	if err := waitFor(t, h.done, "Serve to return"); err != nil {
		t.Errorf("Serve: %v", err)
	}
	h.done <- nil // for the cleanup
}

func TestOneConnectionRunsAtMostItsShareOfCallsAtOnce(t *testing.T) {
	h := newHarness(t)
	mustCall(t, h.client(), "session.create", wire.SessionCreateParams{Workspace: t.TempDir(), SessionID: "s"}, nil)
	c := h.raw()
	for i := range maxInFlightPerConn + 1 {
		c.send(`{"jsonrpc":"2.0","id":` + itoa(i) + `,"method":"tools.execute","params":{"sessionId":"s","tool":"block"}}`)
	}
	for range maxInFlightPerConn {
		waitFor(t, h.block.started, "the first calls to start")
	}
	// The connection's reader waits for a free slot; other connections
	// are served meanwhile.
	noneWithin(t, h.block.started, 200*time.Millisecond, "a call past the per-connection bound")
	mustCall(t, h.client(), "host.info", nil, nil)

	close(h.block.release)
	for range maxInFlightPerConn + 1 {
		if r := c.recv(); r.Error != nil {
			t.Fatalf("%+v", r.Error)
		}
	}
}

func TestConcurrentCallsFromManyClients(t *testing.T) {
	h := newHarness(t)
	ws := t.TempDir()
	errs := make(chan error, 16)
	for g := range 16 {
		go func() {
			c := h.client()
			id := "s" + itoa(g)
			for range 20 {
				if e := call(t, c, "session.create", wire.SessionCreateParams{Workspace: ws, SessionID: id}, nil); e != nil {
					errs <- e
					return
				}
				if e := call(t, c, "host.info", nil, nil); e != nil {
					errs <- e
					return
				}
				if e := call(t, c, "session.delete", wire.SessionIDParams{SessionID: id}, nil); e != nil {
					errs <- e
					return
				}
			}
			errs <- nil
		}()
	}
	for range 16 {
		if err := waitFor(t, errs, "a client"); err != nil {
			t.Fatal(err)
		}
	}
	var st wire.Stats
	mustCall(t, h.client(), "debug.stats", nil, &st)
	if st.Calls["host.info"].Count != 16*20 || st.Sessions != 0 {
		t.Errorf("%+v", st)
	}
}
