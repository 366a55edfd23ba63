package textenc

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// encodings are every encoding the tests hold to the round trip: the
// ones a byte-order mark announces and a legacy one of each family.
var encodings = []string{
	"utf-8", "utf-16le", "utf-16be", "utf-32le", "utf-32be",
	"windows-1252", "iso-8859-1", "iso-8859-15", "koi8-r", "ibm437",
	"shift_jis", "euc-jp", "euc-kr", "gbk", "gb18030", "big5",
}

func lookup(t testing.TB, name string) Encoding {
	t.Helper()
	e, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestLookup(t *testing.T) {
	for name, want := range map[string]string{
		"UTF-8": "UTF-8", "utf8": "UTF-8", "utf-16le": "UTF-16LE", "UTF-32BE": "UTF-32BE",
		"windows-1252": "windows-1252", "latin1": "ISO-8859-1", "ISO-8859-1": "ISO-8859-1",
		"shift_jis": "Shift_JIS", "csShiftJIS": "Shift_JIS", "gbk": "GBK", "cp437": "IBM437",
	} {
		if got := lookup(t, name).Name(); got != want {
			t.Errorf("Lookup(%q) = %s, want %s", name, got, want)
		}
	}
	if lookup(t, "latin1") != lookup(t, "iso-8859-1") {
		t.Error("two names of one encoding give unequal Encodings")
	}
	for _, bad := range []string{"", "klingon", "utf-16", "utf-32", "iso-2022-jp", "hz-gb-2312"} {
		if _, err := Lookup(bad); !errors.Is(err, ErrUnknown) {
			t.Errorf("Lookup(%q) = %v, want ErrUnknown", bad, err)
		}
	}
}

func TestSniff(t *testing.T) {
	for _, c := range []struct {
		head []byte
		want Encoding
		n    int
	}{
		{[]byte("\xEF\xBB\xBFa"), UTF8, 3},
		{[]byte("\xFF\xFEa\x00"), UTF16LE, 2},
		{[]byte("\xFE\xFF\x00a"), UTF16BE, 2},
		{[]byte("\xFF\xFE\x00\x00a\x00\x00\x00"), UTF32LE, 4},
		{[]byte("\x00\x00\xFE\xFF\x00\x00\x00a"), UTF32BE, 4},
	} {
		e, n, ok := Sniff(c.head)
		if !ok || e != c.want || n != c.n {
			t.Errorf("Sniff(%q) = %s %d %v, want %s %d", c.head, e, n, ok, c.want, c.n)
		}
	}
	if _, _, ok := Sniff([]byte("caf\xe9")); ok {
		t.Error("Sniff found a mark in bytes without one")
	}
}

func TestDecodeAndEncode(t *testing.T) {
	for _, c := range []struct {
		enc, text string
		raw       []byte
	}{
		{"utf-16le", "hello\r\nworld\r\n", []byte("h\x00e\x00l\x00l\x00o\x00\r\x00\n\x00w\x00o\x00r\x00l\x00d\x00\r\x00\n\x00")},
		{"utf-16be", "a😀", []byte("\x00a\xD8\x3D\xDE\x00")},
		{"iso-8859-1", "café\nnaïve\n", []byte("caf\xe9\nna\xefve\n")},
		{"windows-1252", "€5", []byte("\x805")},
		{"shift_jis", "日本", []byte("\x93\xfa\x96\x7b")},
	} {
		e := lookup(t, c.enc)
		got, err := e.Decode(c.raw)
		if err != nil || string(got) != c.text {
			t.Errorf("%s: Decode = %q, %v; want %q", c.enc, got, err, c.text)
		}
		back, err := e.NewEncoder().Append(nil, c.text)
		if err != nil || !bytes.Equal(back, c.raw) {
			t.Errorf("%s: Append = %q, %v; want %q", c.enc, back, err, c.raw)
		}
	}
}

func TestDecodeRefusesWhatDoesNotRoundTrip(t *testing.T) {
	for _, c := range []struct {
		enc string
		raw []byte
		off int64
	}{
		{"utf-8", []byte("ab\xff"), 2},
		{"utf-16le", []byte("a\x00b"), 2},                        // an odd byte at the end
		{"utf-16le", []byte("a\x00\x00\xD8b\x00"), 2},            // a lone high surrogate
		{"utf-16be", []byte("\x00a\xDC\x00"), 2},                 // a lone low surrogate
		{"utf-32le", []byte("a\x00\x00\x00\x00\x00\x11\x00"), 4}, // past U+10FFFF
		{"windows-1252", []byte("ok\x81"), 2},                    // a byte 1252 leaves undefined
		{"shift_jis", []byte("a\x81"), 1},                        // a lead byte without its trail
	} {
		e := lookup(t, c.enc)
		_, err := e.Decode(c.raw)
		var de *DecodeError
		if !errors.As(err, &de) || de.Offset != c.off || !errors.Is(err, ErrInvalid) {
			t.Errorf("%s %q: Decode error %v, want a DecodeError at %d", c.enc, c.raw, err, c.off)
		}
		if _, err := io.ReadAll(e.NewReader(bytes.NewReader(c.raw))); !errors.As(err, &de) || de.Offset != c.off {
			t.Errorf("%s %q: Reader error %v, want a DecodeError at %d", c.enc, c.raw, err, c.off)
		}
	}
}

func TestEncodeNamesTheCharacterItCannotWrite(t *testing.T) {
	for _, c := range []struct {
		enc, text string
		off       int
		r         rune
	}{
		{"iso-8859-1", "ab€c", 2, '€'},
		{"windows-1252", "x\n日", 2, '日'},
		{"shift_jis", "é", 0, 'é'},
	} {
		enc := lookup(t, c.enc).NewEncoder()
		dst := []byte("keep")
		out, err := enc.Append(dst, c.text)
		var ue *UnencodableError
		if !errors.As(err, &ue) || ue.Offset != c.off || ue.Rune != c.r || string(out) != "keep" {
			t.Errorf("%s %q: %q, %v; want an UnencodableError of %q at %d and dst unchanged", c.enc, c.text, out, err, c.r, c.off)
		}
		if _, err := enc.EncodedLen(c.text); !errors.As(err, &ue) || ue.Offset != c.off {
			t.Errorf("%s %q: EncodedLen error %v", c.enc, c.text, err)
		}
	}
}

// FuzzRoundTrip holds every supported encoding to the identity: bytes either
// decode, and then encode back to exactly themselves, or are refused; and
// the streaming Reader, read in pieces of any size, agrees with Decode.
func FuzzRoundTrip(f *testing.F) {
	for _, s := range []string{"", "hello\r\nworld\r\n", "caf\xe9\n", "\xff\xfe", "a\x00\x00\xd8", "\x93\xfa\x96\x7b", "\x81\x40\xa1"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		for _, e := range Supported() {
			name := e.Name()
			text, err := e.Decode(raw)
			if err == nil {
				back, err := e.NewEncoder().Append(nil, string(text))
				if err != nil || !bytes.Equal(back, raw) {
					t.Fatalf("%s: %q decoded to %q, which encodes to %q, %v", name, raw, text, back, err)
				}
				if n, err := e.NewEncoder().EncodedLen(string(text)); err != nil || n != len(raw) {
					t.Fatalf("%s: EncodedLen %d, %v; want %d", name, n, err, len(raw))
				}
			}
			for _, r := range []io.Reader{iotest.OneByteReader(bytes.NewReader(raw)), iotest.HalfReader(bytes.NewReader(raw)), bytes.NewReader(raw)} {
				streamed, serr := io.ReadAll(e.NewReader(r))
				if (err == nil) != (serr == nil) || (err == nil && !bytes.Equal(streamed, text)) {
					t.Fatalf("%s: %q: Reader gave %q, %v; Decode %q, %v", name, raw, streamed, serr, text, err)
				}
				var de, sde *DecodeError
				if errors.As(err, &de) && (!errors.As(serr, &sde) || sde.Offset != de.Offset) {
					t.Fatalf("%s: %q: Reader error %v, Decode error %v", name, raw, serr, err)
				}
			}
		}
	})
}

