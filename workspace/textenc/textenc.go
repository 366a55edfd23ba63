// Package textenc owns the character encodings a text file may be stored
// in: which ones hostd supports and by what names (Lookup), the byte-order
// marks that announce one (Sniff), and the strict conversion between a
// file's bytes and UTF-8 both ways (Decode, Encode, NewReader) that the
// rest of hostd works in. Strict means a round trip: bytes decode only
// when encoding their text again gives back exactly those bytes, so a
// file that is decoded, edited and encoded keeps every byte of what the
// edit did not touch (edit-contract §3.5).
//
// It converts bytes it is handed and nothing else: it does not know
// paths, which file uses which encoding (workspace does), lines or tags.
package textenc

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/ianaindex"
	xunicode "golang.org/x/text/encoding/unicode"
	"golang.org/x/text/encoding/unicode/utf32"
)

// Encoding is one supported encoding. The zero value is UTF-8, the
// encoding every file has unless a byte-order mark or the workspace's
// setting says otherwise. Encodings are comparable.
type Encoding struct {
	c *codec // nil: UTF-8
}

// codec is a supported encoding other than UTF-8.
type codec struct {
	name string // the canonical name: the MIME name where there is one
	enc  encoding.Encoding
	bom  []byte // the mark that announces this encoding; nil for none
}

// UTF8 is the zero Encoding, named for readability at call sites.
var UTF8 = Encoding{}

// The Unicode encodings a byte-order mark announces. Their decoders
// ignore a BOM: the caller strips the file's one (Sniff), and a second
// U+FEFF is content.
var (
	UTF16LE = Encoding{&codec{name: "UTF-16LE", enc: xunicode.UTF16(xunicode.LittleEndian, xunicode.IgnoreBOM), bom: []byte{0xFF, 0xFE}}}
	UTF16BE = Encoding{&codec{name: "UTF-16BE", enc: xunicode.UTF16(xunicode.BigEndian, xunicode.IgnoreBOM), bom: []byte{0xFE, 0xFF}}}
	UTF32LE = Encoding{&codec{name: "UTF-32LE", enc: utf32.UTF32(utf32.LittleEndian, utf32.IgnoreBOM), bom: []byte{0xFF, 0xFE, 0x00, 0x00}}}
	UTF32BE = Encoding{&codec{name: "UTF-32BE", enc: utf32.UTF32(utf32.BigEndian, utf32.IgnoreBOM), bom: []byte{0x00, 0x00, 0xFE, 0xFF}}}
)

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// Name is the encoding's canonical name, as messages and host.info show
// it: "UTF-8", "UTF-16LE", "windows-1252", "Shift_JIS".
func (e Encoding) Name() string {
	if e.c == nil {
		return "UTF-8"
	}
	return e.c.name
}

func (e Encoding) String() string { return e.Name() }

// IsUTF8 reports whether e is UTF-8, whose bytes hostd uses as they are.
func (e Encoding) IsUTF8() bool { return e.c == nil }

// BOM is the byte-order mark of e: the one Sniff recognises, and the one
// a file that had it is written with again.
func (e Encoding) BOM() []byte {
	if e.c == nil {
		return utf8BOM
	}
	return e.c.bom
}

// Sniff returns the encoding a byte-order mark at the start of head
// announces and the mark's length, or ok false when head starts with
// none. UTF-32LE's mark begins with UTF-16LE's, so it is tried first: a
// UTF-16LE file whose first character is U+0000 is not text anyway.
func Sniff(head []byte) (e Encoding, bomLen int, ok bool) {
	for _, c := range []Encoding{UTF8, UTF32LE, UTF32BE, UTF16LE, UTF16BE} {
		if b := c.BOM(); bytes.HasPrefix(head, b) {
			return c, len(b), true
		}
	}
	return UTF8, 0, false
}

// Resemble returns the UTF-16 or UTF-32 byte order, without a byte-order
// mark, that head (a file's first bytes) decodes to text in (textLike),
// or ok false. It is a hint for the message that refuses a file as not
// text, never a decision: hostd does not decode a file by a guess. Only a
// head holding a zero byte can resemble one: text in UTF-16 or UTF-32
// that is mostly ASCII has a zero byte in nearly every character, while
// bytes with none are more likely text in a legacy 8-bit encoding.
func Resemble(head []byte) (Encoding, bool) {
	if bytes.IndexByte(head, 0) < 0 {
		return UTF8, false
	}
	for _, e := range []Encoding{UTF32LE, UTF32BE} {
		if textLike(e, whole(e, head)) {
			return e, true
		}
	}
	// Nearly any bytes decode to UTF-16 characters, most of them CJK: the
	// zeros decide. Text in UTF-16 has them in the high byte of every
	// ASCII character (line ends and spaces at least) and rarely in the
	// low byte, so the order is the one whose high bytes hold the zeros,
	// and a head resembles it only if at least one character in eight
	// has one there and no more than one zero in eight is elsewhere. A
	// UTF-8 text with a stray NUL, or ASCII in UTF-16LE read as UTF-16BE,
	// does not.
	var zeros [2]int // at even and at odd offsets
	for i, b := range head {
		if b == 0 {
			zeros[i&1]++
		}
	}
	e, high, low := UTF16LE, zeros[1], zeros[0]
	if zeros[0] > zeros[1] {
		e, high, low = UTF16BE, zeros[0], zeros[1]
	}
	if units := len(head) / 2; units >= 8 && high*8 >= units && low*8 <= high && textLike(e, whole(e, head)) {
		return e, true
	}
	return UTF8, false
}

