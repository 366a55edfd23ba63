package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"hash"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// ErrNotText reports a file that is not valid UTF-8 or holds a NUL byte in
// its first 8 KiB (edit-contract §3.4).
var ErrNotText = errors.New("not a text file")

// NULScanBytes is how far into a file a NUL byte marks it as binary.
const NULScanBytes = 8 << 10

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// Text is a file's content in the normalized form every line number and tag
// refers to (edit-contract §3.1): no BOM, LF line endings. Trailing
// whitespace is kept; it is trimmed only in the hash input.
//
// Only LF ends a line. A CR is a line ending only right before an LF; a
// lone CR (an old Mac ending, or a stray one) is part of its line's text,
// kept byte for byte, and trimmed only from the hash input.
type Text struct {
	// Body is the normalized text: LF endings, no BOM.
	Body string
	// BOM records a leading UTF-8 byte-order mark, restored on write.
	BOM bool
	// CRLF records that CRLF was the dominant line ending (more lines end
	// with CRLF than with LF alone; a tie is LF), restored on write.
	CRLF bool
	// Other lists, ascending, the 1-based lines whose ending is not the
	// dominant one. It is empty unless the file mixes LF and CRLF;
	// EncodeEdit keeps those endings on the lines an edit leaves alone.
	Other []int
}

// Decode normalizes raw file bytes. It fails with ErrNotText for invalid
// UTF-8 or a NUL byte in the first 8 KiB.
func Decode(raw []byte) (Text, error) {
	return DecodeString(string(raw))
}

// DecodeOwned is Decode of bytes the caller hands over: raw must never be
// written again, because the body shares its memory instead of copying
// it (for a file in LF without a BOM, the whole body). An edit reads a file
// once and keeps its bytes unchanged as the review's before bytes, so
// this spares it a copy of the file; a caller that reuses its buffer must
// use Decode.
func DecodeOwned(raw []byte) (Text, error) {
	if len(raw) == 0 {
		return DecodeString("")
	}
	return DecodeString(unsafe.String(&raw[0], len(raw)))
}

// DecodeString is Decode of a string. The body shares s's memory unless
// line endings had to be rewritten, so a large text is not copied.
func DecodeString(s string) (Text, error) {
	if strings.IndexByte(s[:min(len(s), NULScanBytes)], 0) >= 0 || !utf8.ValidString(s) {
		return Text{}, ErrNotText
	}
	var t Text
	if strings.HasPrefix(s, string(utf8BOM)) {
		t.BOM = true
		s = s[len(utf8BOM):]
	}
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
	return t, nil
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

// Encode turns a normalized body back into file bytes with this text's BOM
// and dominant line ending on every line, in one allocation: a whole new
// content. An edit of the text keeps the lines it leaves alone with
// EncodeEdit instead.
func (t Text) Encode(body string) []byte {
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
		return append(out, body...)
	}
	for {
		i := strings.IndexByte(body, '\n')
		if i < 0 {
			return append(out, body...)
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