// Supported lists each encoding Lookup accepts once, by a name Lookup
// gives back as that encoding, including a legacy one of every family
// the tests name; stateful ones are not on it.
func TestSupported(t *testing.T) {
	all := Supported()
	seen := map[Encoding]bool{}
	for _, e := range all {
		if seen[e] {
			t.Errorf("%s listed twice", e)
		}
		seen[e] = true
		if back, err := Lookup(e.Name()); err != nil || back != e {
			t.Errorf("Lookup(%q) = %s, %v; want the listed encoding", e.Name(), back, err)
		}
	}
	for _, name := range encodings {
		if !seen[lookup(t, name)] {
			t.Errorf("%s is supported but not listed", name)
		}
	}
	for _, name := range []string{"iso-2022-jp", "hz-gb-2312"} {
		for _, e := range all {
			if e.Name() == name || e.Name() == strings.ToUpper(name) {
				t.Errorf("stateful %s is listed", name)
			}
		}
	}
}

// Resemble names the byte order of UTF-16 and UTF-32 text without a
// mark, also when the head ends inside a character, and nothing for
// binary bytes or for text that has no zero byte.
func TestResemble(t *testing.T) {
	enc := func(e Encoding, s string) []byte {
		b, err := e.NewEncoder().Append(nil, s)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	text := "package main\r\n\tfmt.Println(\"héllo 😀\")\n"
	for _, e := range []Encoding{UTF16LE, UTF16BE, UTF32LE, UTF32BE} {
		b := enc(e, text)
		for cut := len(b) - 3; cut <= len(b); cut++ {
			if got, ok := Resemble(b[:cut]); !ok || got != e {
				t.Errorf("%s cut at %d of %d bytes resembles %v, %v", e, cut, len(b), got, ok)
			}
		}
		if e == UTF16LE || e == UTF16BE {
			// The surrogate pair of 😀, cut after its high half.
			i := bytes.Index(b, enc(e, "😀")) + 2
			if got, ok := Resemble(b[:i]); !ok || got != e {
				t.Errorf("%s cut inside a surrogate pair resembles %v, %v", e, got, ok)
			}
		}
	}
	ru := "привет мир\nещё одна строка\n"
	for _, e := range []Encoding{UTF16LE, UTF16BE} {
		if got, ok := Resemble(enc(e, ru)); !ok || got != e {
			t.Errorf("Russian in %s resembles %v, %v", e, got, ok)
		}
	}
	for name, head := range map[string][]byte{
		"utf-8":          []byte(text),
		"windows-1252":   []byte("caf\xe9\n"),
		"an ELF header":  []byte("\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x3e\x00"),
		"a PNG header":   []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00"),
		"zeros":          make([]byte, 64),
		"one character":  enc(UTF16LE, "a"),
		"a control char": enc(UTF16LE, "ab\x01cdefgh"),
		"a stray NUL":    []byte("binary\n\x00"),
		"a NUL in text":  []byte("package main\n\nfunc main() {}\n\x00\n"),
	} {
		if got, ok := Resemble(head); ok {
			t.Errorf("%s resembles %s", name, got)
		}
	}
}
