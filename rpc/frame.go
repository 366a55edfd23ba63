package rpc

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/hostd-dev/hostd/internal/quote"
)

// Framing is LSP's base protocol: "Content-Length: N\r\n\r\n" and N bytes
// of JSON. frameStream reads it; each connection's outbox writes it. The
// reading side replaces jsonrpc2's own codec and request decoding, which
// trust the length they are given, close the connection on any body they
// cannot decode, and decode params into a generic tree only to encode
// them again:
//
//   - a header that is malformed or announces more than maxFrameBytes
//     closes this connection only, before any of the body is read;
//   - a body's buffer grows to its full length only once a first chunk has
//     arrived, so a length that lies costs little more than what was sent;
//   - a body that is not JSON is answered with -32700, and one that is JSON
//     but not a JSON-RPC 2.0 message with -32600, and the connection goes
//     on with the next frame;
//   - a request's params are the frame's own bytes, not a copy.
//
// A frame over smallFrameBytes takes its Content-Length from the daemon's
// budget before its body is read (conn.readRequest), and holds it until
// its call is answered.

// maxHeaderBytes bounds the header block of one frame. A client of this
// protocol sends one or two short lines; anything longer is not one.
const maxHeaderBytes = 4 << 10

// bodyChunk is the first buffer a body gets; a body up to it is read into
// a buffer of its exact size, a larger one grows as it arrives.
const bodyChunk = 64 << 10

// ErrFrame reports a frame header that closes the connection: malformed,
// or announcing a body over the frame cap or the whole memory budget.
var ErrFrame = errors.New("bad frame")

// frameStream reads frames off one connection. It is used by the
// connection's read loop only, one frame at a time.
type frameStream struct {
	r        *bufio.Reader
	maxFrame int64
}

func newFrameStream(r io.Reader, maxFrame int64) *frameStream {
	return &frameStream{r: bufio.NewReaderSize(r, maxHeaderBytes), maxFrame: maxFrame}
}

// readFrame reads one header block and its body. The body is the
// caller's: a new slice per frame.
func (f *frameStream) readFrame() ([]byte, error) {
	n, err := f.readHeader()
	if err != nil {
		return nil, err
	}
	return f.readBody(n)
}

// readBody reads a body of n bytes: into a first chunk, and once that has
// filled, into one buffer of exactly n. A length that lies costs a chunk
// unless the client sends that much, and a large body is never held
// twice while its buffer grows.
func (f *frameStream) readBody(n int64) ([]byte, error) {
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

// skipBody reads and drops a body of n bytes, keeping at most its first
// keep bytes, which it returns.
func (f *frameStream) skipBody(n int64, keep int) ([]byte, error) {
	head := make([]byte, min(n, int64(keep)))
	if _, err := io.ReadFull(f.r, head); err != nil {
		return nil, err
	}
	if _, err := io.CopyN(io.Discard, f.r, n-int64(len(head))); err != nil {
		return nil, err
	}
	return head, nil
}

// readHeader reads header lines up to the empty line and returns the
// Content-Length. A clean EOF before the first byte is io.EOF.
func (f *frameStream) readHeader() (int64, error) {
	length := int64(-1)
	total := 0
	for {
		line, err := f.r.ReadSlice('\n')
		total += len(line)
		switch {
		case errors.Is(err, bufio.ErrBufferFull) || total > maxHeaderBytes:
			return 0, fmt.Errorf("%w: header longer than %d bytes", ErrFrame, maxHeaderBytes)
		case errors.Is(err, io.EOF) && total > 0:
			return 0, io.ErrUnexpectedEOF
		case err != nil:
			return 0, err
		}
		line, ok := bytes.CutSuffix(line, []byte("\r\n"))
		if !ok {
			return 0, fmt.Errorf("%w: header line %s does not end with \\r\\n", ErrFrame, quote.Bytes(line))
		}
		if len(line) == 0 {
			break
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return 0, fmt.Errorf("%w: header line %s has no colon", ErrFrame, quote.Bytes(line))
		}
		if !bytes.EqualFold(bytes.Trim(name, " \t"), []byte("Content-Length")) {
			continue // Content-Type and any other header carry nothing we use
		}
		value = bytes.Trim(value, " \t")
		n, err := strconv.ParseInt(string(value), 10, 64)
		switch {
		case err != nil || !isDigits(value):
			return 0, fmt.Errorf("%w: Content-Length %s is not a byte count", ErrFrame, quote.Bytes(value))
		case n > f.maxFrame:
			return 0, fmt.Errorf("%w: Content-Length %d exceeds limits.maxFrameBytes (%d)", ErrFrame, n, f.maxFrame)
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

// parseRequest turns a frame body into the request it holds. It returns
// the answer to a body that is not a request hostd can take, and neither
// for a response (hostd sends no requests, so it ignores them). Params
// alias body.
func parseRequest(body []byte) (*jsonrpc2.Request, *rejectionMsg) {
	if reject := classify(body); reject != nil {
		return nil, reject
	}
	e := scanEnvelope(bytes.TrimSpace(body))
	if e.Method == nil {
		return nil, nil
	}
	req := &jsonrpc2.Request{Notif: e.ID == nil}
	if err := json.Unmarshal(e.Method, &req.Method); err != nil {
		return nil, rejection(e.ID, CodeInvalidRequest, `"method" must be a string`)
	}
	if e.ID != nil {
		if err := req.ID.UnmarshalJSON(bytes.TrimSpace(e.ID)); err != nil {
			return nil, rejection(nil, CodeInvalidRequest, errBadID)
		}
	}
	if e.Params != nil {
		p := json.RawMessage(e.Params)
		req.Params = &p
	}
	return req, nil
}

// idPrefix finds a request's id in the first bytes of its body, for
// answering a frame that was skipped unread. ok is false when the id is
// not in head (or there is none).
func idPrefix(head []byte) (json.RawMessage, bool) {
	dec := json.NewDecoder(bytes.NewReader(head))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	for {
		t, err := dec.Token()
		if err != nil {
			return nil, false
		}
		key, ok := t.(string)
		if !ok {
			return nil, false
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		if key == "id" {
			id, ok := validID(v)
			return id, ok && id != nil
		}
	}
}
