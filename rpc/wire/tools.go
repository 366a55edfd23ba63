package wire

import "encoding/json"

// The shapes of tools.definitions and tools.execute (wire-contract §4).
// The daemon's tools fill them (package tools names them Result, Error
// and Definition); clients decode them.

// ToolDefinitions is the result of tools.definitions.
type ToolDefinitions struct {
	Tools []ToolDefinition `json:"tools"`
}

// ToolDefinition is one tool as a model is shown it: its name, its
// description and the JSON Schema of its arguments.
type ToolDefinition struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// ToolResult is the part of every tools.execute result that all tools
// share. Each tool's result embeds it and adds its own fields (their
// schemas are rpc.discover's x-tools). A tool that ran and failed answers
// ok false with Error set; it is never a JSON-RPC error, because the
// model must read it.
type ToolResult struct {
	OK         bool       `json:"ok"`
	Content    string     `json:"content"`
	ToolCallID string     `json:"toolCallId"`
	Warnings   []string   `json:"warnings"`
	Error      *ToolError `json:"error,omitempty"`
	Terminate  bool       `json:"terminate,omitempty"`
}

// Base returns the shared part of a result: a tool's result type, which
// embeds ToolResult, has it too.
func (r *ToolResult) Base() *ToolResult { return r }

// ToolError is a failed tool's error: a code of ToolCodes, the message
// the model reads (what is wrong and one next step), whether the same
// intent can succeed once the model does what it says, and the code's
// details (the type its ToolCodes row names).
type ToolError struct {
	Code      string `json:"code"`
	Message   string `json:"message"`
	Retriable bool   `json:"retriable"`
	Details   any    `json:"details,omitempty"`
}

func (e *ToolError) Error() string { return e.Code + ": " + e.Message }

// ExecuteResult is the result of tools.execute as a client reads it: the
// part every tool's result shares, and the whole object as the daemon
// sent it (Raw), whose other members are the tool's own (read's tag,
// edit's diff and regions, ...). It encodes as Raw when Raw is set, so a
// client that passes a result on (the MCP face) sends the daemon's bytes.
type ExecuteResult struct {
	ToolResult
	Raw json.RawMessage `json:"-"`
}

// UnmarshalJSON keeps the object as sent and decodes its shared part.
func (r *ExecuteResult) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil // as encoding/json leaves a struct on null
	}
	var shared ToolResult
	if err := json.Unmarshal(b, &shared); err != nil {
		return err
	}
	r.ToolResult, r.Raw = shared, append(json.RawMessage(nil), b...)
	return nil
}

// MarshalJSON writes Raw, or the shared part when there is no Raw.
func (r ExecuteResult) MarshalJSON() ([]byte, error) {
	if r.Raw != nil {
		return r.Raw, nil
	}
	return json.Marshal(r.ToolResult)
}

// Decode decodes the result into v, the tool's own result type: a
// *ReadResult for read, *GrepResult for grep, *WriteResult, *EditResult,
// *DiagnosticsResult (toolresults.go). The shared part is v's too. It
// reads the bytes as sent, so a member v has no field for is left out
// (Fields has every one).
func (r *ExecuteResult) Decode(v any) error {
	b, err := r.MarshalJSON()
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// Fields are the result's top-level members as sent, by name.
func (r *ExecuteResult) Fields() (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	err := json.Unmarshal(r.Raw, &m)
	return m, err
}

// Details of the tool error codes that carry them (ToolCodes' Details).

// LineText is one line of a file as an error's details show it.
type LineText struct {
	Line int    `json:"line" doc:"the line's number"`
	Text string `json:"text" doc:"the line's text, clipped to limits.maxRevealLineChars (a cut marked with …)"`
}

// TagMismatchDetails is EDIT_TAG_MISMATCH's details. Context is nil
// (absent) when another program changed the file between the gates and
// the write; it points to a nil slice (null) when the edit named no lines.
type TagMismatchDetails struct {
	Context *[]LineText `json:"context,omitempty" doc:"the live lines around the edit's anchors; absent when another program changed the file between the gates and the write (nothing was written), null when the edit named no lines"`
	LiveTag string      `json:"liveTag" doc:"the tag of the file as it is now"`
}

// TagUnknownDetails is EDIT_TAG_UNKNOWN's details.
type TagUnknownDetails struct {
	LiveTag string `json:"liveTag" doc:"the tag of the file as it is now"`
}

// LinesUnseenDetails is EDIT_LINES_UNSEEN's details: the reveal.
type LinesUnseenDetails struct {
	Lines  []LineText `json:"lines" doc:"the unseen lines the edit anchors on (at most limits.maxRevealLines)"`
	Merged bool       `json:"merged" doc:"every one was shown in full and now counts as seen: the same edit may be retried as it is"`
}

// BlockUnresolvedDetails is EDIT_BLOCK_UNRESOLVED's details.
type BlockUnresolvedDetails struct {
	Line   int    `json:"line" doc:"the line the block op named"`
	Reason string `json:"reason" doc:"why it did not resolve"`
}

// RepairAmbiguousDetails is EDIT_REPAIR_AMBIGUOUS's details: the forms
// boundary repair offers (edit-contract §8.4), each ready to send as ops
// with the same tag.
type RepairAmbiguousDetails struct {
	AsSent   string   `json:"asSent" doc:"the ops as sent, in canonical form: sending the same request again applies them exactly as sent"`
	Repaired []string `json:"repaired" doc:"one ops text per repair the refusal names; \"\" is a repair that is no edit at all"`
}

// RepeatGuardDetails is what the repeat guard adds to a failed edit's
// details when it stops the turn (the result then carries terminate:
// true; edit-contract §9.3).
type RepeatGuardDetails struct {
	Attempts int    `json:"attempts" doc:"the counted failures on the path in this prompt"`
	Kind     string `json:"kind" doc:"the kind of tool that failed" enum:"edit"`
	Recovery string `json:"recovery" doc:"a hint for that class of error"`
}
