package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/hostd-dev/hostd/workspace/textenc"
)

// ErrNotText reports a file that is not text (edit-contract §3.4): not
// valid in its encoding (UTF-8 unless a byte-order mark or the workspace's
// encodings setting says otherwise), or holding a NUL character in its
// first 8 KiB of text. The error that wraps it is a *NotTextError.
var ErrNotText = errors.New("not a text file")

// NULScanBytes is how far into a file's text a NUL character marks it as
// binary.
const NULScanBytes = 8 << 10

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// NotTextError says why a file is not text, for the refusal's message.
type NotTextError struct {
	// Enc is the encoding the bytes were decoded as.
	Enc textenc.Encoding
	// NUL: a NUL character in the first NULScanBytes of text; otherwise
	// the bytes at Offset (from the start of the file) are not valid Enc.
	NUL    bool
	Offset int64
}

func (e *NotTextError) Error() string {
	if e.NUL {
		return "a NUL character in its first 8 KiB: binary"
	}
	return fmt.Sprintf("the bytes at offset %d are not valid %s", e.Offset, e.Enc.Name())
}

func (e *NotTextError) Unwrap() error { return ErrNotText }

// Text is a file's content in the normalized form every line number and tag
// refers to (edit-contract §3.1): decoded to UTF-8, no BOM, LF line
// endings. Trailing whitespace is kept; it is trimmed only in the hash
// input.
//
// Only LF ends a line. A CR is a line ending only right before an LF; a
// lone CR (an old Mac ending, or a stray one) is part of its line's text,
// kept byte for byte, and trimmed only from the hash input.
type Text struct {
	// Body is the normalized text: UTF-8, LF endings, no BOM.
	Body string
	// BOM records a leading byte-order mark (Enc's), restored on write.
	BOM bool
	// CRLF records that CRLF was the dominant line ending (more lines end
	// with CRLF than with LF alone; a tie is LF), restored on write.
	CRLF bool
	// Other lists, ascending, the 1-based lines whose ending is not the
	// dominant one. It is empty unless the file mixes LF and CRLF;
	// EncodeEdit keeps those endings on the lines an edit leaves alone.
	Other []int
	// Enc is the file's encoding (edit-contract §3.5): UTF-8, the zero
	// value, unless a byte-order mark or the workspace's setting named
	// another. Every write encodes the text in it again.
	Enc textenc.Encoding

	// view is, for a file not in UTF-8, its whole text after the BOM in
	// UTF-8 with its line endings as the file has them: the bytes Index
	// addresses and an edit copies untouched lines from, before they are
	// encoded again. Encoding is a round trip (textenc), so a line copied
	// from view encodes to exactly the bytes it had in the file.
	view string
}

// Decode normalizes raw file bytes: UTF-8, or the encoding a byte-order
// mark at its start names. It fails with an error wrapping ErrNotText
// for bytes not valid in that encoding or a NUL in the first 8 KiB of
// text.
func Decode(raw []byte) (Text, error) {
	return DecodeAs(raw, textenc.UTF8)
}

// DecodeAs is Decode of a file whose encoding, when no byte-order mark
// names one, is enc: the charset the workspace gives its path
// (Path.Charset.Enc). A mark wins over the setting.
func DecodeAs(raw []byte, enc textenc.Encoding) (Text, error) {
	if e, n, ok := textenc.Sniff(raw); ok && !e.IsUTF8() {
		return decodeEncoded(raw, e, n)
	} else if ok || enc.IsUTF8() {
		return DecodeString(string(raw))
	}
	return decodeEncoded(raw, enc, 0)
}

// DecodeOwned is Decode of bytes the caller hands over: raw must never be
// written again, because the body shares its memory instead of copying
// it (for a file in LF without a BOM, the whole body). An edit reads a file
// once and keeps its bytes unchanged as the review's before bytes, so
// this spares it a copy of the file; a caller that reuses its buffer must
// use Decode.
func DecodeOwned(raw []byte) (Text, error) {
	return DecodeOwnedAs(raw, textenc.UTF8)
}

