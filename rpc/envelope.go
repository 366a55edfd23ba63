package rpc

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/hostd-dev/hostd/rpc/wire"
)

// A frame body is classified before jsonrpc2 sees it, because jsonrpc2
// drops the connection on any body it cannot decode. What it could not
// decode is answered here instead: -32700 for a body that is not JSON,
// -32600 for JSON that is not a JSON-RPC 2.0 request or response hostd can
// take, and the connection goes on.

// envelope is the part of a message classify looks at: the raw values of
// the top-level members that decide what the message is (nil: absent).
// They alias the frame body; nothing is copied, so a large params costs
// one validation pass here and no allocation.
type envelope struct {
	JSONRPC, ID, Method, Params, Result, Error []byte
}

// scanEnvelope reads the top-level members of body, which must be a valid
// JSON object. Keys match exactly, as jsonrpc2's request decoding does;
// a repeated key keeps its last value, as encoding/json does.
func scanEnvelope(body []byte) envelope {
	var e envelope
	objectMembers(body, func(key string, v []byte) {
		switch key {
		case "jsonrpc":
			e.JSONRPC = v
		case "id":
			e.ID = v
		case "method":
			e.Method = v
		case "params":
			e.Params = v
		case "result":
			e.Result = v
		case "error":
			e.Error = v
		}
	})
	return e
}

// objectMembers calls f with each member of obj, a valid JSON object
// (leading space trimmed), in order. Values alias obj; a key is copied
// only when it holds an escape.
func objectMembers(obj []byte, f func(key string, value []byte)) {
	i := skipSpace(obj, 1)
	for i < len(obj) && obj[i] != '}' {
		end := skipString(obj, i)
		raw := obj[i+1 : end-1]
		key := string(raw)
		if bytes.IndexByte(raw, '\\') >= 0 {
			json.Unmarshal(obj[i:end], &key)
		}
		i = skipSpace(obj, skipSpace(obj, end)+1) // past the colon
		vend := skipValue(obj, i)
		f(key, obj[i:vend])
		i = skipSpace(obj, vend)
		if i < len(obj) && obj[i] == ',' {
			i = skipSpace(obj, i+1)
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// skipString returns the index just past the string starting at b[i].
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// skipValue returns the index just past the value starting at b[i].
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	}
	for i < len(b) && !bytes.ContainsRune([]byte(",}] \t\r\n"), rune(b[i])) {
		i++
	}
	return i
}

// rejectionMsg is a response hostd writes itself, outside jsonrpc2, whose
// id may be null (the request's id was unreadable).
type rejectionMsg struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   rejectionError  `json:"error"`
}

type rejectionError struct {
	Code    int64          `json:"code"`
	Message string         `json:"message"`
	Data    wire.ErrorData `json:"data"`
	Name    string         `json:"-"`
}

func rejection(id json.RawMessage, code wire.Code, msg string) *rejectionMsg {
	if id == nil {
		id = json.RawMessage("null")
	}
	return &rejectionMsg{JSONRPC: "2.0", ID: id, Error: rejectionError{Code: code.Num, Message: msg, Data: wire.ErrorData{Code: code.Name}, Name: code.Name}}
}

// classify returns the answer to a body that is not a JSON-RPC 2.0
// request or response hostd can take, or nil for one it can.
func classify(body []byte) *rejectionMsg {
	body = bytes.TrimSpace(body)
	switch {
	case !json.Valid(body):
		return rejection(nil, wire.CodeParseError, "parse error: the frame body is not valid JSON")
	case body[0] == '[':
		return rejection(nil, wire.CodeInvalidRequest, "batch requests are not supported: send one request per frame")
	case body[0] != '{':
		return rejection(nil, wire.CodeInvalidRequest, "a JSON-RPC request must be a JSON object")
	}
	e := scanEnvelope(body)
	id, ok := validID(e.ID)
	if !ok {
		return rejection(nil, wire.CodeInvalidRequest, errBadID)
	}
	if string(e.JSONRPC) != `"2.0"` {
		return rejection(id, wire.CodeInvalidRequest, `"jsonrpc" must be "2.0"`)
	}
	isResponse := e.Result != nil || e.Error != nil
	switch {
	case e.Method == nil && !isResponse:
		return rejection(id, wire.CodeInvalidRequest, `a request needs a "method"`)
	case e.Method != nil && isResponse:
		return rejection(id, wire.CodeInvalidRequest, `a message is a request ("method") or a response ("result"/"error"), not both`)
	case e.Method != nil && e.Method[0] != '"':
		return rejection(id, wire.CodeInvalidRequest, `"method" must be a string`)
	}
	return nil
}

// maxIDBytes bounds a string id: every answer echoes the id, and an
// answer must stay small whatever the request held.
const maxIDBytes = 256

// errBadID is the answer to a request whose id hostd cannot echo.
var errBadID = "id must be a string (at most " + strconv.Itoa(maxIDBytes) + " bytes) or a non-negative integer"

// validID reports whether raw is an id jsonrpc2 can echo back unchanged:
// absent (a notification), a string of at most maxIDBytes, or an integer
// 0..2^63-1. It returns the id to answer with.
func validID(raw json.RawMessage) (json.RawMessage, bool) {
	raw = bytes.TrimSpace(raw)
	if raw == nil {
		return nil, true
	}
	switch raw[0] {
	case '"':
		return raw, len(raw) <= maxIDBytes
	case 'n':
		return nil, false // null ids are legal but ambiguous; jsonrpc2 would take it for a notification
	}
	if _, err := strconv.ParseInt(string(raw), 10, 64); err == nil && raw[0] != '-' {
		return raw, true
	}
	return nil, false
}
