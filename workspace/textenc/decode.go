package textenc

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"unicode/utf8"

	"golang.org/x/text/transform"
)

// ErrInvalid is what a DecodeError wraps: the bytes are not text in the
// encoding they were decoded as.
var ErrInvalid = errors.New("not valid text in its encoding")

// DecodeError reports the first byte that is not text in an encoding: a
// byte sequence that is invalid in it, or one whose text does not encode
// back to the same bytes.
type DecodeError struct {
	Enc Encoding
	// Offset is the byte's offset in the input the decoder was handed
	// (after any byte-order mark, which the caller strips).
	Offset int64
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("the bytes at offset %d are not valid %s", e.Offset, e.Enc.Name())
}

func (e *DecodeError) Unwrap() error { return ErrInvalid }

// Decode returns the UTF-8 text of src, a whole input in e without its
// byte-order mark. For UTF-8 it returns src itself once it is valid.
// Otherwise the text is new memory, and it is returned only when
// encoding it again gives back src exactly: a *DecodeError names the
// first byte where it would not.
func (e Encoding) Decode(src []byte) ([]byte, error) {
	if e.c == nil {
		if !utf8.Valid(src) {
			return nil, &DecodeError{Enc: e, Offset: int64(firstInvalidUTF8(src))}
		}
		return src, nil
	}
	// Text in UTF-8 is at most 3 bytes per byte of any of these inputs
	// (a single byte to U+0800 and up); most are far less.
	out, n, err := transformAll(e.c.enc.NewDecoder(), make([]byte, 0, len(src)+len(src)/2+16), src, true)
	if err == nil && n == len(src) {
		if off := e.c.mismatch(out, src); off >= 0 {
			err = &DecodeError{Enc: e, Offset: int64(off)}
		}
	} else {
		err = &DecodeError{Enc: e, Offset: int64(n)}
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// transformAll runs t over src, appending to dst, growing it as t asks.
// It returns how much of src was consumed: all of it, or up to a
// character that src ends inside of (only when !atEOF), or up to where t
// failed, with its error.
func transformAll(t transform.Transformer, dst, src []byte, atEOF bool) ([]byte, int, error) {
	t.Reset()
	done := 0
	for {
		if cap(dst)-len(dst) < 4*utf8.UTFMax {
			dst = slices.Grow(dst, cap(dst)+64)
		}
		nDst, nSrc, err := t.Transform(dst[len(dst):cap(dst)], src[done:], atEOF)
		dst = dst[:len(dst)+nDst]
		done += nSrc
		switch {
		case err == nil:
			return dst, done, nil
		case errors.Is(err, transform.ErrShortDst):
			continue
		case errors.Is(err, transform.ErrShortSrc) && !atEOF:
			return dst, done, nil
		default:
			return dst, done, err
		}
	}
}

// mismatch encodes text, the decoded form of raw, a piece at a time and
// returns the offset of the first byte of raw it does not give back, or
// -1 when it gives back raw exactly. A sequence a decoder replaced with
// U+FFFD, or one that has a second spelling, is caught here.
func (c *codec) mismatch(text, raw []byte) int {
	enc := c.enc.NewEncoder()
	var buf [8 << 10]byte
	pos := 0 // bytes of raw matched so far
	for len(text) > 0 {
		nDst, nSrc, err := enc.Transform(buf[:], text, true)
		if i := commonPrefix(buf[:nDst], raw[pos:]); i < nDst {
			return pos + i
		}
		pos += nDst
		text = text[nSrc:]
		if err != nil && !errors.Is(err, transform.ErrShortDst) {
			return pos // a character it cannot encode: U+FFFD of an invalid sequence
		}
	}
	if pos != len(raw) {
		return pos
	}
	return -1
}

func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// firstInvalidUTF8 returns the offset of the first byte of p that does not
// start a valid UTF-8 sequence.
func firstInvalidUTF8(p []byte) int {
	for i := 0; i < len(p); {
		r, size := utf8.DecodeRune(p[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return len(p)
}

// readerChunk is how many input bytes a Reader decodes at a time.
const readerChunk = 64 << 10

// maxStalls bounds the empty reads without an error a Reader tolerates,
// as bufio does.
const maxStalls = 100

// Reader decodes a stream to UTF-8 with Decode's strictness, holding
// about one chunk of input and its text at a time, whatever the stream's
// length: a huge file is read with bounded memory. Its errors are a
// *DecodeError (offsets into the stream it reads) or the stream's own.
type Reader struct {
	r      io.Reader
	e      Encoding
	dec    transform.Transformer
	in     []byte // input read; in[lo:] is not decoded yet
	lo     int
	off    int64  // the stream offset of in[lo]
	out    []byte // text decoded; out[olo:] is not returned yet
	olo    int
	eof    bool
	err    error // returned once out is drained
	stalls int
}

// NewReader returns a Reader of r's bytes, text in e without its
// byte-order mark. For UTF-8 it validates as it goes.
func (e Encoding) NewReader(r io.Reader) *Reader {
	rd := &Reader{r: r, e: e, in: make([]byte, 0, readerChunk+utf8.UTFMax)}
	if e.c != nil {
		rd.dec = e.c.enc.NewDecoder()
	}
	return rd
}

// Read implements io.Reader.
func (r *Reader) Read(p []byte) (int, error) {
	for r.olo == len(r.out) {
		if r.err != nil {
			return 0, r.err
		}
		r.fill()
	}
	n := copy(p, r.out[r.olo:])
	r.olo += n
	return n, nil
}

// fill reads the next chunk of input and decodes what of it is whole.
func (r *Reader) fill() {
	n := copy(r.in, r.in[r.lo:])
	r.in, r.lo = r.in[:n], 0
	if !r.eof {
		k, err := r.r.Read(r.in[n:cap(r.in)])
		r.in = r.in[:n+k]
		switch {
		case errors.Is(err, io.EOF):
			r.eof = true
		case err != nil:
			r.err = err
			return
		case k == 0:
			if r.stalls++; r.stalls >= maxStalls {
				r.err = io.ErrNoProgress
			}
			return
		}
		r.stalls = 0
	}
	r.out, r.olo = r.out[:0], 0
	var used int
	var err error
	if r.dec == nil {
		used, err = r.validUTF8(r.in)
	} else {
		r.out, used, err = transformAll(r.dec, r.out, r.in, r.eof)
		if err == nil {
			if off := r.e.c.mismatch(r.out, r.in[:used]); off >= 0 {
				used, err = off, ErrInvalid
			}
		}
	}
	if err != nil || (r.eof && used < len(r.in)) {
		r.err = &DecodeError{Enc: r.e, Offset: r.off + int64(used)}
		r.out = r.out[:0]
		return
	}
	r.lo = used
	r.off += int64(used)
	if r.eof {
		r.err = io.EOF
	}
}

// validUTF8 passes on the whole runes at the start of in, holding back an
// incomplete one at its end unless the input has ended.
func (r *Reader) validUTF8(in []byte) (int, error) {
	n := len(in)
	if !r.eof {
		for k := 1; k < utf8.UTFMax && k <= len(in); k++ {
			if c := in[len(in)-k]; c >= 0xC0 {
				if !utf8.FullRune(in[len(in)-k:]) {
					n = len(in) - k
				}
				break
			} else if c < 0x80 {
				break
			}
		}
	}
	if !utf8.Valid(in[:n]) {
		return firstInvalidUTF8(in[:n]), ErrInvalid
	}
	r.out = append(r.out, in[:n]...)
	return n, nil
}
