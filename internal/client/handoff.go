package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/hostd-dev/hostd/rpc/wire"
)

// Handoff is a Caller for the calls made on a connection before it is
// handed to something that reads it raw: hostd --stdio asks the shared
// daemon for its host.info, then relays its client's bytes. A call writes
// its request and reads frames, on the caller's goroutine, until its
// answer; the notifications that arrive meanwhile are kept, framed again,
// for whoever reads the connection next (Rest). It does not watch a
// call's context once the request is written: bound a call with the
// connection's deadline.
type Handoff struct {
	w       io.Writer
	frames  *wire.Reader
	id      string
	calls   int
	maxKept int
	kept    bytes.Buffer
}

// NewHandoff makes calls on rw, reading frames of at most maxFrame bytes.
// Its requests' ids are id, then id-2, id-3, ...: choose one the
// connection's next user never sends. A call that sees more than maxKept
// notifications before its answer fails.
func NewHandoff(rw io.ReadWriter, maxFrame int64, id string, maxKept int) *Handoff {
	return &Handoff{w: rw, frames: wire.NewReader(rw, maxFrame), id: id, maxKept: maxKept}
}

// Call sends one request and decodes its answer's result into result (nil
// drops it). A JSON-RPC error is an *Error.
func (h *Handoff) Call(ctx context.Context, method string, params, result any) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	h.calls++
	id := h.id
	if h.calls > 1 {
		id += "-" + strconv.Itoa(h.calls)
	}
	req := &jsonrpc2.Request{Method: method, ID: jsonrpc2.ID{Str: id, IsString: true}}
	if params != nil {
		if err := req.SetParams(params); err != nil {
			return err
		}
	}
	body, err := json.Marshal(req)
	if err != nil {
		return err
	}
	if err := wire.WriteFrame(h.w, body); err != nil {
		return err
	}
	want, _ := json.Marshal(id)
	for n := 0; ; n++ {
		raw, err := h.frames.ReadFrame()
		if err != nil {
			return err
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *jsonrpc2.Error `json:"error"`
		}
		if err := json.Unmarshal(raw, &m); err != nil {
			return fmt.Errorf("%w: body is not JSON: %v", ErrBadFrame, err)
		}
		if m.ID == nil {
			if n >= h.maxKept {
				return fmt.Errorf("%d notifications and no answer", n)
			}
			wire.WriteFrame(&h.kept, raw)
			continue
		}
		switch {
		case !bytes.Equal(m.ID, want):
			return fmt.Errorf("it answered id %s", m.ID)
		case m.Error != nil:
			return newError(m.Error)
		case m.Result == nil || string(m.Result) == "null":
			return errors.New("no result")
		case result == nil:
			return nil
		}
		return json.Unmarshal(m.Result, result)
	}
}

// Rest is what the connection has left for its next reader: the
// notifications the calls kept, then what was read past them.
func (h *Handoff) Rest() io.Reader {
	return io.MultiReader(&h.kept, h.frames.Buffered())
}
