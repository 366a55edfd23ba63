package rpc

import (
	"bytes"
	"encoding/json"

	"github.com/sourcegraph/jsonrpc2"
	"go.uber.org/zap"

	"github.com/hostd-dev/hostd/rpc/wire"
)

// The daemon reads frames with package wire's reader (the one LSP frame
// codec of hostd and its clients) and parses their bodies here. It
// replaces jsonrpc2's own codec and request decoding, which trust the
// length they are given, close the connection on any body they cannot
// decode, and decode params into a generic tree only to encode them again:
//
//   - a header that is malformed or announces more than maxFrameBytes
//     closes this connection only, before any of the body is read;
//   - a body that is not JSON is answered with -32700, and one that is JSON
//     but not a JSON-RPC 2.0 message with -32600, and the connection goes
//     on with the next frame;
//   - a request's params are the frame's own bytes, not a copy.
//
// A frame over smallFrameBytes takes its Content-Length from the daemon's
// budget before its body is read (conn.readRequest), and holds it until
// its call is answered.

// answerUnframed answers a message sent without a header (newline-
// delimited JSON) with PARSE_ERROR, in the peer's own framing: one line of
// JSON, which a client reading lines can parse, carrying the request's id
// when its first bytes hold one, so the client's pending call gets the
// answer instead of a silent hang-up. The message names the framing hostd
// reads, with an example. serve then closes the connection: where such a
// peer's next message starts cannot be known.
func (c *conn) answerUnframed(e *wire.UnframedError) {
	c.log.Warn("closing connection", zap.Error(e))
	var id json.RawMessage
	if found, ok := idPrefix(e.Head); ok {
		id = found
	}
	body, err := json.Marshal(rejection(id, wire.CodeParseError, "parse error: this message has no Content-Length header. "+wire.FramingHelp+". This connection is closed; reconnect and frame every message"))
	if err != nil {
		return
	}
	c.trace("out", body)
	c.out.replyBare(append(body, '\n'))
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
		return nil, rejection(e.ID, wire.CodeInvalidRequest, `"method" must be a string`)
	}
	if e.ID != nil {
		if err := req.ID.UnmarshalJSON(bytes.TrimSpace(e.ID)); err != nil {
			return nil, rejection(nil, wire.CodeInvalidRequest, errBadID)
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
