package wire

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// The header rules, one case each. Every reader of hostd's protocol (the
// daemon's and every Go client's) is this one.
func TestReadHeader(t *testing.T) {
	const max = 1000
	tests := []struct {
		name    string
		in      string
		want    int64
		wantErr error
	}{
		{"plain", "Content-Length: 12\r\n\r\n", 12, nil},
		{"header names are case-insensitive", "content-length:7\r\n\r\n", 7, nil},
		{"other headers are skipped", "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: 3\r\n\r\n", 3, nil},
		{"at the cap", "Content-Length: 1000\r\n\r\n", 1000, nil},
		{"zero", "Content-Length: 0\r\n\r\n", 0, nil},
		{"one past the cap", "Content-Length: 1001\r\n\r\n", 0, ErrFrame},
		{"the 99999999999 header", "Content-Length: 99999999999\r\n\r\n", 0, ErrFrame},
		{"beyond int64", "Content-Length: 99999999999999999999999\r\n\r\n", 0, ErrFrame},
		{"negative", "Content-Length: -5\r\n\r\n", 0, ErrFrame},
		{"not a number", "Content-Length: ten\r\n\r\n", 0, ErrFrame},
		{"missing", "Content-Type: x\r\n\r\n", 0, ErrFrame},
		{"no colon", "Content-Length 5\r\n\r\n", 0, ErrFrame},
		{"bare LF", "Content-Length: 5\n\n", 0, ErrFrame},
		{"two lengths", "Content-Length: 2\r\nContent-Length: 3\r\n\r\n", 0, ErrFrame},
		{"overlong header line", strings.Repeat("X", MaxHeaderBytes+1) + "\r\n\r\n", 0, ErrFrame},
		{"cut inside a header", "Content-Len", 0, io.ErrUnexpectedEOF},
		{"clean hang-up", "", 0, io.EOF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := NewReader(strings.NewReader(tt.in), max).ReadHeader()
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if n != tt.want {
				t.Errorf("length = %d, want %d", n, tt.want)
			}
		})
	}
	var tooLarge *TooLargeError
	_, err := NewReader(strings.NewReader("Content-Length: 1001\r\n\r\n"), max).ReadHeader()
	if !errors.As(err, &tooLarge) || tooLarge.Length != 1001 || tooLarge.Max != max {
		t.Errorf("over the cap: %v, want a TooLargeError naming 1001 and %d", err, max)
	}
}

// A reader made on a client library's buffered stream reads from that
// stream, so frames read through two Readers in turn lose no byte, and
// a relay that stops reading frames goes on from Buffered.
func TestReadersShareABufferedStream(t *testing.T) {
	var in bytes.Buffer
	for _, b := range []string{`{"n":1}`, `{"n":2}`} {
		if err := WriteFrame(&in, []byte(b)); err != nil {
			t.Fatal(err)
		}
	}
	in.WriteString("rest")
	br := bufio.NewReader(&in)
	for _, want := range []string{`{"n":1}`, `{"n":2}`} {
		got, err := NewReader(br, 1<<10).ReadFrame()
		if err != nil || string(got) != want {
			t.Fatalf("got %q, %v; want %q", got, err, want)
		}
	}
	rest, _ := io.ReadAll(NewReader(br, 1<<10).Buffered())
	if string(rest) != "rest" {
		t.Errorf("after the frames: %q, want %q", rest, "rest")
	}
}

// A Content-Length that lies costs the bytes actually sent, not the bytes
// announced.
func TestABodyIsBufferedAsItArrives(t *testing.T) {
	const announced = 48 << 20
	input := io.MultiReader(strings.NewReader(fmt.Sprintf("Content-Length: %d\r\n\r\n{\"a\":", announced)), strings.NewReader(strings.Repeat(" ", 1000)))
	f := NewReader(input, 64<<20)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := f.ReadFrame()
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
	f := NewReader(&in, 1<<20)
	for _, want := range bodies {
		got, err := f.ReadFrame()
		if err != nil || string(got) != want {
			t.Fatalf("frame %.30q: got %.30q, %v", want, got, err)
		}
	}
	if _, err := f.ReadFrame(); err != io.EOF {
		t.Errorf("after the last frame: %v, want io.EOF", err)
	}
}

