package linewindow

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/workspace"
)

// defaults are the options the read tool passes for a plain read.
func defaults() Options {
	l := config.DefaultLimits()
	return Options{Offset: 1, Limit: l.DefaultReadLimit, MaxLineChars: l.MaxLineChars, RetainBytes: l.MaxRetainedFileBytes}
}

func with(f func(*Options)) Options {
	o := defaults()
	f(&o)
	return o
}

// ln builds the expected window from alternating numbers and texts.
func ln(pairs ...any) []Line {
	var out []Line
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, Line{N: pairs[i].(int), Text: pairs[i+1].(string)})
	}
	return out
}

func clipped(n int, text string) Line { return Line{N: n, Text: text, Clipped: true} }

// TestNormalizationRules pins edit-contract §3.1-§3.2 with
// explicit expected values, independent of the oracle.
func TestNormalizationRules(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		lines     []Line
		total     int
		hashInput string // what the digest must be the SHA-256 of
		bom, crlf bool
		body      string
	}{
		{"empty file has no lines", "", nil, 0, "", false, false, ""},
		{"a lone LF is one empty line", "\n", ln(1, ""), 1, "\n", false, false, "\n"},
		{"terminal newline adds no line", "a\nb\n", ln(1, "a", 2, "b"), 2, "a\nb\n", false, false, "a\nb\n"},
		{"no final newline keeps the last line", "a\nb", ln(1, "a", 2, "b"), 2, "a\nb", false, false, "a\nb"},
		{"blank lines count", "\n\n\nx", ln(1, "", 2, "", 3, "", 4, "x"), 4, "\n\n\nx", false, false, "\n\n\nx"},
		{"BOM stripped and remembered", "\xEF\xBB\xBFa\n", ln(1, "a"), 1, "a\n", true, false, "a\n"},
		{"BOM alone is an empty file", "\xEF\xBB\xBF", nil, 0, "", true, false, ""},
		{"BOM after the start is content", "a\xEF\xBB\xBF", ln(1, "a\uFEFF"), 1, "a\uFEFF", false, false, "a\uFEFF"},
		{"CRLF becomes LF", "a\r\nb\r\n", ln(1, "a", 2, "b"), 2, "a\nb\n", false, true, "a\nb\n"},
		{"BOM and CRLF together", "\xEF\xBB\xBFa\r\n", ln(1, "a"), 1, "a\n", true, true, "a\n"},
		{"mixed endings, CRLF dominant", "a\r\nb\nc\r\n", ln(1, "a", 2, "b", 3, "c"), 3, "a\nb\nc\n", false, true, "a\nb\nc\n"},
		{"mixed endings, LF dominant", "a\r\nb\nc\n", ln(1, "a", 2, "b", 3, "c"), 3, "a\nb\nc\n", false, false, "a\nb\nc\n"},
		{"mixed endings, a tie is LF", "a\r\nb\n", ln(1, "a", 2, "b"), 2, "a\nb\n", false, false, "a\nb\n"},
		{"lone CR is content", "a\rb\n", ln(1, "a\rb"), 1, "a\rb\n", false, false, "a\rb\n"},
		{"lone CR at the end is content but trimmed from the hash", "a\r", ln(1, "a\r"), 1, "a", false, false, "a\r"},
		{"CR before CRLF stays", "a\r\r\n", ln(1, "a\r"), 1, "a\n", false, true, "a\r\n"},
		{"trailing blanks trimmed in the hash only", "a \t\nb  ", ln(1, "a \t", 2, "b  "), 2, "a\nb", false, false, "a \t\nb  "},
		{"trailing blanks before CRLF", "x \t\r\ny", ln(1, "x \t", 2, "y"), 2, "x\ny", false, true, "x \t\ny"},
		{"CR inside trailing blanks", "x\r \n", ln(1, "x\r "), 1, "x\n", false, false, "x\r \n"},
		{"blank last line hashes empty", "a\n  ", ln(1, "a", 2, "  "), 2, "a\n", false, false, "a\n  "},
		{"leading blanks are content", "  a\n\tb", ln(1, "  a", 2, "\tb"), 2, "  a\n\tb", false, false, "  a\n\tb"},
		{"blanks between words are content", "a  b \n", ln(1, "a  b "), 1, "a  b\n", false, false, "a  b \n"},
		{"other Unicode spaces are not trimmed", "a\u00a0\n", ln(1, "a\u00a0"), 1, "a\u00a0\n", false, false, "a\u00a0\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w, err := Read(strings.NewReader(tc.in), defaults())
			if err != nil {
				t.Fatal(err)
			}
			want := &Window{Lines: tc.lines, TotalLines: tc.total, Digest: sha256.Sum256([]byte(tc.hashInput)),
				BOM: tc.bom, CRLF: tc.crlf, FileBytes: int64(len(tc.in)), Body: tc.body, Retained: true}
			if d := diffWindows(w, want, nil, nil); d != "" {
				t.Error(d)
			}
		})
	}
}

