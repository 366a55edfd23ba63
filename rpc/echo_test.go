package rpc

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/config"
)

// An answer quotes at most a short prefix of any string the client sent,
// however long: no error echoes a 60 MB name back.
func TestErrorsQuoteAShortPrefixOfClientStrings(t *testing.T) {
	size := 60 << 20
	if raceEnabled {
		size = 6 << 20
	}
	long := strings.Repeat("a", size)
	_, opt := withReview(t)
	h := newHarness(t, opt)
	c := h.raw()
	// Each request moves tens of megabytes through the parser: on a busy
	// machine that takes seconds, which is no failure here.
	c.wait = 2 * time.Minute
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"session.create","params":{"workspace":%q,"sessionId":"s"}}`, t.TempDir()))
	if r := c.recv(); r.Error != nil {
		t.Fatal(r.Error.Message)
	}
	for i, tt := range []struct {
		name, method, params, code string
	}{
		{"method", long, `{}`, "METHOD_NOT_FOUND"},
		{"sessionId", "session.delete", `{"sessionId":"` + long + `"}`, "SESSION_NOT_FOUND"},
		{"tool", "tools.execute", `{"sessionId":"s","tool":"` + long + `"}`, "UNKNOWN_TOOL"},
		{"params field", "host.info", `{"` + long + `":1}`, "INVALID_PARAMS"},
		{"map key", "session.create", `{"workspace":"/x","externalRoots":[{"path":"/y","` + long + `":true}]}`, "INVALID_PARAMS"},
		{"workspace path", "session.create", `{"workspace":"/` + long + `"}`, "WORKSPACE_INVALID"},
		{"toolCallId", "review.rollback", `{"sessionId":"s","toolCallId":"` + long + `"}`, "REVIEW_NOT_FOUND"},
		{"id", "host.info", `{}`, "INVALID_REQUEST"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c.t = t
			id := strconv.Itoa(i + 2) // a late answer can never pass for the next one

			if tt.name == "id" {
				id = `"` + long + `"`
			}
			c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":%s}`, id, tt.method, tt.params))
			r := c.recv()
			if r.Error == nil || r.Error.Data.Code != tt.code {
				t.Fatalf("want %s, got %+v", tt.code, r.Error)
			}
			b, _ := json.Marshal(r)
			if len(b) > 4<<10 {
				t.Fatalf("a %d-byte answer: %.300s", len(b), b)
			}
			if tt.name != "id" && !strings.Contains(r.Error.Message+r.Error.Data.Field, "bytes)") {
				t.Errorf("the message does not say how long the string was: %s", r.Error.Message)
			}
		})
	}
}

// A result larger than limits.maxFrameBytes is answered with
// RESULT_TOO_LARGE: the client never gets a frame it must refuse, and
// the connection goes on.
func TestAResultOverTheFrameCapIsAnsweredWithAnError(t *testing.T) {
	lim := config.DefaultLimits()
	lim.MaxFrameBytes = 4 << 10
	h := newHarness(t, func(o *Options) { o.Limits = lim })
	c := h.raw()
	c.send(`{"jsonrpc":"2.0","id":1,"method":"rpc.discover"}`)
	r := c.recv()
	if r.Error == nil || r.Error.Code != -32008 || r.Error.Data.Code != "RESULT_TOO_LARGE" || string(r.ID) != "1" {
		t.Fatalf("want RESULT_TOO_LARGE, got %+v", r)
	}
	if !strings.Contains(r.Error.Message, "limits.maxFrameBytes") || !strings.Contains(r.Error.Message, "ask for less") {
		t.Errorf("message %q does not say what to do", r.Error.Message)
	}
	c.send(`{"jsonrpc":"2.0","id":2,"method":"session.list"}`)
	if r := c.recv(); r.Error != nil || string(r.ID) != "2" {
		t.Fatalf("the connection must go on: %+v", r)
	}
}
