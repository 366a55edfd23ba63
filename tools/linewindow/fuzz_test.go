package linewindow

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/workspace"
)

func addSeeds(f *testing.F, add func(data []byte)) {
	for _, s := range tricky {
		add([]byte(s))
	}
	add([]byte(strings.Repeat("func f() {  \r\n\treturn \u00e9\t\n}\n", 20)))
	add(append(bytes.Repeat([]byte("x"), workspace.NULScanBytes-2), 0, '\n'))
}

// FuzzReadWindow holds the streaming pass to the whole-input oracle for
// random bytes, windows, line widths, window byte bounds, retention limits,
// chunk sizes and read sizes: same error, same tag, same window, same body.
func FuzzReadWindow(f *testing.F) {
	addSeeds(f, func(data []byte) {
		f.Add(data, uint16(1), uint16(5), uint8(3), uint16(40), uint8(3), uint8(2), uint8(0))
	})
	f.Fuzz(func(t *testing.T, data []byte, offset, limit uint16, maxChars uint8, retain uint16, chunk, perRead, windowBytes uint8) {
		opt := Options{
			Offset:         int(offset)%64 + 1,
			Limit:          int(limit) % 64,
			MaxLineChars:   int(maxChars)%24 + 1,
			RetainBytes:    int64(retain) % int64(len(data)+2),
			MaxWindowBytes: int64(windowBytes) % 48, // 0, no bound, one time in 48
		}
		want, wantErr := oracle(data, opt)
		r := nReader{bytes.NewReader(data), int(perRead)%9 + 1}
		got, err := read(context.Background(), r, opt, int(chunk)%17+1)
		if d := diffWindows(got, want, err, wantErr); d != "" {
			t.Fatalf("%+v chunk %d perRead %d:\n%s", opt, int(chunk)%17+1, r.n, d)
		}
	})
}

var tagPattern = regexp.MustCompile(`^[0-9A-F]{4}$`)

// FuzzNormalization checks properties of the workspace normalization that
// the tag relies on (edit-contract §3.1): the tag of what a write puts on
// disk, with either line ending, is the tag of the normalized text;
// trailing blanks never change it; Lines and Join are inverses.
func FuzzNormalization(f *testing.F) {
	addSeeds(f, func(data []byte) { f.Add(data) })
	f.Fuzz(func(t *testing.T, raw []byte) {
		text, err := workspace.Decode(raw)
		if err != nil {
			return
		}
		body := text.Body
		lines := workspace.Lines(body)
		if got := workspace.Join(lines, strings.HasSuffix(body, "\n")); got != body {
			t.Fatalf("Join(Lines(%q)) = %q", body, got)
		}
		sum := workspace.Sum(body)
		if !tagPattern.MatchString(sum.Tag()) {
			t.Fatalf("tag %q is not 4 uppercase hex digits", sum.Tag())
		}
		trimmed := make([]string, len(lines))
		for i, l := range lines {
			trimmed[i] = strings.TrimRight(l, " \t\r")
		}
		if workspace.Sum(workspace.Join(trimmed, strings.HasSuffix(body, "\n"))) != sum {
			t.Fatalf("trimming trailing blanks changed the digest of %q", body)
		}
		for _, crlf := range []bool{false, true} {
			enc, _ := workspace.Text{BOM: text.BOM, CRLF: crlf}.Encode(body) // UTF-8 encodes anything
			w, err := Read(bytes.NewReader(enc), Options{Offset: 1, Limit: 0, MaxLineChars: 1, RetainBytes: 1 << 20})
			if err != nil {
				t.Fatalf("re-encoded %q (crlf %v): %v", body, crlf, err)
			}
			if w.Digest != sum || w.TotalLines != len(lines) || w.BOM != text.BOM {
				t.Fatalf("re-encoded %q (crlf %v): tag %s lines %d bom %v, want %s %d %v",
					body, crlf, w.Digest.Tag(), w.TotalLines, w.BOM, sum.Tag(), len(lines), text.BOM)
			}
			// A CRLF write restores the body exactly; an LF write does
			// too unless the body holds a CR right before an LF, which
			// only a CR before a CRLF in the original produces.
			if !crlf && strings.Contains(body, "\r\n") {
				continue
			}
			if w.Body != body {
				t.Fatalf("re-encoded %q (crlf %v) reads back as %q", body, crlf, w.Body)
			}
			if wantCRLF := crlf && strings.Contains(body, "\n"); w.CRLF != wantCRLF {
				t.Fatalf("re-encoded %q (crlf %v): CRLF %v, want %v", body, crlf, w.CRLF, wantCRLF)
			}
		}
	})
}
