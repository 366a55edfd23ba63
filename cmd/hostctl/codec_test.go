package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
)

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
		{"one past the cap", "Content-Length: 1001\r\n\r\n", 0, errFrameTooLarge},
		{"the 99999999999 header", "Content-Length: 99999999999\r\n\r\n", 0, errFrameTooLarge},
		{"beyond int64", "Content-Length: 99999999999999999999999\r\n\r\n", 0, errBadFrame},
		{"zero", "Content-Length: 0\r\n\r\n", 0, errBadFrame},
		{"negative", "Content-Length: -5\r\n\r\n", 0, errBadFrame},
		{"not a number", "Content-Length: ten\r\n\r\n", 0, errBadFrame},
		{"missing", "Content-Type: x\r\n\r\n", 0, errBadFrame},
		{"no colon", "Content-Length 5\r\n\r\n", 0, errBadFrame},
		{"bare LF", "Content-Length: 5\n\n", 0, errBadFrame},
		{"overlong header line", strings.Repeat("X", maxHeaderLine+1) + "\r\n\r\n", 0, errBadFrame},
		{"cut inside a header", "Content-Len", 0, errBadFrame},
		{"clean hang-up", "", 0, io.EOF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := readHeader(bufio.NewReader(strings.NewReader(tt.in)), max)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if n != tt.want {
				t.Errorf("length = %d, want %d", n, tt.want)
			}
		})
	}
}

// The codec reads one frame at a time off a shared buffered stream: the
// bytes of the next frame must stay in the buffer.
func TestCodecReadsConsecutiveFrames(t *testing.T) {
	var buf bytes.Buffer
	c := &cappedCodec{max: 1 << 10}
	for _, v := range []string{"one", "two"} {
		if err := c.WriteObject(&buf, map[string]string{"v": v}); err != nil {
			t.Fatal(err)
		}
	}
	r := bufio.NewReader(&buf)
	for _, want := range []string{"one", "two"} {
		var got map[string]string
		if err := c.ReadObject(r, &got); err != nil {
			t.Fatal(err)
		}
		if got["v"] != want {
			t.Errorf("got %q, want %q", got["v"], want)
		}
	}
	if c.failure() != nil {
		t.Errorf("a clean read recorded a failure: %v", c.failure())
	}
}

// FuzzReadHeader checks readHeader against a plain oracle: split the
// consumed bytes into CRLF lines, take the last Content-Length line.
func FuzzReadHeader(f *testing.F) {
	for _, s := range []string{
		"Content-Length: 12\r\n\r\n{}",
		"content-length:7\r\nContent-Type: x\r\n\r\n",
		"Content-Length: 99999999999\r\n\r\n",
		"Content-Length: 5\n\n",
		"\r\n",
		"A: b\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n",
	} {
		f.Add([]byte(s))
	}
	const max = 1 << 16
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bufio.NewReader(bytes.NewReader(data))
		n, err := readHeader(r, max)
		if err != nil {
			return
		}
		if n < 1 || n > max {
			t.Fatalf("accepted length %d outside 1..%d", n, max)
		}
		consumed := string(data[:len(data)-r.Buffered()])
		if !strings.HasSuffix(consumed, "\r\n\r\n") && consumed != "\r\n" {
			t.Fatalf("stopped reading at %q, not at the blank line", consumed)
		}
		want := int64(-1)
		for line := range strings.SplitSeq(strings.TrimSuffix(consumed, "\r\n\r\n"), "\r\n") {
			name, value, ok := strings.Cut(line, ":")
			if !ok {
				t.Fatalf("accepted header line without a colon: %q", line)
			}
			if strings.EqualFold(strings.TrimSpace(name), "content-length") {
				want, _ = strconv.ParseInt(strings.TrimSpace(value), 10, 64)
			}
		}
		if n != want {
			t.Fatalf("length %d, oracle says %d for %q", n, want, consumed)
		}
	})
}
