package client

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/rpc/wire"
)

// A handoff call keeps the notifications that come before its answer,
// and leaves them, then what follows the answer, to the next reader.
func TestHandoffKeepsWhatComesAroundItsAnswer(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	go func() {
		in := wire.NewReader(a, 1<<20)
		body, err := in.ReadFrame()
		if err != nil {
			return
		}
		var req struct {
			ID     string `json:"id"`
			Method string `json:"method"`
		}
		json.Unmarshal(body, &req)
		wire.WriteFrame(a, []byte(`{"jsonrpc":"2.0","method":"review.recorded","params":{"n":1}}`))
		wire.WriteFrame(a, []byte(`{"jsonrpc":"2.0","id":"`+req.ID+`","result":{"name":"hostd","protocolVersion":1,"pid":7}}`))
		wire.WriteFrame(a, []byte(`{"jsonrpc":"2.0","method":"review.recorded","params":{"n":2}}`))
		a.Close()
	}()
	h := NewHandoff(b, 1<<20, "check", 4)
	info, err := Typed(h).HostInfo(context.Background())
	if err != nil || info.PID != 7 || info.ProtocolVersion != 1 {
		t.Fatalf("host.info: %+v, %v", info, err)
	}
	rest := wire.NewReader(h.Rest(), 1<<20)
	for _, want := range []string{`"n":1`, `"n":2`} {
		body, err := rest.ReadFrame()
		if err != nil || !strings.Contains(string(body), want) {
			t.Fatalf("next frame %s, %v; want the notification with %s", body, err, want)
		}
	}
	if _, err := rest.ReadFrame(); !errors.Is(err, io.EOF) {
		t.Errorf("after the notifications: %v, want EOF", err)
	}
}

// An error answer is an *Error by its wire name; an answer to another id,
// or too many notifications first, fails the call.
func TestHandoffFailures(t *testing.T) {
	for _, tt := range []struct {
		name, answer, want string
	}{
		{"error", `{"jsonrpc":"2.0","id":"check","error":{"code":-32000,"message":"draining","data":{"code":"SHUTTING_DOWN"}}}`, "SHUTTING_DOWN (-32000): draining"},
		{"other id", `{"jsonrpc":"2.0","id":"x","result":{}}`, `it answered id "x"`},
		{"null", `{"jsonrpc":"2.0","id":"check","result":null}`, "no result"},
		{"notifications", `{"jsonrpc":"2.0","method":"review.recorded"}`, "2 notifications and no answer"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a, b := net.Pipe()
			defer a.Close()
			defer b.Close()
			go func() {
				if _, err := wire.NewReader(a, 1<<20).ReadFrame(); err != nil {
					return
				}
				for range 3 {
					if wire.WriteFrame(a, []byte(tt.answer)) != nil {
						return
					}
				}
			}()
			_, err := Typed(NewHandoff(b, 1<<20, "check", 2)).HostInfo(context.Background())
			if err == nil || err.Error() != tt.want {
				t.Errorf("got %v, want %s", err, tt.want)
			}
		})
	}
}
