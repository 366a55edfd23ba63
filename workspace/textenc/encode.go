package textenc

import (
	"errors"
	"fmt"
	"unicode/utf8"
	"unsafe"

	"golang.org/x/text/transform"
)

// ErrUnencodable is what an UnencodableError wraps.
var ErrUnencodable = errors.New("a character the encoding cannot represent")

// UnencodableError reports a character of a text that its encoding has
// no bytes for: "€" in ISO-8859-1, "é" in Shift_JIS.
type UnencodableError struct {
	Enc Encoding
	// Offset is the character's byte offset in the UTF-8 text handed to
	// the encoder.
	Offset int
	Rune   rune
}

func (e *UnencodableError) Error() string {
	return fmt.Sprintf("%q (U+%04X) cannot be written in %s", e.Rune, e.Rune, e.Enc.Name())
}

func (e *UnencodableError) Unwrap() error { return ErrUnencodable }

// Encoder appends UTF-8 text to a buffer in one encoding, a piece at a
// time. It keeps no state between pieces (every supported encoding is
// stateless), so text encoded in pieces gives the bytes it gives whole.
// An Encoder is not safe for concurrent use.
type Encoder struct {
	e Encoding
	t transform.Transformer // nil for UTF-8
}

// NewEncoder returns an Encoder to e.
func (e Encoding) NewEncoder() *Encoder {
	enc := &Encoder{e: e}
	if e.c != nil {
		enc.t = e.c.enc.NewEncoder()
	}
	return enc
}

// Append appends the encoding of s, valid UTF-8, to dst. A character the
// encoding cannot represent is an *UnencodableError, with dst unchanged.
func (enc *Encoder) Append(dst []byte, s string) ([]byte, error) {
	if enc.t == nil {
		return append(dst, s...), nil
	}
	if s == "" {
		return dst, nil
	}
	// The transformer only reads its source, so s is not copied.
	src := unsafe.Slice(unsafe.StringData(s), len(s))
	out, n, err := transformAll(enc.t, dst, src, true)
	if err != nil || n < len(src) {
		r, _ := utf8.DecodeRuneInString(s[n:])
		return dst, &UnencodableError{Enc: enc.e, Offset: n, Rune: r}
	}
	return out, nil
}

// EncodedLen is the size of s in e, or an *UnencodableError; it encodes
// into a small buffer and keeps nothing, so sizing an output first costs
// no memory.
func (enc *Encoder) EncodedLen(s string) (int, error) {
	if enc.t == nil {
		return len(s), nil
	}
	var buf [4 << 10]byte
	enc.t.Reset()
	total := 0
	src := unsafe.Slice(unsafe.StringData(s), len(s))
	for done := 0; done < len(src); {
		nDst, nSrc, err := enc.t.Transform(buf[:], src[done:], true)
		total += nDst
		done += nSrc
		if err != nil && !errors.Is(err, transform.ErrShortDst) {
			r, _ := utf8.DecodeRuneInString(s[done:])
			return 0, &UnencodableError{Enc: enc.e, Offset: done, Rune: r}
		}
	}
	return total, nil
}
