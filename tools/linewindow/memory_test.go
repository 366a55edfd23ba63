package linewindow

import (
	"crypto/sha256"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/workspace"
)

// patternReader generates size bytes: head, then body repeated, then tail.
// It holds nothing, so any heap the pass grows is the pass's own.
type patternReader struct {
	head, body, tail string
	size             int64 // bytes of body repetition
	off              int64 // position in head+body*+tail
}

func (r *patternReader) total() int64 { return int64(len(r.head)) + r.size + int64(len(r.tail)) }

func (r *patternReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) && r.off < r.total() {
		switch h := int64(len(r.head)); {
		case r.off < h:
			c := copy(p[n:], r.head[r.off:])
			n += c
			r.off += int64(c)
		case r.off < h+r.size:
			i := (r.off - h) % int64(len(r.body))
			c := copy(p[n:min(len(p), n+int(h+r.size-r.off))], r.body[i:])
			n += c
			r.off += int64(c)
		default:
			c := copy(p[n:], r.tail[r.off-h-r.size:])
			n += c
			r.off += int64(c)
		}
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

// digestOf is plain SHA-256 of a stream; each case states its hash input
// by hand (content kept, trailing blanks dropped).
func digestOf(r io.Reader) workspace.Digest {
	h := sha256.New()
	io.Copy(h, r)
	var d workspace.Digest
	h.Sum(d[:0])
	return d
}

// memoryInputBytes is the size of TestMemoryIsBoundedByTheWindow's
// inputs: 64 MiB, or 24 MiB under the race detector (which took 80 to
// 170 s for 64 MiB). 24 MiB is still four times the bound the test holds
// the pass to, so a pass whose memory grew with the file would fail it.
func memoryInputBytes() int64 {
	if raceEnabled {
		return 24 << 20
	}
	return 64 << 20
}

// TestMemoryIsBoundedByTheWindow reads inputs of tens of MiB that have no
// line structure to lean on and checks, through the allocator's own
// counters, that the pass allocates a small fraction of the input (the
// bound is chunk + window + RetainBytes, not file size).
func TestMemoryIsBoundedByTheWindow(t *testing.T) {
	if testing.Short() {
		t.Skip("reads inputs of tens of MiB; skipped under -short")
	}
	size := memoryInputBytes()
	blanks := " \t \t\t  "
	tests := []struct {
		name      string
		in        func() io.Reader
		hashInput func() io.Reader // nil: the whole input is hashed as is
		lines     int
	}{
		{
			name: "one 64 MiB line",
			in: func() io.Reader {
				return &patternReader{body: "func lineWindow() { x := 1 } // \u00e9t\u00e9 ", size: size, tail: "end"}
			},
			lines: 1,
		},
		{
			name:      "64 MiB of blanks with no newline",
			in:        func() io.Reader { return &patternReader{body: blanks, size: size} },
			hashInput: func() io.Reader { return strings.NewReader("") },
			lines:     1,
		},
		{
			name:      "64 MiB of blanks then a newline",
			in:        func() io.Reader { return &patternReader{head: "x", body: blanks, size: size, tail: "\r\ny"} },
			hashInput: func() io.Reader { return strings.NewReader("x\ny") },
			lines:     2,
		},
		{
			name:      "64 MiB of lines that are one blank each",
			in:        func() io.Reader { return &patternReader{body: " \n", size: size} },
			hashInput: func() io.Reader { return &patternReader{body: "\n", size: size / 2} },
			lines:     int(size / 2),
		},
		{
			name:  "64 MiB of blanks inside a line",
			in:    func() io.Reader { return &patternReader{head: "x", body: blanks, size: size, tail: "y\n"} },
			lines: 1,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opt := defaults()
			want := digestOf(tc.in())
			if tc.hashInput != nil {
				want = digestOf(tc.hashInput())
			}
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			w, err := Read(tc.in(), opt)
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			allocated := after.TotalAlloc - before.TotalAlloc
			t.Logf("allocated %d KiB for a %d MiB input", allocated>>10, size>>20)
			// The body grows by doubling up to RetainBytes before the file
			// proves too large; the rest is three chunk buffers and their
			// stages (2 x 256 KiB each), the hash plan and the window.
			bound := uint64(2*opt.RetainBytes + 2<<20)
			if 4*bound > uint64(size) {
				t.Fatalf("a %d-byte input is too small to tell a bound of %d bytes from growth with the file", size, bound)
			}
			if allocated > bound || allocated > uint64(size)/4 {
				t.Errorf("the pass allocated %d bytes for a %d-byte input; want at most %d", allocated, size, bound)
			}
			if w.Digest != want {
				t.Errorf("tag %s, want %s", w.Digest.Tag(), want.Tag())
			}
			if w.TotalLines != tc.lines || w.Retained || len(w.Lines) != min(tc.lines, opt.Limit) {
				t.Fatalf("TotalLines %d Retained %v window %d, want %d lines, not retained", w.TotalLines, w.Retained, len(w.Lines), tc.lines)
			}
			if tc.lines > 2 {
				return // short lines: nothing to clip
			}
			head := tc.in().(*patternReader)
			wantText := string([]rune(head.head + strings.Repeat(head.body, opt.MaxLineChars))[:opt.MaxLineChars])
			if first := w.Lines[0]; !first.Clipped || first.Text != wantText {
				t.Errorf("first line: clipped %v, %d runes; want clipped at %d runes of the input", first.Clipped, len([]rune(first.Text)), opt.MaxLineChars)
			}
		})
	}
}