// DecodeOwnedAs is DecodeAs of bytes the caller hands over, as
// DecodeOwned. A file not in UTF-8 is decoded into new memory anyway.
func DecodeOwnedAs(raw []byte, enc textenc.Encoding) (Text, error) {
	if e, n, ok := textenc.Sniff(raw); ok && !e.IsUTF8() {
		return decodeEncoded(raw, e, n)
	} else if !ok && !enc.IsUTF8() {
		return decodeEncoded(raw, enc, 0)
	}
	if len(raw) == 0 {
		return DecodeString("")
	}
	return DecodeString(unsafe.String(&raw[0], len(raw)))
}

// DecodeString is Decode of a string in UTF-8, such as a write's content:
// only a UTF-8 BOM is recognised. The body shares s's memory unless line
// endings had to be rewritten, so a large text is not copied.
func DecodeString(s string) (Text, error) {
	if i := strings.IndexByte(s[:min(len(s), NULScanBytes)], 0); i >= 0 {
		return Text{}, &NotTextError{NUL: true, Offset: int64(i)}
	}
	if !utf8.ValidString(s) {
		_, err := textenc.UTF8.Decode([]byte(s))
		var de *textenc.DecodeError
		errors.As(err, &de)
		return Text{}, &NotTextError{Offset: de.Offset}
	}
	var t Text
	if strings.HasPrefix(s, string(utf8BOM)) {
		t.BOM = true
		s = s[len(utf8BOM):]
	}
	t.normalize(s)
	return t, nil
}

// decodeEncoded decodes raw, in enc after a BOM of bomLen bytes, to
// UTF-8 and normalizes that.
func decodeEncoded(raw []byte, enc textenc.Encoding, bomLen int) (Text, error) {
	text, err := enc.Decode(raw[bomLen:])
	if err != nil {
		var de *textenc.DecodeError
		if errors.As(err, &de) {
			return Text{}, &NotTextError{Enc: enc, Offset: int64(bomLen) + de.Offset}
		}
		return Text{}, err
	}
	view := ""
	if len(text) > 0 {
		view = unsafe.String(&text[0], len(text)) // text is new memory no one else holds
	}
	if i := strings.IndexByte(view[:min(len(view), NULScanBytes)], 0); i >= 0 {
		return Text{}, &NotTextError{Enc: enc, NUL: true}
	}
	t := Text{Enc: enc, BOM: bomLen > 0, view: view}
	t.normalize(view)
	return t, nil
}

// normalize sets the body, dominant ending and minority lines of s, a
// text in UTF-8 after its BOM.
func (t *Text) normalize(s string) {
	crlf := strings.Count(s, "\r\n")
	lf := strings.Count(s, "\n") - crlf
	t.CRLF = crlf > lf
	switch {
	case crlf > 0 && lf > 0:
		t.Body, t.Other = normalizeMixed(s, t.CRLF, crlf)
	case crlf > 0:
		t.Body = strings.ReplaceAll(s, "\r\n", "\n")
	default:
		t.Body = s
	}
}

// normalizeMixed turns every CRLF of s into LF and lists the lines whose
// ending is not the dominant one (CRLF when crlfDominant).
func normalizeMixed(s string, crlfDominant bool, crlf int) (string, []int) {
	var b strings.Builder
	b.Grow(len(s) - crlf)
	var other []int
	for line := 1; ; line++ {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			b.WriteString(s)
			return b.String(), other
		}
		cr := i > 0 && s[i-1] == '\r'
		if cr {
			b.WriteString(s[:i-1])
		} else {
			b.WriteString(s[:i])
		}
		b.WriteByte('\n')
		if cr != crlfDominant {
			other = append(other, line)
		}
		s = s[i+1:]
	}
}