func TestFinalNewlineChangesTheTag(t *testing.T) {
	a, _ := Read(strings.NewReader("a"), defaults())
	b, _ := Read(strings.NewReader("a\n"), defaults())
	if a.Digest == b.Digest {
		t.Error(`"a" and "a\n" must be different texts (edit-contract §3.1)`)
	}
}

// The header tag names the whole file, never the window (edit-contract
// §5.1), and line numbers stay absolute whatever the offset.
func TestWindows(t *testing.T) {
	const five = "one\ntwo\nthree\nfour\nfive\n"
	whole := sha256.Sum256([]byte(five))
	tests := []struct {
		name          string
		offset, limit int
		want          []Line
	}{
		{"first lines", 1, 2, ln(1, "one", 2, "two")},
		{"middle keeps absolute numbers", 3, 2, ln(3, "three", 4, "four")},
		{"limit past the end stops at the end", 4, 10, ln(4, "four", 5, "five")},
		{"last line alone", 5, 1, ln(5, "five")},
		{"offset just past the end is empty", 6, 10, nil},
		{"offset far past the end is empty", 1 << 40, 10, nil},
		{"zero limit reads only tag and counts", 1, 0, nil},
		{"huge limit does not overflow", 2, math.MaxInt, ln(2, "two", 3, "three", 4, "four", 5, "five")},
		{"huge offset and limit do not overflow", math.MaxInt, math.MaxInt, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w, err := Read(strings.NewReader(five), with(func(o *Options) { o.Offset, o.Limit = tc.offset, tc.limit }))
			if err != nil {
				t.Fatal(err)
			}
			if w.TotalLines != 5 || w.Digest != whole {
				t.Errorf("TotalLines %d tag %s, want 5 and the whole file's tag %s", w.TotalLines, w.Digest.Tag(), workspace.Digest(whole).Tag())
			}
			if d := diffWindows(&Window{Lines: w.Lines}, &Window{Lines: tc.want}, nil, nil); d != "" {
				t.Error(d)
			}
		})
	}
}

// Clipping counts runes, not bytes (edit-contract §4.3: a clipped line is
// not seen, so the flag must be exact at the boundary).
func TestClipping(t *testing.T) {
	tests := []struct {
		name string
		max  int
		in   string
		want Line
	}{
		{"short line untouched", 3, "ab\n", Line{N: 1, Text: "ab"}},
		{"exactly max runes is not clipped", 3, "abc\n", Line{N: 1, Text: "abc"}},
		{"one rune over is clipped", 3, "abcd\n", clipped(1, "abc")},
		{"two-byte runes count once", 3, "h\u00e9l\n", Line{N: 1, Text: "h\u00e9l"}},
		{"two-byte runes clipped by runes", 3, "h\u00e9llo\n", clipped(1, "h\u00e9l")},
		{"three-byte runes", 2, "\u20ac\u20ac\u20ac", clipped(1, "\u20ac\u20ac")},
		{"four-byte runes", 3, "\U0001F600\U0001F600\U0001F600\U0001F600", clipped(1, "\U0001F600\U0001F600\U0001F600")},
		{"CR of CRLF is not a character", 3, "abc\r\n", Line{N: 1, Text: "abc"}},
		{"lone CR at the end is a character", 3, "abc\r", clipped(1, "abc")},
		{"trailing blank is a character", 3, "abc \n", clipped(1, "abc")},
		{"clip at one rune", 1, "\u00e9\u00e9\n", clipped(1, "\u00e9")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, rd := range readers {
				w, err := read(context.Background(), rd.wrap(strings.NewReader(tc.in)), with(func(o *Options) { o.MaxLineChars = tc.max }), rd.chunk)
				if err != nil {
					t.Fatal(err)
				}
				if len(w.Lines) != 1 || w.Lines[0] != tc.want {
					t.Errorf("reader %s: got %+v, want [%+v]", rd.name, w.Lines, tc.want)
				}
			}
		})
	}
}

// edit-contract §3.4: invalid UTF-8 anywhere, or a NUL in the first 8 KiB, is
// NOT_TEXT; a NUL later is ordinary (if odd) content.
func TestNotText(t *testing.T) {
	pad := strings.Repeat("x", workspace.NULScanBytes-1)
	tests := []struct {
		name    string
		in      string
		notText bool
	}{
		{"NUL at the first byte", "\x00abc", true},
		{"NUL at the last byte of the first 8 KiB", pad + "\x00", true},
		{"NUL just past 8 KiB is fine", pad + "x\x00", false},
		{"BOM counts toward the 8 KiB", "\xEF\xBB\xBF" + pad[3:] + "\x00", true},
		{"invalid byte", "abc\xff\n", true},
		{"invalid UTF-8 as the very last byte", "abc\n\xff", true},
		{"truncated rune at the very end", "abc\n\xe2\x82", true},
		{"truncated BOM is invalid", "\xEF\xBB", true},
		{"overlong encoding", "\xc0\xaf", true},
		{"surrogate half", "\xed\xa0\x80", true},
		{"invalid UTF-8 far past 8 KiB", pad + strings.Repeat("y", 20000) + "\xfe", true},
		{"valid multi-byte text", "h\u00e9llo \u20ac \U0001F600\n", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, rd := range readers {
				_, err := read(context.Background(), rd.wrap(strings.NewReader(tc.in)), defaults(), rd.chunk)
				if got := errors.Is(err, workspace.ErrNotText); got != tc.notText || (!tc.notText && err != nil) {
					t.Errorf("reader %s: err %v, want not-text %v", rd.name, err, tc.notText)
				}
			}
		})
	}
}

