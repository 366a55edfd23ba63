package workspace

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hostd-dev/hostd/workspace/textenc"
)

// An edit of a file in any supported encoding writes every line it does
// not touch as the bytes it had, ending included, and only the changed
// line anew (edit-contract §3.5): for arbitrary text with mixed endings,
// replacing line k of its encoding gives exactly the encoding of the text
// with that line replaced.
func FuzzEncodedEditKeepsUntouchedLines(f *testing.F) {
	for _, s := range []string{"a\nb\nc\n", "a\r\nb\nc", "caf\u00e9\r\nna\u00efve\r\n", "\u65e5\u672c\n\u8a9e\r\n", "x\r\r\ny\rz\n", "only"} {
		for sel := range 12 { // each encoding without and with its mark
			f.Add(s, uint8(sel), uint16(1))
		}
	}
	names := []string{"utf-8", "utf-16le", "utf-16be", "utf-32le", "windows-1252", "shift_jis"}
	f.Add("\u00ff\u00fea\n", uint8(4), uint16(0)) // windows-1252 text that starts like UTF-16LE's mark
	f.Fuzz(func(t *testing.T, s string, sel uint8, k uint16) {
		if !utf8.ValidString(s) {
			return // a tool's text arrives as JSON, always valid UTF-8
		}
		enc, err := textenc.Lookup(names[int(sel)%len(names)])
		if err != nil {
			t.Fatal(err)
		}
		bom := sel >= uint8(len(names)) && len(enc.BOM()) > 0 // a mark, where the encoding has one
		body, err := enc.NewEncoder().Append(nil, s)
		if err != nil {
			return // s holds a character enc cannot represent
		}
		var raw []byte
		if bom {
			raw = append(raw, enc.BOM()...)
		}
		raw = append(raw, body...)
		setting := enc
		if bom {
			setting = textenc.UTF8 // the mark alone must name the encoding
		}
		text, err := DecodeAs(raw, setting)
		if err != nil {
			if !errors.Is(err, ErrNotText) {
				t.Fatalf("decode: %v", err)
			}
			// A Unicode encoding (one with a mark) of valid text decodes
			// unless the text holds a NUL; a legacy one may also refuse
			// bytes with a second spelling (strictness).
			if len(enc.BOM()) > 0 && !strings.Contains(s[:min(len(s), NULScanBytes)], "\x00") {
				t.Fatalf("%s of %q with mark %v: %v", enc.Name(), s, bom, err)
			}
			return
		}
		if text.Enc != enc {
			// A mark wins over the setting (§3.5), so a text whose bytes
			// start like one is read as the mark says; and UTF-16LE's mark
			// before a text starting with NUL is UTF-32LE's (tried first).
			// No other text is misread.
			_, _, marked := textenc.Sniff(body)
			if !(bom && enc == textenc.UTF16LE && strings.HasPrefix(s, "\x00")) && !(!bom && marked) {
				t.Fatalf("%q in %s read as %s", s, enc.Name(), text.Enc.Name())
			}
			return
		}
		if text.BOM != bom {
			return // the text itself starts with a mark, which is read as one
		}
		old := Lines(text.Body)
		if len(old) == 0 {
			return
		}
		segs := strings.SplitAfter(s, "\n")
		if segs[len(segs)-1] == "" {
			segs = segs[:len(segs)-1]
		}
		if len(segs) != len(old) {
			t.Fatalf("%d lines decoded from %d in the text", len(old), len(segs))
		}
		n := len(old)
		line := 1 + int(k)%n
		final := strings.HasSuffix(text.Body, "\n")
		x, err := text.Index(raw)
		if err != nil {
			t.Fatal(err)
		}
		copies := []Copy{{New: 1, Old: 1, N: line - 1}, {New: line + 1, Old: line + 1, N: n - line}}
		got, err := text.EncodeRows(x, []string{"X"}, copies, final)
		if err != nil {
			t.Fatalf("encode: %v", err)
		}

		eol := "\n"
		if text.CRLF {
			eol = "\r\n"
		}
		if line == n && !final {
			eol = ""
		}
		want := strings.Join(segs[:line-1], "") + "X" + eol + strings.Join(segs[line:], "")
		wantRaw, err := enc.NewEncoder().Append(nil, want)
		if err != nil {
			t.Fatal(err)
		}
		if text.BOM {
			wantRaw = append(append([]byte(nil), enc.BOM()...), wantRaw...)
		}
		if string(got) != string(wantRaw) {
			t.Fatalf("replacing line %d of %q in %s gave\n%q\nwant\n%q", line, s, enc.Name(), got, wantRaw)
		}
	})
}