// whole is head cut to whole characters of e, a UTF-16 or UTF-32
// encoding: head may end inside one.
func whole(e Encoding, head []byte) []byte {
	if e == UTF32LE || e == UTF32BE {
		return head[:len(head)&^3]
	}
	head = head[:len(head)&^1]
	if n := len(head); n >= 2 {
		hi := head[n-1] // the high byte of the last unit
		if e == UTF16BE {
			hi = head[n-2]
		}
		if hi&0xFC == 0xD8 { // a high surrogate whose pair was cut off
			head = head[:n-2]
		}
	}
	return head
}

// textLike reports whether b decodes in e to two or more characters, each
// graphic (a letter, mark, number, punctuation, symbol or space) or tab,
// line feed, carriage return, form feed or escape.
func textLike(e Encoding, b []byte) bool {
	text, err := e.Decode(b)
	if err != nil || utf8.RuneCount(text) < 2 {
		return false
	}
	for _, r := range string(text) {
		if !unicode.IsGraphic(r) && !strings.ContainsRune("\t\n\r\f\x1b", r) {
			return false
		}
	}
	return true
}

// MaxBOM is the length of the longest byte-order mark: how much of a file
// Sniff needs to see.
const MaxBOM = 4

// ErrUnknown reports an encoding name hostd does not support.
var ErrUnknown = errors.New("unknown encoding")

// stateful are the encodings golang.org/x/text offers that carry a shift
// state from one character to the next: a line's bytes would depend on
// the lines before it, so an edit could not keep untouched lines byte for
// byte. They are refused by name.
var stateful = map[string]bool{"ISO-2022-JP": true, "HZ-GB-2312": true, "UTF-7": true}

// Lookup returns the encoding of an IANA name or alias, matched without
// regard to case: "utf-8", "utf-16le", "windows-1252", "latin1",
// "iso-8859-15", "shift_jis", "euc-jp", "euc-kr", "gbk", "gb18030",
// "big5", "koi8-r", "ibm437". Only stateless encodings are supported;
// "utf-16" and "utf-32" without an order are refused, because the order
// of a file without a mark would be a guess.
func Lookup(name string) (Encoding, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	switch n {
	case "utf-8", "utf8":
		return UTF8, nil
	case "utf-16le":
		return UTF16LE, nil
	case "utf-16be":
		return UTF16BE, nil
	case "utf-32le":
		return UTF32LE, nil
	case "utf-32be":
		return UTF32BE, nil
	case "utf-16", "utf-32", "ucs-2":
		return UTF8, fmt.Errorf("%w %q: name the byte order, %s", ErrUnknown, name, strings.ToUpper(n)+"LE or "+strings.ToUpper(n)+"BE")
	}
	enc, err := ianaindex.IANA.Encoding(n)
	if err != nil || enc == nil {
		return UTF8, fmt.Errorf("%w %q: use an IANA name such as windows-1252, iso-8859-1, shift_jis, euc-jp, gbk or big5", ErrUnknown, name)
	}
	canon, err := ianaindex.MIME.Name(enc)
	if err != nil {
		canon, _ = ianaindex.IANA.Name(enc)
	}
	if stateful[canon] {
		return UTF8, fmt.Errorf("%w %q: %s keeps a shift state across lines, so an edit could not keep the lines it leaves alone byte for byte; it is not supported", ErrUnknown, name, canon)
	}
	if canon == "UTF-8" {
		return UTF8, nil
	}
	return intern(canon, enc), nil
}

// interned holds one codec per canonical name, so that two lookups of
// one encoding, by any of its names, give equal Encodings.
var interned sync.Map // canonical name -> *codec

func intern(canon string, enc encoding.Encoding) Encoding {
	c, _ := interned.LoadOrStore(canon, &codec{name: canon, enc: enc})
	return Encoding{c.(*codec)}
}

// Expansion is the most bytes of UTF-8 text one byte of e decodes to,
// rounded up: what a caller that decodes a whole input must budget per
// input byte. UTF-8 is 1 (it is not decoded); a single-byte encoding is 3
// (a byte to U+0800 and above, as windows-1252's 0x80 is "€").
func (e Encoding) Expansion() int64 {
	switch e {
	case UTF8, UTF32LE, UTF32BE:
		return 1
	case UTF16LE, UTF16BE:
		return 2 // two bytes to at most three
	}
	return 3
}

// Growth is the most bytes of e one byte of UTF-8 text encodes to: what
// a caller that encodes a whole text must budget per byte of it. UTF-16
// is 2 (ASCII), UTF-32 is 4; the legacy encodings are 1 (none spends
// more bytes on a character than UTF-8 does).
func (e Encoding) Growth() int64 {
	switch e {
	case UTF16LE, UTF16BE:
		return 2
	case UTF32LE, UTF32BE:
		return 4
	}
	return 1
}