// FuzzFrameHeader checks ReadHeader against a direct reading of the
// framing rule: CRLF-terminated "Name: value" lines up to an empty one,
// all within MaxHeaderBytes; Content-Length (any case) a decimal count no
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
		s := NewReader(strings.NewReader(in), limit)
		n, err := s.ReadHeader()
		wantN, wantOK := oracleHeader(in, limit)
		if (err == nil) != wantOK || (wantOK && n != wantN) {
			t.Fatalf("ReadHeader(%q) = %d, %v; oracle says %d, %v", in, n, err, wantN, wantOK)
		}
	})
}

func oracleHeader(in string, limit int64) (int64, bool) {
	end := strings.Index("\r\n"+in, "\r\n\r\n") // the block ends at the first empty line
	if end < 0 || end+2 > MaxHeaderBytes {
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

// A message without a header, as newline-delimited JSON-RPC peers send
// one, is an UnframedError holding the message (to find its id in), read
// to its end: its newline, the end of the JSON value when no newline
// follows (the peer may be waiting for an answer), or the header cap.
func TestAMessageWithoutAHeaderIsUnframed(t *testing.T) {
	long := `{"jsonrpc":"2.0","id":3,"method":"tools.execute","params":{"content":"` + strings.Repeat("x", 2*MaxHeaderBytes) + `"}}`
	tests := []struct {
		name, in, head string
	}{
		{"a line", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"host.info\"}\n{\"next\":1}\n", `{"jsonrpc":"2.0","id":1,"method":"host.info"}`},
		{"a value and no newline", `{"id":"a","s":"}\"\n{"}` + "{more", `{"id":"a","s":"}\"\n{"}`},
		{"a batch", "[{\"id\":2},{\"id\":3}]\r\n", `[{"id":2},{"id":3}]`},
		{"longer than a header", long, long[:MaxHeaderBytes]},
		{"cut short", `{"id":4,`, `{"id":4,`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewReader(strings.NewReader(tt.in), 1<<20).ReadHeader()
			var u *UnframedError
			if !errors.As(err, &u) || !errors.Is(err, ErrFrame) {
				t.Fatalf("err = %v, want an UnframedError that is an ErrFrame", err)
			}
			if string(u.Head) != tt.head {
				t.Errorf("head = %q, want %q", u.Head, tt.head)
			}
		})
	}
	// A header is still a header.
	if n, err := NewReader(strings.NewReader("Content-Length: 2\r\n\r\n{}"), 10).ReadHeader(); err != nil || n != 2 {
		t.Errorf("a framed message: %d, %v", n, err)
	}
}

// FramingHelp's example is a frame this reader reads, its Content-Length
// the length of its body.
func TestFramingHelpsExampleIsAFrame(t *testing.T) {
	_, example, ok := strings.Cut(FramingHelp, `e.g. "`)
	if !ok {
		t.Fatalf("FramingHelp has no example: %s", FramingHelp)
	}
	example, _, _ = strings.Cut(example, `";`)
	frame := strings.NewReplacer(`\r\n`, "\r\n", `\"`, `"`).Replace(example)
	body, err := NewReader(strings.NewReader(frame), 1<<10).ReadFrame()
	if err != nil || !strings.HasSuffix(frame, string(body)) || !strings.HasPrefix(string(body), "{") {
		t.Fatalf("the example %q reads as %q, %v", frame, body, err)
	}
}

// A header line in an error is quoted whole when short, and otherwise as
// a prefix cut back to a rune boundary with the length of the whole, so a
// peer's long line cannot make the error as long.
func TestQuoteHeadBoundsWhatAnErrorEchoes(t *testing.T) {
	long := strings.Repeat("a", maxQuoted-1) + "é" + strings.Repeat("b", 1000) // é straddles the cut
	for _, tc := range []struct{ in, want string }{
		{"Content-Length 12\n", `"Content-Length 12\n"`},
		{strings.Repeat("x", maxQuoted), strconv.Quote(strings.Repeat("x", maxQuoted))},
		{long, strconv.Quote(strings.Repeat("a", maxQuoted-1)) + "… (" + strconv.Itoa(len(long)) + " bytes)"},
	} {
		if got := quoteHead([]byte(tc.in)); got != tc.want {
			t.Errorf("quoteHead(%d bytes) = %s, want %s", len(tc.in), got, tc.want)
		}
	}
}
