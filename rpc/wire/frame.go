package wire

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"unicode/utf8"
)

// Framing is LSP's base protocol: "Content-Length: N\r\n\r\n" and N bytes
// of JSON. This file is its one reader and writer, used by the daemon
// (which adds its memory budget between a header and its body) and by
// every Go client. The rules both sides hold a peer to:
//
//   - a header that is malformed or announces more than the frame cap is
//     refused before any of the body is read;
//   - a body's buffer grows to its full length only once a first chunk has
//     arrived, so a length that lies costs little more than what was sent.

// MaxHeaderBytes bounds the header block of one frame. A peer speaking
// this protocol sends one or two short lines; anything longer is not one.
const MaxHeaderBytes = 4 << 10

// bodyChunk is the first buffer a body gets; a body up to it is read into
// a buffer of its exact size, a larger one grows as it arrives.
const bodyChunk = 64 << 10

// ErrFrame reports a frame header that ends the connection: malformed,
// or announcing a body over the frame cap. The message after "bad frame:"
// says which.
var ErrFrame = errors.New("bad frame")

// TooLargeError is the ErrFrame of a Content-Length over the cap.
type TooLargeError struct {
	Length, Max int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%v: Content-Length %d exceeds limits.maxFrameBytes (%d)", ErrFrame, e.Length, e.Max)
}

// Is makes a TooLargeError an ErrFrame.
func (e *TooLargeError) Is(target error) bool { return target == ErrFrame }

// Reader reads frames off one stream, one at a time.
type Reader struct {
	r        *bufio.Reader
	maxFrame int64
}

// NewReader reads frames of at most maxFrame bytes from r. A *bufio.Reader
// of at least MaxHeaderBytes is used as it is, so bytes it has read ahead
// stay readable through it.
func NewReader(r io.Reader, maxFrame int64) *Reader {
	return &Reader{r: bufio.NewReaderSize(r, MaxHeaderBytes), maxFrame: maxFrame}
}

// Buffered is the stream behind the reader: what it has read ahead, then
// the rest. A relay that stops reading frames goes on from here.
func (f *Reader) Buffered() io.Reader { return f.r }

// ReadFrame reads one header block and its body. The body is the caller's:
// a new slice per frame.
func (f *Reader) ReadFrame() ([]byte, error) {
	n, err := f.ReadHeader()
	if err != nil {
		return nil, err
	}
	return f.ReadBody(n)
}

// ReadBody reads a body of n bytes: into a first chunk, and once that has
// filled, into one buffer of exactly n. A length that lies costs a chunk
// unless the peer sends that much, and a large body is never held twice
// while its buffer grows.
func (f *Reader) ReadBody(n int64) ([]byte, error) {
	b := make([]byte, 0, min(n, bodyChunk))
	for int64(len(b)) < n {
		if len(b) == cap(b) {
			b = slices.Grow(b, int(n)-len(b))
		}
		m, err := f.r.Read(b[len(b):int(min(int64(cap(b)), n))])
		b = b[:len(b)+m]
		if err != nil && int64(len(b)) < n {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
	return b, nil
}

// SkipBody reads and drops a body of n bytes, keeping at most its first
// keep bytes, which it returns.
func (f *Reader) SkipBody(n int64, keep int) ([]byte, error) {
	head := make([]byte, min(n, int64(keep)))
	if _, err := io.ReadFull(f.r, head); err != nil {
		return nil, err
	}
	if _, err := io.CopyN(io.Discard, f.r, n-int64(len(head))); err != nil {
		return nil, err
	}
	return head, nil
}

// ReadHeader reads header lines up to the empty line and returns the
// Content-Length. A clean EOF before the first byte is io.EOF; one inside
// the header is io.ErrUnexpectedEOF.
//
// A message that starts as JSON does, with no header before it, is an
// *UnframedError.
func (f *Reader) ReadHeader() (int64, error) {
	if err := f.unframed(); err != nil {
		return 0, err
	}
	length := int64(-1)
	total := 0
	for {
		line, err := f.r.ReadSlice('\n')
		total += len(line)
		switch {
		case errors.Is(err, bufio.ErrBufferFull) || total > MaxHeaderBytes:
			return 0, fmt.Errorf("%w: header longer than %d bytes", ErrFrame, MaxHeaderBytes)
		case errors.Is(err, io.EOF) && total > 0:
			return 0, io.ErrUnexpectedEOF
		case err != nil:
			return 0, err
		}
		line, ok := bytes.CutSuffix(line, []byte("\r\n"))
		if !ok {
			return 0, fmt.Errorf("%w: header line %s does not end with \\r\\n", ErrFrame, quoteHead(line))
		}
		if len(line) == 0 {
			break
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return 0, fmt.Errorf("%w: header line %s has no colon", ErrFrame, quoteHead(line))
		}
		if !bytes.EqualFold(bytes.Trim(name, " \t"), []byte("Content-Length")) {
			continue // Content-Type and any other header carry nothing we use
		}
		value = bytes.Trim(value, " \t")
		n, err := strconv.ParseInt(string(value), 10, 64)
		switch {
		case err != nil || !isDigits(value):
			return 0, fmt.Errorf("%w: Content-Length %s is not a byte count", ErrFrame, quoteHead(value))
		case n > f.maxFrame:
			return 0, &TooLargeError{Length: n, Max: f.maxFrame}
		case length >= 0 && n != length:
			return 0, fmt.Errorf("%w: two different Content-Length headers", ErrFrame)
		}
		length = n
	}
	if length < 0 {
		return 0, fmt.Errorf("%w: no Content-Length header", ErrFrame)
	}
	return length, nil
}

func isDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}

// AppendHeader appends the header of a frame whose body is n bytes.
func AppendHeader(dst []byte, n int) []byte {
	dst = append(dst, "Content-Length: "...)
	dst = strconv.AppendInt(dst, int64(n), 10)
	return append(dst, "\r\n\r\n"...)
}

// WriteFrame writes body as one frame, header and body in one write where
// w takes vectors (a socket does).
func WriteFrame(w io.Writer, body []byte) error {
	var hdr [32]byte
	bufs := net.Buffers{AppendHeader(hdr[:0], len(body)), body}
	_, err := bufs.WriteTo(w)
	return err
}

// maxQuoted is the most bytes of a peer's header quoted in an error.
const maxQuoted = 100

// quoteHead quotes a peer's header bytes for an error message: whole when
// short, else its first maxQuoted bytes (cut back to a rune boundary), an
// ellipsis and the length of the whole, so a long line cannot make the
// error as long.
func quoteHead(b []byte) string {
	if len(b) <= maxQuoted {
		return strconv.Quote(string(b))
	}
	cut := maxQuoted
	for cut > maxQuoted-utf8.UTFMax && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return strconv.Quote(string(b[:cut])) + "… (" + strconv.Itoa(len(b)) + " bytes)"
}
