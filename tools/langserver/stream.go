package langserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/sourcegraph/jsonrpc2"
)

// cappedCodec is jsonrpc2's LSP framing (Content-Length headers) with a
// bound on what a server may send: a frame over max ends the connection
// before its body is read (the server is then restarted as a crashed
// one), as the daemon's own frame reader does to its clients.
type cappedCodec struct {
	jsonrpc2.VSCodeObjectCodec // writing
	max                        int64
}

// maxHeaderLine bounds one header line; LSP sends one or two short ones.
const maxHeaderLine = 1024

// ReadObject implements jsonrpc2.ObjectCodec.
func (c cappedCodec) ReadObject(stream *bufio.Reader, v any) error {
	n := int64(-1)
	for {
		line, err := stream.ReadSlice('\n')
		if err != nil {
			if err == bufio.ErrBufferFull {
				return fmt.Errorf("a header line longer than %d bytes", maxHeaderLine)
			}
			return err
		}
		if len(line) > maxHeaderLine {
			return fmt.Errorf("a header line longer than %d bytes", maxHeaderLine)
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			break
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return fmt.Errorf("a header line without a colon: %q", clip(string(line), 80))
		}
		if bytes.EqualFold(bytes.TrimSpace(name), []byte("Content-Length")) {
			n, err = strconv.ParseInt(string(bytes.TrimSpace(value)), 10, 64)
			if err != nil || n < 0 {
				return fmt.Errorf("a bad Content-Length: %q", clip(string(value), 40))
			}
		}
	}
	if n < 0 {
		return fmt.Errorf("a message without a Content-Length")
	}
	if n > c.max {
		return fmt.Errorf("a message of %d bytes, over the %d-byte bound", n, c.max)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(stream, body); err != nil {
		return err
	}
	return json.Unmarshal(body, v)
}

// pipes is a server's stdout and stdin as one stream.
type pipes struct {
	io.Reader
	io.WriteCloser
	out io.Closer
}

func (p pipes) Close() error {
	p.WriteCloser.Close()
	return p.out.Close()
}