// Encode turns a normalized body back into file bytes in this text's
// encoding, with its BOM and dominant line ending on every line: a whole
// new content. A character the encoding cannot represent is an
// *UnencodableError naming its line. An edit of the text keeps the lines
// it leaves alone with EncodeRows instead.
func (t Text) Encode(body string) ([]byte, error) {
	if !t.Enc.IsUTF8() {
		return t.encodeLines(body)
	}
	n := len(body)
	if t.BOM {
		n += len(utf8BOM)
	}
	if t.CRLF {
		n += strings.Count(body, "\n")
	}
	out := make([]byte, 0, n)
	if t.BOM {
		out = append(out, utf8BOM...)
	}
	if !t.CRLF {
		return append(out, body...), nil
	}
	for {
		i := strings.IndexByte(body, '\n')
		if i < 0 {
			return append(out, body...), nil
		}
		out = append(out, body[:i]...)
		out = append(out, '\r', '\n')
		body = body[i+1:]
	}
}

// Lines splits a normalized body into addressable lines: a terminal newline
// ends the last line and is not itself a line (edit-contract §3.1).
func Lines(body string) []string {
	if body == "" {
		return nil
	}
	lines := strings.Split(body, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// Join is the inverse of Lines for a body that ends with a newline when
// trailingNewline is set.
func Join(lines []string, trailingNewline bool) string {
	if len(lines) == 0 {
		return ""
	}
	n := len(lines) - 1
	for _, l := range lines {
		n += len(l)
	}
	if trailingNewline {
		n++
	}
	var b strings.Builder
	b.Grow(n)
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(l)
	}
	if trailingNewline {
		b.WriteByte('\n')
	}
	return b.String()
}

// Digest is the full SHA-256 of a text's hash input. Tags are its low 16
// bits; every decision that could corrupt a file compares the full digest
// or the full text, never the tag alone (edit-contract §3.3).
type Digest [sha256.Size]byte

// Tag is the 4-hex-digit snapshot tag of this digest (edit-contract §3.2).
func (d Digest) Tag() string {
	return strings.ToUpper(hex.EncodeToString(d[30:32]))
}

// String is the full digest in lowercase hex.
func (d Digest) String() string { return hex.EncodeToString(d[:]) }

// Sum returns the digest of a normalized body: each line's trailing
// [ \t\r] is trimmed and whether the body ends with a newline is kept.
func Sum(body string) Digest {
	h := sha256.New()
	// Lines are gathered into a small buffer and hashed a buffer at a
	// time: no copy of the body, and few calls into the hash.
	buf := make([]byte, 0, 32<<10)
	for len(body) > 0 {
		i := strings.IndexByte(body, '\n')
		line, rest := body, ""
		if i >= 0 {
			line, rest = body[:i], body[i+1:]
		}
		line = strings.TrimRight(line, " \t\r")
		if len(buf)+len(line)+1 > cap(buf) {
			h.Write(buf)
			buf = buf[:0]
			if len(line)+1 > cap(buf) {
				h.Write([]byte(line))
				line = ""
			}
		}
		buf = append(buf, line...)
		if i >= 0 {
			buf = append(buf, '\n')
		}
		body = rest
	}
	h.Write(buf)
	var d Digest
	h.Sum(d[:0])
	return d
}

// Hasher computes Sum incrementally, one line at a time, so a streaming
// reader can tag a file without holding it. The zero value is not usable;
// call NewHasher.
type Hasher struct {
	h hash.Hash
}

// NewHasher returns an empty Hasher.
func NewHasher() *Hasher { return &Hasher{h: sha256.New()} }

// Line feeds one normalized line (without its LF). terminated reports that
// the line ended with a newline; only the last line may be unterminated.
func (h *Hasher) Line(line string, terminated bool) {
	h.h.Write([]byte(strings.TrimRight(line, " \t\r")))
	if terminated {
		h.h.Write([]byte{'\n'})
	}
}

// Sum returns the digest of the lines fed so far.
func (h *Hasher) Sum() Digest {
	var d Digest
	h.h.Sum(d[:0])
	return d
}
