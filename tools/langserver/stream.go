package langserver

import (
	"encoding/json"
	"io"
	"sync"

	"github.com/hostd-dev/hostd/rpc/wire"
)

// frameStream carries one server's JSON-RPC messages in LSP framing,
// read with the daemon's one frame reader, so a server that announces a
// frame over maxFrame is cut off before its body is read (the
// connection ends and the server is restarted as a crashed one).
type frameStream struct {
	r   *wire.Reader
	wmu sync.Mutex
	w   io.WriteCloser
	c   io.Closer
}

func newFrameStream(r io.Reader, w io.WriteCloser, c io.Closer, maxFrame int64) *frameStream {
	return &frameStream{r: wire.NewReader(r, maxFrame), w: w, c: c}
}

// ReadObject implements jsonrpc2.ObjectStream.
func (s *frameStream) ReadObject(v any) error {
	body, err := s.r.ReadFrame()
	if err != nil {
		return err
	}
	return json.Unmarshal(body, v)
}

// WriteObject implements jsonrpc2.ObjectStream.
func (s *frameStream) WriteObject(v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	return wire.WriteFrame(s.w, body)
}

// Close implements jsonrpc2.ObjectStream.
func (s *frameStream) Close() error {
	s.w.Close()
	return s.c.Close()
}
