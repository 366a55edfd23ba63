package tools

import (
	"encoding/json"
	"reflect"
)

// ErrorCode is one row of the tool error table: a code a failed tool
// result carries, whether the same intent can succeed once the model does
// what the message says (error.retriable), what it means, and the Go type
// of its error.details (nil: it carries none but the repeat guard's).
// The OpenRPC document's x-tool-errors, from which clients type the codes
// and their details, is generated from this table, and docs/wire-contract.md
// §4's table is held to it by a test.
type ErrorCode struct {
	Code        string
	Retriable   bool
	Description string
	Details     reflect.Type
}

// errorCodes is the table, in wire-contract §4's order. A code a tool can
// answer with has a row; a tool setting details uses its row's type.
var errorCodes = []ErrorCode{
	{Code: CodeInvalidArgument, Description: "Args do not fit the tool's schema, an edit exceeds a limit of its language, or a toolCallId is reused: fix the argument the message names."},
	{Code: CodeToolDenied, Description: "A write into .git or a read-only root, or a change of a read-only file: write elsewhere."},
	{Code: CodeOutsideWorkspace, Description: "The path, symlinks resolved, leaves every root: use a path inside the workspace."},
	{Code: CodeToolFailed, Description: "An I/O failure, or a call cancelled before it ran; nothing was changed."},
	{Code: CodeNotFound, Description: "No such file; the message names the nearest existing directory."},
	{Code: CodeNotAFile, Description: "A directory, device, FIFO or socket."},
	{Code: CodeNotText, Description: "Invalid UTF-8, or a NUL byte in the first 8 KiB."},
	{Code: CodeFileTooLarge, Description: "Over a size limit: read a window, or write less."},
	{Code: CodeTagRequired, Description: "tag missing or not 4 hex digits."},
	{Code: CodeTagMismatch, Retriable: true, Details: reflect.TypeFor[TagMismatchDetails](),
		Description: "The file changed and the edit could not be proven safe to replay (retriable after a read): redo the edit against the lines shown, with the live tag."},
	{Code: CodeTagUnknown, Retriable: true, Details: reflect.TypeFor[TagUnknownDetails](),
		Description: "This session never minted that tag for this path, or dropped it on purpose (retriable after a read): read the file in this session."},
	{Code: CodeLinesUnseen, Retriable: true, Details: reflect.TypeFor[LinesUnseenDetails](),
		Description: "An anchor names lines this session was never shown: look at the revealed lines and retry."},
	{Code: CodeParseFailed, Description: "Malformed ops: fix the op the message quotes, in the form it shows."},
	{Code: CodeRangeInvalid, Description: "Reversed, out-of-range, overlapping or duplicate anchors, or an EOF state the text cannot have."},
	{Code: CodeBlockUnresolved, Details: reflect.TypeFor[BlockUnresolvedDetails](),
		Description: "N* did not resolve to a block: use the plain range the message suggests."},
	{Code: CodeRegisterEmpty, Description: "Paste from an unset register: CUT into it first."},
	{Code: CodeRegisterAmbiguous, Description: "Two pending anonymous cuts: name the registers."},
	{Code: CodeRepairAmbiguous, Details: reflect.TypeFor[RepairAmbiguousDetails](),
		Description: "Boundary repair asks which edit was meant; nothing was written: the model sends the form it means (the same request again applies exactly as sent). A client must not resend it on its own."},
	{Code: CodeNoChange, Description: "The edit would leave the file as it is: do not repeat it."},
	{Code: CodeAmplificationLimit, Description: "The ops expand past limits.maxExpandedLines: split the edit."},
	{Code: CodeHostBusy, Retriable: true,
		Description: "The daemon's memory budget had no room for this write or edit in time, or (Windows) another program holds the file open without sharing it; nothing was changed: call again in a moment."},
}

// ErrorCodes returns the tool error table (a copy).
func ErrorCodes() []ErrorCode { return append([]ErrorCode(nil), errorCodes...) }

// retriable reports a code's error.retriable: its row's.
func retriable(code string) bool {
	for _, c := range errorCodes {
		if c.Code == code {
			return c.Retriable
		}
	}
	return false
}

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

// withGuard adds the repeat guard's fields to an error's own details, as
// one JSON object.
func withGuard(details any, g RepeatGuardDetails) map[string]any {
	out := map[string]any{}
	for _, part := range []any{details, g} {
		if b, err := json.Marshal(part); err == nil {
			json.Unmarshal(b, &out)
		}
	}
	return out
}
