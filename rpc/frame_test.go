package rpc

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/config"
)

func TestMalformedJSONIsAnsweredAndTheConnectionSurvives(t *testing.T) {
	h := newHarness(t)
	c := h.raw()
	c.send(`{"jsonrpc":"2.0","id":1,"method":"host.info"`) // truncated
	r := c.recv()
	if r.Error == nil || r.Error.Code != -32700 || r.Error.Data.Code != "PARSE_ERROR" || string(r.ID) != "null" {
		t.Fatalf("want -32700 PARSE_ERROR with id null, got %+v", r)
	}
	c.send(`{"jsonrpc":"2.0","id":2,"method":"host.info"}`)
	if r := c.recv(); r.Error != nil || string(r.ID) != "2" {
		t.Fatalf("the connection must go on after a parse error: %+v", r)
	}
}

func TestInvalidRequestsAreAnsweredAndTheConnectionSurvives(t *testing.T) {
	tests := []struct {
		name, body, id string
	}{
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"host.info"}]`, "null"},
		{"empty batch", `[]`, "null"},
		{"not an object", `42`, "null"},
		{"string", `"host.info"`, "null"},
		{"no jsonrpc member", `{"id":3,"method":"host.info"}`, "3"},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":"a","method":"host.info"}`, `"a"`},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"host.info"}`, "null"},
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"host.info"}`, "null"},
		{"negative id", `{"jsonrpc":"2.0","id":-1,"method":"host.info"}`, "null"},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"host.info"}`, "null"},
		{"numeric method", `{"jsonrpc":"2.0","id":4,"method":7}`, "4"},
		{"no method", `{"jsonrpc":"2.0","id":5}`, "5"},
		{"method and result", `{"jsonrpc":"2.0","id":6,"method":"host.info","result":1}`, "6"},
	}
	h := newHarness(t)
	c := h.raw()
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c.t = t
			c.send(tt.body)
			r := c.recv()
			if r.Error == nil || r.Error.Code != -32600 || r.Error.Data.Code != "INVALID_REQUEST" {
				t.Fatalf("want -32600, got %+v", r)
			}
			if string(r.ID) != tt.id {
				t.Errorf("id = %s, want %s", r.ID, tt.id)
			}
			c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"host.info"}`, 100+i))
			if r := c.recv(); r.Error != nil || string(r.ID) != fmt.Sprint(100+i) {
				t.Fatalf("the connection must go on: %+v", r)
			}
		})
	}
}

func TestResponsesFromTheClientAreIgnored(t *testing.T) {
	h := newHarness(t)
	c := h.raw()
	c.send(`{"jsonrpc":"2.0","id":9,"result":{}}`)
	c.send(`{"jsonrpc":"2.0","id":10,"method":"host.info"}`)
	if r := c.recv(); string(r.ID) != "10" || r.Error != nil {
		t.Fatalf("got %+v", r)
	}
}

func TestAnOversizedFrameClosesThatConnectionOnly(t *testing.T) {
	lim := config.DefaultLimits()
	lim.MaxFrameBytes = 1024
	h := newHarness(t, func(o *Options) { o.Limits = lim })
	other := h.client()

	for _, header := range []string{
		"Content-Length: 99999999999\r\n\r\n",
		"Content-Length: 1025\r\n\r\n", // one byte over the cap; no body follows
	} {
		c := h.raw()
		c.write(header)
		// Closed on the header alone: no body follows and the server has
		// no read timeout, so the close (an event) comes only if it did
		// not wait for one.
		if !c.closed() {
			t.Fatalf("%q: connection not closed", header)
		}
		// (session.list: its answer fits the 1 KiB cap; host.info's
		// list of every limit does not.)
		mustCall(t, other, "session.list", nil, nil)
	}
	// A frame of exactly the cap is served.
	c := h.raw()
	body := `{"jsonrpc":"2.0","id":1,"method":"session.list"}`
	c.send(body + strings.Repeat(" ", 1024-len(body)))
	if r := c.recv(); r.Error != nil {
		t.Fatalf("a frame at the cap must be served: %+v", r)
	}
}

func TestMalformedHeadersCloseThatConnectionOnly(t *testing.T) {
	h := newHarness(t)
	other := h.client()
	for _, header := range []string{
		"Content-Length 12\r\n\r\n",
		"Content-Length: 12\n\n",
		"Content-Type: application/json\r\n\r\n",
		"Content-Length: -3\r\n\r\n",
		"Content-Length: twelve\r\n\r\n",
		"Content-Length: 2\r\nContent-Length: 3\r\n\r\n",
		"X-Long: " + strings.Repeat("a", 5000) + "\r\n\r\n",
		strings.Repeat("X-Many: a\r\n", 500) + "\r\n",
	} {
		c := h.raw()
		c.write(header)
		if !c.closed() {
			t.Fatalf("%.40q: connection not closed", header)
		}
		mustCall(t, other, "host.info", nil, nil)
	}
}

func TestHeaderNamesAreCaseInsensitiveAndContentTypeIsAccepted(t *testing.T) {
	h := newHarness(t)
	c := h.raw()
	body := `{"jsonrpc":"2.0","id":1,"method":"host.info"}`
	c.write(fmt.Sprintf("content-length: %d\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n%s", len(body), body))
	if r := c.recv(); r.Error != nil {
		t.Fatal(r.Error)
	}
}

// A request sent as newline-delimited JSON (no Content-Length header) is
// answered, in the peer's framing, with one line of JSON: PARSE_ERROR
// with the request's id, naming LSP framing with an example; then the
// connection is closed. Other connections carry on.
func TestUnframedJSONIsAnsweredWithAParseErrorThenClosed(t *testing.T) {
	h := newHarness(t)
	other := h.client()
	for _, tt := range []struct{ name, send, id string }{
		{"a line", `{"jsonrpc":"2.0","id":7,"method":"host.info"}` + "\n", "7"},
		{"a value with no newline", `{"jsonrpc":"2.0","method":"initialize","id":"init-1","params":{}}`, `"init-1"`},
		{"a batch", `[{"jsonrpc":"2.0","id":1,"method":"host.info"}]` + "\n", "null"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := h.raw()
			c.t = t
			c.write(tt.send)
			c.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
			line, err := c.r.ReadString('\n')
			if err != nil {
				t.Fatalf("no answer line: %q, %v", line, err)
			}
			var r rawResponse
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatalf("the answer is not one line of JSON: %q", line)
			}
			if r.JSONRPC != "2.0" || r.Error == nil || r.Error.Code != -32700 || r.Error.Data.Code != "PARSE_ERROR" || string(r.ID) != tt.id {
				t.Fatalf("answer %s, want PARSE_ERROR with id %s", line, tt.id)
			}
			for _, want := range []string{"Content-Length", "Language Server Protocol", `\r\n\r\n{\"jsonrpc\":\"2.0\"`, "newline-delimited JSON is not read", "connection is closed"} {
				if !strings.Contains(r.Error.Message, want) {
					t.Errorf("the message lacks %q: %s", want, r.Error.Message)
				}
			}
			if !c.closed() {
				t.Fatal("the connection stayed open")
			}
			mustCall(t, other, "host.info", nil, nil)
		})
	}
}
