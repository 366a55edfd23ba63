package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/rpc/wire"
)

// request is what the fake daemon reads.
type request struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// fake is the daemon's end of a pipe: the test reads requests and writes
// raw frames, so it can send what no real daemon would.
type fake struct {
	t   *testing.T
	nc  net.Conn
	in  *wire.Reader
	got chan request
}

func newPair(t *testing.T, maxFrame int64) (*Conn, *fake) {
	t.Helper()
	a, b := net.Pipe()
	f := &fake{t: t, nc: a, in: wire.NewReader(a, 1<<20), got: make(chan request, 16)}
	go func() {
		for {
			body, err := f.in.ReadFrame()
			if err != nil {
				close(f.got)
				return
			}
			var r request
			json.Unmarshal(body, &r)
			f.got <- r
		}
	}()
	c := New(b, Options{MaxFrameBytes: maxFrame, Peer: "the test pipe"})
	t.Cleanup(func() { c.Close(); a.Close() })
	return c, f
}

func (f *fake) next() request {
	f.t.Helper()
	select {
	case r, ok := <-f.got:
		if !ok {
			f.t.Fatal("the client hung up")
		}
		return r
	case <-time.After(10 * time.Second):
		f.t.Fatal("no request")
	}
	return request{}
}

func (f *fake) send(body string) {
	f.t.Helper()
	if err := wire.WriteFrame(f.nc, []byte(body)); err != nil {
		f.t.Fatal(err)
	}
}

// A call whose context ends is cancelled at the daemon with the call's
// own id, and returns the context's error.
func TestACancelledCallIsCancelledAtTheDaemon(t *testing.T) {
	c, f := newPair(t, 0)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- c.Call(ctx, "slow", nil, nil) }()
	req := f.next()
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("Call: %v, want context.Canceled", err)
	}
	n := f.next()
	var p struct{ ID json.RawMessage }
	json.Unmarshal(n.Params, &p)
	if n.Method != wire.CancelMethod || string(p.ID) != string(req.ID) || n.ID != nil {
		t.Errorf("got %s %s (id %s), want the notification %s of id %s", n.Method, n.Params, n.ID, wire.CancelMethod, req.ID)
	}
}

// An error is named by error.data.code, else by the wire table (the
// protocol codes, and an application code sent without data), else ERROR.
func TestErrorsAreNamed(t *testing.T) {
	tests := []struct {
		err  string
		want string
	}{
		{`{"code":-32001,"message":"gone","data":{"code":"SESSION_NOT_FOUND"}}`, "SESSION_NOT_FOUND (-32001): gone"},
		{`{"code":-32601,"message":"no such method"}`, "METHOD_NOT_FOUND (-32601): no such method"},
		{`{"code":-32007,"message":"busy"}`, "OVERLOADED (-32007): busy"},
		{`{"code":-32008,"message":"big"}`, "RESULT_TOO_LARGE (-32008): big"},
		{`{"code":-31999,"message":"new"}`, "ERROR (-31999): new"},
	}
	c, f := newPair(t, 0)
	for _, tt := range tests {
		errc := make(chan error, 1)
		go func() { errc <- c.Call(context.Background(), "m", nil, nil) }()
		req := f.next()
		f.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":%s}`, req.ID, tt.err))
		err := <-errc
		var e *Error
		if !errors.As(err, &e) || err.Error() != tt.want {
			t.Errorf("%s: got %v, want %s", tt.err, err, tt.want)
		}
	}
}

// Every code the daemon can answer has its name on the client side.
func TestEveryWireCodeIsNamed(t *testing.T) {
	for _, code := range wire.Codes {
		got := newError(jsonrpc2Error(code.Num))
		if got.Name != code.Name {
			t.Errorf("%d: named %s, want %s", code.Num, got.Name, code.Name)
		}
	}
}

// A frame over the cap is refused from its header: the body is never
// awaited (the test would hang), and the call says what was announced.
func TestAFrameOverTheCapIsRefused(t *testing.T) {
	c, f := newPair(t, 1000)
	errc := make(chan error, 1)
	go func() { errc <- c.Call(context.Background(), "m", nil, nil) }()
	f.next()
	io.WriteString(f.nc, "Content-Length: 99999999999\r\n\r\n")
	select {
	case err := <-errc:
		if !errors.Is(err, ErrFrameTooLarge) || !strings.Contains(err.Error(), "announced 99999999999 bytes, more than the 1000") {
			t.Fatalf("got %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the call waited for a body it must refuse")
	}
}

// A daemon that hangs up is named as such, with the peer.
func TestAHangUpIsExplained(t *testing.T) {
	c, f := newPair(t, 0)
	errc := make(chan error, 1)
	go func() { errc <- c.Call(context.Background(), "m", nil, nil) }()
	f.next()
	f.nc.Close()
	if err := <-errc; !errors.Is(err, ErrClosed) || !strings.Contains(err.Error(), "on the test pipe before answering") {
		t.Fatalf("got %v", err)
	}
}

// Notifications reach the hook in the order they were sent, before the
// answer that followed them.
func TestNotificationsArriveInOrder(t *testing.T) {
	c, f := newPair(t, 0)
	var got []string
	c.OnNotify(func(method string, params json.RawMessage) { got = append(got, method+" "+string(params)) })
	errc := make(chan error, 1)
	go func() { errc <- c.Call(context.Background(), "m", nil, nil) }()
	req := f.next()
	for i := range 3 {
		f.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"review.recorded","params":{"n":%d}}`, i))
	}
	f.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{}}`, req.ID))
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	want := []string{`review.recorded {"n":0}`, `review.recorded {"n":1}`, `review.recorded {"n":2}`}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", got, want)
	}
}

func jsonrpc2Error(code int64) *jsonrpc2.Error { return &jsonrpc2.Error{Code: code, Message: "m"} }

// A client's default frame cap is the daemon's default limit.
func TestDefaultFrameCapIsTheDaemons(t *testing.T) {
	if got := config.DefaultLimits().MaxFrameBytes; got != wire.DefaultMaxFrameBytes {
		t.Errorf("the daemon's default maxFrameBytes is %d, wire.DefaultMaxFrameBytes %d", got, wire.DefaultMaxFrameBytes)
	}
}
