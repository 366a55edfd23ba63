package tools

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Tool-level error codes (wire-contract §4, edit-contract §11). A tool that runs
// and fails returns one of these in a result with ok=false; it is never a
// JSON-RPC error, because the model must read it.
const (
	CodeInvalidArgument      = "INVALID_ARGUMENT"
	CodeToolDenied           = "TOOL_DENIED"
	CodeOutsideWorkspace     = "PATH_OUTSIDE_WORKSPACE"
	CodeToolFailed           = "TOOL_FAILED"
	CodeNotFound             = "NOT_FOUND"
	CodeNotAFile             = "NOT_A_FILE"
	CodeNotText              = "NOT_TEXT"
	CodeFileTooLarge         = "FILE_TOO_LARGE"
	CodeTagRequired          = "EDIT_TAG_REQUIRED"
	CodeTagMismatch          = "EDIT_TAG_MISMATCH"
	CodeTagUnknown           = "EDIT_TAG_UNKNOWN"
	CodeLinesUnseen          = "EDIT_LINES_UNSEEN"
	CodeParseFailed          = "EDIT_PARSE_FAILED"
	CodeRangeInvalid         = "EDIT_RANGE_INVALID"
	CodeBlockUnresolved      = "EDIT_BLOCK_UNRESOLVED"
	CodeRegisterEmpty        = "EDIT_REGISTER_EMPTY"
	CodeRegisterAmbiguous    = "EDIT_REGISTER_AMBIGUOUS"
	CodeRepairAmbiguous      = "EDIT_REPAIR_AMBIGUOUS"
	CodeNoChange             = "EDIT_NO_CHANGE"
	CodeAmplificationLimit   = "EDIT_AMPLIFICATION_LIMIT"
	CodeRetryBudgetExhausted = "MUTATION_RETRY_BUDGET_EXHAUSTED"
	// CodeHostBusy: the daemon's memory budget (limits.maxMemoryBytes) had
	// no room for this call in time, or another program holds the file
	// open without sharing it (workspace.ErrBusy, Windows); the same call
	// succeeds once the others let go. hostd's addition to the wire
	// contract.
	CodeHostBusy = "HOST_BUSY"
)

// Error is a tool failure as the model and the runtime see it.
type Error struct {
	Code      string `json:"code"`
	Message   string `json:"message"`
	Retriable bool   `json:"retriable"`
	Details   any    `json:"details,omitempty"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Errorf builds a tool Error; the message must name one concrete next step
// (edit-contract §11).
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Retriable: retriable(code)}
}

// Result is the part of every tools.execute result that all tools share
// (wire-contract §4). Each tool's result type embeds it and adds its own fields.
type Result struct {
	OK         bool     `json:"ok"`
	Content    string   `json:"content"`
	ToolCallID string   `json:"toolCallId"`
	Warnings   []string `json:"warnings"`
	Error      *Error   `json:"error,omitempty"`
	Terminate  bool     `json:"terminate,omitempty"`
}

// Outcome is any tool's result.
type Outcome interface {
	Base() *Result
}

// Base returns the shared part of a result.
func (r *Result) Base() *Result { return r }

// Failed is the outcome of a tool that failed with err.
func Failed(err *Error) *Result {
	return &Result{Error: err}
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
