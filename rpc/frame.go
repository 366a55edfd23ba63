package rpc

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"sync"

	"go.uber.org/zap"
)

// Framing is LSP's base protocol: "Content-Length: N\r\n\r\n" and N bytes
// of JSON. jsonrpc2's own VSCodeObjectCodec trusts the length it is given
// and closes the connection on any body that is not a message it
// understands; frameStream replaces it so that
//
//   - a header that is malformed or announces more than maxFrameBytes
//     closes this connection only, before any of the body is read;
//   - a body is buffered as it arrives, so a length that lies costs only the
//     bytes actually sent;
//   - a body that is not JSON is answered with -32700, and one that is JSON
//     but not a JSON-RPC 2.0 message with -32600, and the connection goes
//     on with the next frame.

// maxHeaderBytes bounds the header block of one frame. A client of this
// protocol sends one or two short lines; anything longer is not one.
const maxHeaderBytes = 4 << 10

// keepBodyBytes is the largest read buffer a connection keeps between
// frames; a larger one, grown for one big frame, is released after it.
const keepBodyBytes = 1 << 20

// ErrFrame reports a frame header that closes the connection: malformed,
// or announcing a body over the frame cap.
var ErrFrame = errors.New("bad frame")

// frameStream is a jsonrpc2.ObjectStream over one connection.
// Concurrency: ReadObject is called from one goroutine (jsonrpc2's read
// loop); WriteObject from many, serialized by wmu.
type frameStream struct {
	rwc      io.ReadWriteCloser
	r        *bufio.Reader
	maxFrame int64
	log      *zap.Logger
	body     bytes.Buffer // reused between frames; read side only

	wmu sync.Mutex
	w   *bufio.Writer // guarded by wmu
}

func newFrameStream(rwc io.ReadWriteCloser, maxFrame int64, log *zap.Logger) *frameStream {
	return &frameStream{
		rwc:      rwc,
		r:        bufio.NewReaderSize(rwc, maxHeaderBytes),
		w:        bufio.NewWriter(rwc),
		maxFrame: maxFrame,
		log:      log,
	}
}

// WriteObject writes one framed message.
func (f *frameStream) WriteObject(obj any) error {
	data, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	return f.writeFrame(data)
}

// writeFrame writes one framed message already encoded.
func (f *frameStream) writeFrame(data []byte) error {
	f.wmu.Lock()
	defer f.wmu.Unlock()
	f.w.WriteString("Content-Length: ")
	f.w.WriteString(strconv.Itoa(len(data)))
	f.w.WriteString("\r\n\r\n")
	f.w.Write(data)
	return f.w.Flush()
}

// Close closes the connection.
func (f *frameStream) Close() error { return f.rwc.Close() }

// ReadObject reads frames until one holds a JSON-RPC message and decodes it
// into v (jsonrpc2's message type). Frames that are not messages are
// answered here and skipped. An error closes the connection.
func (f *frameStream) ReadObject(v any) error {
	for {
		body, err := f.readFrame()
		if err != nil {
			if errors.Is(err, ErrFrame) {
				f.log.Warn("closing connection", zap.Error(err))
			}
			return err
		}
		if reject := classify(body); reject != nil {
			f.log.Debug("rejected message", zap.String(LogCode, reject.Error.Name), zap.String(LogReason, reject.Error.Message))
			if err := f.WriteObject(reject); err != nil {
				return err
			}
			continue
		}
		reflect.ValueOf(v).Elem().SetZero()
		if err := json.Unmarshal(body, v); err != nil {
			// classify accepted what jsonrpc2 does not: answer, go on.
			if err := f.WriteObject(rejection(nil, CodeInvalidRequest, "not a JSON-RPC 2.0 message: "+err.Error())); err != nil {
				return err
			}
			continue
		}
		return nil
	}
}

// readFrame reads one header block and its body. The returned slice is
// valid until the next call.
func (f *frameStream) readFrame() ([]byte, error) {
	n, err := f.readHeader()
	if err != nil {
		return nil, err
	}
	f.body.Reset()
	if f.body.Cap() > keepBodyBytes {
		f.body = bytes.Buffer{}
	}
	if _, err := io.CopyN(&f.body, f.r, n); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return f.body.Bytes(), nil
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
			return 0, fmt.Errorf("%w: header line %q does not end with \\r\\n", ErrFrame, clip(line))
		}
		if len(line) == 0 {
			break
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return 0, fmt.Errorf("%w: header line %q has no colon", ErrFrame, clip(line))
		}
		if !bytes.EqualFold(bytes.Trim(name, " \t"), []byte("Content-Length")) {
			continue // Content-Type and any other header carry nothing we use
		}
		value = bytes.Trim(value, " \t")
		n, err := strconv.ParseInt(string(value), 10, 64)
		switch {
		case err != nil || !isDigits(value):
			return 0, fmt.Errorf("%w: Content-Length %q is not a byte count", ErrFrame, clip(value))
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

func clip(b []byte) string {
	const max = 64
	if len(b) > max {
		return string(b[:max]) + "..."
	}
	return string(b)
}
