package tools

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/hostd-dev/hostd/rpc/wire"
)

// Errorf builds a tool error: code is one of rpc/wire's tool codes
// (wire.ToolCodes, wire-contract §4, edit-contract §11), and the message
// must name one concrete next step. A tool that runs and fails returns
// it in a result with ok=false; it is never a JSON-RPC error, because the
// model must read it.
func Errorf(code, format string, args ...any) *wire.ToolError {
	return &wire.ToolError{Code: code, Message: fmt.Sprintf(format, args...), Retriable: wire.ToolCodeRetriable(code)}
}

// Outcome is any tool's result: one of rpc/wire's tool result types,
// each of which embeds the shared part, wire.ToolResult.
type Outcome interface {
	Base() *wire.ToolResult
}

// Failed is the outcome of a tool that failed with err.
func Failed(err *wire.ToolError) *wire.ToolResult {
	return &wire.ToolResult{Error: err}
}

// finish fills the fields every result carries: the tool call id, a
// non-nil warnings list, and the model-visible content of an error and of
// every warning (wire-contract §4: each warning also appears in content).
// maxMessageBytes bounds one error message or warning. Messages quote
// what the client sent (a path, a tag, an op); whatever it sent, the
// answer stays small.
const maxMessageBytes = 4 << 10

// clipMessage cuts m to maxMessageBytes on a character boundary and says
// how much was cut.
func clipMessage(m string) string { return clipMessageTo(m, maxMessageBytes) }

// clipMessageTo cuts m to n bytes on a character boundary and says how
// much was cut.
func clipMessageTo(m string, n int) string {
	if len(m) <= n {
		return m
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(m[cut]) {
		cut--
	}
	return m[:cut] + fmt.Sprintf("… (%d more bytes of this message cut)", len(m)-cut)
}

func finish(o Outcome, toolCallID string) {
	r := o.Base()
	r.ToolCallID = toolCallID
	r.OK = r.Error == nil
	if r.Warnings == nil {
		r.Warnings = []string{}
	}
	if r.Error != nil {
		r.Error.Message = clipMessage(r.Error.Message)
	}
	for i, w := range r.Warnings {
		r.Warnings[i] = clipMessage(w)
	}
	var b strings.Builder
	if r.Error != nil {
		fmt.Fprintf(&b, "Error %s: %s", r.Error.Code, r.Error.Message)
		if r.Content != "" {
			b.WriteString("\n")
			b.WriteString(r.Content)
		}
	} else {
		b.WriteString(r.Content)
	}
	for _, w := range r.Warnings {
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
			b.WriteString("\n")
		}
		b.WriteString("Warning: ")
		b.WriteString(w)
	}
	r.Content = b.String()
}
