package workspace

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// The tags below were computed outside Go: each input was normalized by
// hand (BOM dropped, CRLF -> LF, trailing [ \t\r] cut from every line,
// final newline kept or not) and the result piped through sha256sum; the
// tag is the last four hex digits of that digest (edit-contract §3.2).
func TestTagPinned(t *testing.T) {
	tests := []struct {
		name   string
		raw    string
		hashed string // the hand-normalized hash input, for the reader
		digest string // sha256sum of hashed
		tag    string
	}{
		{"empty file", "", "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "B855"},
		{"only a newline", "\n", "\n", "01ba4719c80b6fe911b091a7c05124b64eeece964e09c058ef8f9805daca546b", "546B"},
		{"no final newline", "a", "a", "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb", "48BB"},
		{"final newline", "a\n", "a\n", "87428fc522803d31065e7bce3cf03fe475096631e5e07bbd7a0fde60c4cf25c7", "25C7"},
		{"plain line", "hello world\n", "hello world\n", "a948904f2f0f479b8f8197694b30184b0d2ed1c1cd2a1ec0fb85d299a192a447", "A447"},
		{"CRLF", "a\r\nb\r\n", "a\nb\n", "911169ddaaf146aff539f58c26c489af3b892dff0fe283c1c264c65ae5aa59a2", "59A2"},
		{"BOM", "\xEF\xBB\xBFa\n", "a\n", "87428fc522803d31065e7bce3cf03fe475096631e5e07bbd7a0fde60c4cf25c7", "25C7"},
		{"trailing spaces and tabs", "a  \t\nb \n", "a\nb\n", "911169ddaaf146aff539f58c26c489af3b892dff0fe283c1c264c65ae5aa59a2", "59A2"},
		{"two lines, no final newline", "a\nb", "a\nb", "7e18f737311b2dc3b2f269dd78396b0351f14fb66efa879f768cb23181883c78", "3C78"},
		{"lone CR inside a line is content", "a\rb\n", "a\rb\n", "367d1c77eadc1495a7db4200f46a8b90ea1fa926282722d308c05a65098a4112", "4112"},
		{"lone CR at the very end is trailing whitespace", "a\r", "a", "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb", "48BB"},
		{"unicode", "héllo wörld ✓\n", "héllo wörld ✓\n", "5dabebe58c514e4fd624bc7c6177454c78b654fd58e20fb99ea2337e0847ea2c", "EA2C"},
		{"BOM, CRLF, trailing blanks, no final newline", "\xEF\xBB\xBFx = 1  \r\ny = 2\t", "x = 1\ny = 2", "9af816430225a200bd1da83ad7cfc1e13bdff4759621e9d1c92867dfaae11c34", "1C34"},
		{"whitespace-only lines", "   \n\t\r\n", "\n\n", "75a11da44c802486bc6f65640aa48a730f0f684c5c07a42ba3cd1735eb3fb070", "B070"},
		{"mixed endings", "a\r\nb", "a\nb", "7e18f737311b2dc3b2f269dd78396b0351f14fb66efa879f768cb23181883c78", "3C78"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text, err := Decode([]byte(tt.raw))
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			d := Sum(text.Body)
			if d.String() != tt.digest {
				t.Errorf("digest = %s, want %s (sha256 of %q)", d, tt.digest, tt.hashed)
			}
			if d.Tag() != tt.tag {
				t.Errorf("tag = %s, want %s", d.Tag(), tt.tag)
			}
		})
	}
}

func TestDecode(t *testing.T) {
	tests := []struct {
		name      string
		raw       string
		body      string
		bom, crlf bool
	}{
		{"plain", "a\nb\n", "a\nb\n", false, false},
		{"CRLF dominant", "a\r\nb\r\nc\n", "a\nb\nc\n", false, true},
		{"LF dominant keeps no CRLF", "a\r\nb\nc\n", "a\nb\nc\n", false, false},
		{"tie goes to LF", "a\r\nb\n", "a\nb\n", false, false},
		{"BOM stripped and remembered", "\xEF\xBB\xBFa\n", "a\n", true, false},
		{"BOM only", "\xEF\xBB\xBF", "", true, false},
		{"BOM not at start is content", "a\xEF\xBB\xBF\n", "a\xEF\xBB\xBF\n", false, false},
		{"lone CR is content", "a\rb", "a\rb", false, false},
		{"trailing spaces kept in the body", "a  \n", "a  \n", false, false},
		{"CR before CRLF stays", "a\r\r\n", "a\r\n", false, true},
		{"empty", "", "", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Decode([]byte(tt.raw))
			if err != nil {
				t.Fatal(err)
			}
			if got.Body != tt.body || got.BOM != tt.bom || got.CRLF != tt.crlf {
				t.Errorf("Decode(%q) = {%q bom=%v crlf=%v}, want {%q bom=%v crlf=%v}", tt.raw, got.Body, got.BOM, got.CRLF, tt.body, tt.bom, tt.crlf)
			}
		})
	}
}

