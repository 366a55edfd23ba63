package workspace

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"hash"
	"strings"
	"unicode/utf8"
)

// ErrNotText reports a file that is not valid UTF-8 or holds a NUL byte in
// its first 8 KiB (rpc.md §5.3).
var ErrNotText = errors.New("not a text file")

// NULScanBytes is how far into a file a NUL byte marks it as binary.
const NULScanBytes = 8 << 10

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// Text is a file's content in the normalized form every line number and tag
// refers to (edit-contract §3.1): no BOM, LF line endings. Trailing
// whitespace is kept; it is trimmed only in the hash input.
type Text struct {
	// Body is the normalized text: LF endings, no BOM.
	Body string
	// BOM records a leading UTF-8 byte-order mark, restored on write.
	BOM bool
	// CRLF records that CRLF was the dominant line ending, restored on write.
	CRLF bool
}

// Decode normalizes raw file bytes. It fails with ErrNotText for invalid
// UTF-8 or a NUL byte in the first 8 KiB.
func Decode(raw []byte) (Text, error) {
	if bytes.IndexByte(raw[:min(len(raw), NULScanBytes)], 0) >= 0 || !utf8.Valid(raw) {
		return Text{}, ErrNotText
	}
	var t Text
	if bytes.HasPrefix(raw, utf8BOM) {
		t.BOM = true
		raw = raw[len(utf8BOM):]
	}
	crlf := bytes.Count(raw, []byte("\r\n"))
	lf := bytes.Count(raw, []byte("\n")) - crlf
	t.CRLF = crlf > lf
	if crlf > 0 {
		raw = bytes.ReplaceAll(raw, []byte("\r\n"), []byte("\n"))
	}
	t.Body = string(raw)
	return t, nil
}

// Encode turns a normalized body back into file bytes with this text's BOM
// and dominant line ending.
func (t Text) Encode(body string) []byte {
	var b strings.Builder
	b.Grow(len(body) + 3)
	if t.BOM {
		b.Write(utf8BOM)
	}
	if t.CRLF {
		body = strings.ReplaceAll(body, "\n", "\r\n")
	}
	b.WriteString(body)
	return []byte(b.String())
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
	s := strings.Join(lines, "\n")
	if trailingNewline {
		s += "\n"
	}
	return s
}

// Digest is the full SHA-256 of a text's hash input. Tags are its low 16
// bits; every decision that could corrupt a file compares the full digest
// or the full text, never the tag alone (edit-contract §3.3).
type Digest [sha256.Size]byte

// Tag is the 4-hex-digit snapshot tag of this digest (rpc.md §5.1).
func (d Digest) Tag() string {
	return strings.ToUpper(hex.EncodeToString(d[30:32]))
}

// String is the full digest in lowercase hex.
func (d Digest) String() string { return hex.EncodeToString(d[:]) }

// Sum returns the digest of a normalized body: each line's trailing
// [ \t\r] is trimmed and whether the body ends with a newline is kept.
func Sum(body string) Digest {
	h := sha256.New()
	b := []byte(body) // one copy, so the lines can be hashed without one each
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		line, rest := b, []byte(nil)
		if i >= 0 {
			line, rest = b[:i], b[i+1:]
		}
		h.Write(bytes.TrimRight(line, " \t\r"))
		if i >= 0 {
			h.Write(newline)
		}
		b = rest
	}
	var d Digest
	h.Sum(d[:0])
	return d
}

var newline = []byte{'\n'}

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
