package rpc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
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
		start := time.Now()
		c.write(header)
		if !c.closed() {
			t.Fatalf("%q: connection not closed", header)
		}
		// Closed on the header alone: the server did not wait for a body.
		if time.Since(start) > 2*time.Second {
			t.Errorf("%q: took %v to close", header, time.Since(start))
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

// A Content-Length that lies costs the bytes actually sent, not the bytes
// announced.
func TestABodyIsBufferedAsItArrives(t *testing.T) {
	const announced = 48 << 20
	input := io.MultiReader(strings.NewReader(fmt.Sprintf("Content-Length: %d\r\n\r\n{\"a\":", announced)), strings.NewReader(strings.Repeat(" ", 1000)))
	f := newFrameStream(input, 64<<20)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := f.readFrame()
	runtime.ReadMemStats(&after)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("err = %v, want unexpected EOF", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Errorf("allocated %d bytes for a 1 KB body announced as %d", grew, announced)
	}
}

func TestFramesAreReadBackToBack(t *testing.T) {
	var in bytes.Buffer
	bodies := []string{`{"jsonrpc":"2.0","method":"a"}`, `{"jsonrpc":"2.0","id":1,"method":"b","params":{"x":"` + strings.Repeat("y", 5000) + `"}}`, `{}`}
	for _, b := range bodies {
		fmt.Fprintf(&in, "Content-Length: %d\r\n\r\n%s", len(b), b)
	}
	f := newFrameStream(&in, 1<<20)
	for _, want := range bodies {
		got, err := f.readFrame()
		if err != nil || string(got) != want {
			t.Fatalf("frame %.30q: got %.30q, %v", want, got, err)
		}
	}
	if _, err := f.readFrame(); err != io.EOF {
		t.Errorf("after the last frame: %v, want io.EOF", err)
	}
}

// FuzzFrameHeader checks readHeader against a direct reading of the
// framing rule: CRLF-terminated "Name: value" lines up to an empty one,
// all within maxHeaderBytes; Content-Length (any case) a decimal count no
// larger than the cap, given once or repeated with the same value.
func FuzzFrameHeader(f *testing.F) {
	f.Add("Content-Length: 10\r\n\r\n")
	f.Add("Content-Length: 10\r\nContent-Type: x\r\n\r\n")
	f.Add("content-length:3\r\n\r\n")
	f.Add("Content-Length: +3\r\n\r\n")
	f.Add("Content-Length: 99999999999\r\n\r\n")
	f.Add("Content-Length: 1\n\n")
	f.Add("\r\n")
	f.Fuzz(func(t *testing.T, in string) {
		const limit = 1 << 16
		s := newFrameStream(strings.NewReader(in), limit)
		n, err := s.readHeader()
		wantN, wantOK := oracleHeader(in, limit)
		if (err == nil) != wantOK || (wantOK && n != wantN) {
			t.Fatalf("readHeader(%q) = %d, %v; oracle says %d, %v", in, n, err, wantN, wantOK)
		}
	})
}

func oracleHeader(in string, limit int64) (int64, bool) {
	end := strings.Index("\r\n"+in, "\r\n\r\n") // the block ends at the first empty line
	if end < 0 || end+2 > maxHeaderBytes {
		return 0, false
	}
	n := int64(-1)
	for _, line := range strings.Split(in[:max(end-2, 0)], "\r\n") {
		if end == 0 {
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok || strings.Contains(line, "\n") {
			return 0, false
		}
		if strings.ToLower(strings.Trim(name, " \t")) != "content-length" {
			continue
		}
		value = strings.Trim(value, " \t")
		v := int64(0)
		for _, r := range value {
			if r < '0' || r > '9' || v > limit {
				return 0, false
			}
			v = v*10 + int64(r-'0')
		}
		if value == "" || v > limit || (n >= 0 && v != n) {
			return 0, false
		}
		n = v
	}
	return n, n >= 0
}