func TestDecodeNotText(t *testing.T) {
	pad := strings.Repeat("x", NULScanBytes)
	tests := []struct {
		name string
		raw  string
		want error
	}{
		{"NUL at start", "\x00abc", ErrNotText},
		{"NUL at the last byte of the scan window", pad[:NULScanBytes-1] + "\x00", ErrNotText},
		{"NUL past the scan window is text", pad + "\x00", nil},
		{"invalid UTF-8 in the middle", "ab\xffcd", ErrNotText},
		{"truncated rune at the very end", "abc\xe2\x9c", ErrNotText},
		{"invalid UTF-8 far past 8 KiB", pad + pad + "\xc3", ErrNotText},
		{"valid multi-byte runes", "✓é\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode([]byte(tt.raw))
			if !errors.Is(err, tt.want) {
				t.Errorf("Decode error = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestEncodeRestoresBOMAndEnding(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		body string // new body to encode with the file's settings
		want string
	}{
		{"CRLF file keeps CRLF", "a\r\nb\r\n", "x\ny\nz\n", "x\r\ny\r\nz\r\n"},
		{"BOM file keeps BOM", "\xEF\xBB\xBFa\n", "b\n", "\xEF\xBB\xBFb\n"},
		{"BOM and CRLF", "\xEF\xBB\xBFa\r\n", "b\nc", "\xEF\xBB\xBFb\r\nc"},
		{"LF file stays LF", "a\n", "b\nc\n", "b\nc\n"},
		{"no final newline stays absent", "a\r\nb\r\n", "x", "x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text, err := Decode([]byte(tt.raw))
			if err != nil {
				t.Fatal(err)
			}
			if got := string(mustBytes(text.Encode(tt.body))); got != tt.want {
				t.Errorf("Encode(%q) = %q, want %q", tt.body, got, tt.want)
			}
			// The unchanged body round-trips byte for byte.
			if got := string(mustBytes(text.Encode(text.Body))); got != tt.raw {
				t.Errorf("Encode(Decode(%q).Body) = %q", tt.raw, got)
			}
		})
	}
}

func TestLinesAndJoin(t *testing.T) {
	tests := []struct {
		body  string
		lines []string
		final bool
	}{
		{"", nil, false},
		{"\n", []string{""}, true},
		{"a", []string{"a"}, false},
		{"a\n", []string{"a"}, true},
		{"a\n\n", []string{"a", ""}, true},
		{"a\nb", []string{"a", "b"}, false},
		{"\n\nx", []string{"", "", "x"}, false},
	}
	for _, tt := range tests {
		got := Lines(tt.body)
		if len(got) != len(tt.lines) || (len(got) > 0 && strings.Join(got, "|") != strings.Join(tt.lines, "|")) {
			t.Errorf("Lines(%q) = %q, want %q", tt.body, got, tt.lines)
		}
		if back := Join(got, tt.final); back != tt.body {
			t.Errorf("Join(Lines(%q)) = %q", tt.body, back)
		}
	}
}

func TestHasherMatchesSum(t *testing.T) {
	h := NewHasher()
	h.Line("a  ", true)
	h.Line("b\t\r", true)
	h.Line("c", false)
	if got, want := h.Sum(), Sum("a\nb\nc"); got != want {
		t.Errorf("incremental %s != whole %s", got.Tag(), want.Tag())
	}
}

// FuzzDecodeEncode checks what write relies on: encoding a decoded body
// with the file's own BOM and line ending and decoding it again yields the
// same lines and the same digest, so a file written back unchanged keeps
// its tag.
func FuzzDecodeEncode(f *testing.F) {
	for _, s := range []string{"", "\n", "a\r\nb\r\n", "\xEF\xBB\xBFx\r\n", "a\r\r\nb\n", "a\rb", "t  \t\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		text, err := Decode(raw)
		if err != nil {
			if !errors.Is(err, ErrNotText) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		if strings.Contains(text.Body, "\r\n") && !bytes.Contains(raw, []byte("\r\r\n")) {
			t.Fatalf("body %q still holds CRLF", text.Body)
		}
		again, err := Decode(mustBytes(text.Encode(text.Body)))
		if err != nil {
			t.Fatalf("re-decode: %v", err)
		}
		if Sum(again.Body) != Sum(text.Body) {
			t.Fatalf("digest changed across encode: %q -> %q", text.Body, again.Body)
		}
		if len(Lines(again.Body)) != len(Lines(text.Body)) {
			t.Fatalf("line count changed across encode: %q -> %q", text.Body, again.Body)
		}
		if again.BOM != text.BOM {
			t.Fatalf("BOM lost across encode")
		}
	})
}

// mustBytes is the bytes of an encoding that cannot fail: UTF-8's.
func mustBytes(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
