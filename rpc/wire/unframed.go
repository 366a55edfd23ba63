package wire

import (
	"bufio"
	"errors"
	"fmt"
)

// A peer that sends JSON without a header (newline-delimited JSON-RPC, as
// MCP's stdio transport and many small clients speak, or a person typing
// into hostd --stdio) would otherwise meet a header error and a closed
// connection it cannot explain. The reader recognises such a message by
// its first byte, where a header line would start, and reports it as an
// UnframedError carrying the message's first bytes, so the daemon can
// answer in the peer's own framing, naming the one it expects.

// UnframedError is the ErrFrame of a message sent without a header: Head
// is the message as far as it was read (to its end, its first newline,
// or MaxHeaderBytes, whichever came first), to find a request's id in.
type UnframedError struct {
	Head []byte
}

func (e *UnframedError) Error() string {
	return fmt.Sprintf("%v: a JSON message without a Content-Length header (newline-delimited JSON?)", ErrFrame)
}

// Is makes an UnframedError an ErrFrame.
func (e *UnframedError) Is(target error) bool { return target == ErrFrame }

// FramingHelp says what framing hostd reads, with an example, for the
// answer to an unframed message and for clients' errors.
const FramingHelp = `hostd reads JSON-RPC 2.0 framed as in the Language Server Protocol: each message is a Content-Length header, a blank line, then exactly that many bytes of JSON, e.g. "Content-Length: 45\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"host.info\"}"; newline-delimited JSON is not read (an MCP client wants hostd mcp)`

// unframed reports, at the start of a header, a message that starts as
// JSON does; it then reads that message's head.
func (f *Reader) unframed() error {
	first, err := f.r.Peek(1)
	if err != nil || (first[0] != '{' && first[0] != '[') {
		return nil // ReadHeader reads the error, or the header, itself
	}
	head, _ := readJSONHead(f.r, MaxHeaderBytes)
	return &UnframedError{Head: head}
}

// readJSONHead reads one JSON object or array off r: up to where it ends,
// a newline outside its strings (a line of newline-delimited JSON), or max
// bytes. It stops at the value's end so that a peer which sends one value
// and waits for its answer, without a newline, is answered too.
func readJSONHead(r *bufio.Reader, max int) ([]byte, error) {
	var head []byte
	depth, inString, escaped := 0, false, false
	for len(head) < max {
		c, err := r.ReadByte()
		if err != nil {
			return head, err
		}
		if c == '\n' && !inString {
			return head, nil
		}
		head = append(head, c)
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case inString:
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			if depth--; depth == 0 {
				return head, nil
			}
		}
	}
	return head, errors.New("message longer than its head")
}
