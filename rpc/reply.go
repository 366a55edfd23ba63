package rpc

import (
	"encoding/json"
	"fmt"

	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/sourcegraph/jsonrpc2"
	"go.uber.org/zap"
)

// reply answers a request; a notification gets no answer. The answer is
// queued on the connection's outbox, waiting for room if the client is
// slow to read. A result that would not fit in a frame is answered with
// RESULT_TOO_LARGE instead, so the client never receives a frame it must
// refuse.
func (c *conn) reply(req *jsonrpc2.Request, result any, err error) {
	if req.Notif {
		return
	}
	var body []byte
	if err == nil {
		var merr error
		body, merr = encodeResponse(req.ID, result)
		switch {
		case merr != nil:
			// The result did not encode: a bug, answered as one.
			err = fmt.Errorf("encoding the result of %s: %w", req.Method, merr)
		case int64(len(body)) > c.srv.opts.Limits.MaxFrameBytes:
			err = newError(wire.CodeResultTooLarge, "the result of %s is %d bytes, more than limits.maxFrameBytes (%d); ask for less in one call (a path, a smaller window, fewer entries)", req.Method, len(body), c.srv.opts.Limits.MaxFrameBytes)
			body = nil
		}
	}
	if err != nil {
		e, known := toWire(err)
		if !known {
			c.log.Error("unexpected error", zap.String(LogMethod, req.Method), zap.Error(err))
		}
		var merr error
		if body, merr = encodeError(req.ID, e); merr != nil {
			c.log.Error("encoding an error", zap.String(LogMethod, req.Method), zap.Error(merr))
			return
		}
	}
	c.trace("out", body)
	if werr := c.out.reply(body); werr != nil {
		c.log.Debug("reply not sent", zap.String(LogMethod, req.Method), zap.Error(werr))
	}
}

// encodeResponse encodes a JSON-RPC response with a result in one pass.
// jsonrpc2's own Reply encodes the result, then re-scans it at each of
// three nested json.Marshal layers; a tool result of a few kilobytes made
// that a visible share of every call.
func encodeResponse(id jsonrpc2.ID, result any) ([]byte, error) {
	res, err := json.Marshal(result)
	if err != nil {
		return nil, err
	}
	return envelopeOf(id, "result", res)
}

// encodeError encodes a JSON-RPC error response.
func encodeError(id jsonrpc2.ID, e *jsonrpc2.Error) ([]byte, error) {
	eb, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	return envelopeOf(id, "error", eb)
}

func envelopeOf(id jsonrpc2.ID, member string, value []byte) ([]byte, error) {
	idb, err := id.MarshalJSON()
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, len(idb)+len(value)+32)
	b = append(b, `{"id":`...)
	b = append(b, idb...)
	b = append(b, `,"`...)
	b = append(b, member...)
	b = append(b, `":`...)
	b = append(b, value...)
	return append(b, `,"jsonrpc":"2.0"}`...), nil
}

// encodeNotification encodes a notification hostd sends.
func encodeNotification(method string, params any) ([]byte, error) {
	pb, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	mb, err := json.Marshal(method)
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, len(mb)+len(pb)+40)
	b = append(b, `{"jsonrpc":"2.0","method":`...)
	b = append(b, mb...)
	b = append(b, `,"params":`...)
	b = append(b, pb...)
	return append(b, '}'), nil
}