func TestRetention(t *testing.T) {
	const in = "\xEF\xBB\xBFa\r\nb\r\n" // 11 bytes, normalized body "a\nb\n"
	tests := []struct {
		name   string
		retain int64
		want   bool
	}{
		{"file smaller than the limit", 100, true},
		{"file exactly at the limit", int64(len(in)), true},
		{"file one byte over the limit", int64(len(in)) - 1, false},
		{"zero limit retains nothing but an empty file", 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, rd := range readers {
				w, err := read(context.Background(), rd.wrap(strings.NewReader(in)), with(func(o *Options) { o.RetainBytes = tc.retain }), rd.chunk)
				if err != nil {
					t.Fatal(err)
				}
				wantBody := ""
				if tc.want {
					wantBody = "a\nb\n"
				}
				if w.Retained != tc.want || w.Body != wantBody || w.FileBytes != int64(len(in)) {
					t.Errorf("reader %s: Retained %v Body %q FileBytes %d, want %v %q %d", rd.name, w.Retained, w.Body, w.FileBytes, tc.want, wantBody, len(in))
				}
			}
		})
	}
	w, err := Read(strings.NewReader(""), with(func(o *Options) { o.RetainBytes = 0 }))
	if err != nil || !w.Retained || w.Body != "" {
		t.Errorf("empty file with zero limit: %+v, %v; want retained empty body", w, err)
	}
}

func TestInvalidOptions(t *testing.T) {
	for _, opt := range []Options{
		with(func(o *Options) { o.Offset = 0 }),
		with(func(o *Options) { o.Offset = -3 }),
		with(func(o *Options) { o.Limit = -1 }),
		with(func(o *Options) { o.MaxLineChars = 0 }),
		with(func(o *Options) { o.RetainBytes = -1 }),
	} {
		if _, err := Read(strings.NewReader("a\n"), opt); !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("%+v: err %v, want ErrInvalidOptions", opt, err)
		}
	}
}

// endless is a reader that never ends: a bound on the pass must come from
// the caller's context (peer lesson 8: every path needs a bound).
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	n := len(p) - len(p)%5
	for i := 0; i < n; i += copy(p[i:n], "abc \n") {
	}
	return n, nil
}

func TestCancellationStopsAnEndlessRead(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	r := &cancelAfter{r: endless{}, left: 64, cancel: cancel}
	_, err := ReadContext(ctx, r, defaults())
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if r.left > 0 {
		t.Errorf("returned before the context was cancelled")
	}
}

type cancelAfter struct {
	r      io.Reader
	left   int
	cancel func()
}

func (c *cancelAfter) Read(p []byte) (int, error) {
	if c.left--; c.left == 0 {
		c.cancel()
	}
	return c.r.Read(p)
}

type failing struct{ after int }

var errDisk = errors.New("disk on fire")

func (f *failing) Read(p []byte) (int, error) {
	if f.after <= 0 {
		return 0, errDisk
	}
	n := min(len(p), f.after)
	copy(p, bytes.Repeat([]byte("x\n"), n)[:n])
	f.after -= n
	return n, nil
}

func TestReaderErrorsAreReturned(t *testing.T) {
	if _, err := Read(&failing{after: 10}, defaults()); !errors.Is(err, errDisk) || errors.Is(err, workspace.ErrNotText) {
		t.Errorf("err %v, want the reader's error", err)
	}
}

type stalled struct{}

func (stalled) Read([]byte) (int, error) { return 0, nil }

func TestAReaderThatNeverProgressesIsAnError(t *testing.T) {
	if _, err := Read(stalled{}, defaults()); err == nil {
		t.Error("a reader returning 0, nil forever must not hang the pass")
	}
}

// MaxWindowBytes ends the window after the line that crosses it, so a
// window of many long lines stays bounded.
func TestMaxWindowBytes(t *testing.T) {
	in := strings.Repeat(strings.Repeat("x", 100)+"\n", 50)
	w, err := Read(strings.NewReader(in), Options{Offset: 3, Limit: 40, MaxLineChars: 1000, MaxWindowBytes: 250})
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Lines) != 3 || w.Lines[0].N != 3 || w.Lines[2].N != 5 {
		t.Fatalf("window %d lines from %d, want lines 3-5", len(w.Lines), w.Lines[0].N)
	}
	if w.TotalLines != 50 || w.Digest != workspace.Sum(in) {
		t.Fatal("the byte bound changed the tag or the line count")
	}
}
