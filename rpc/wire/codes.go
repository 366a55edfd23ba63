package wire

import "reflect"

// Code is a JSON-RPC error code with the name clients match on, which is
// sent as error.data.code (wire-contract §2); whether the same request
// can succeed when sent again as it is; and what it means and what the
// client should do. The OpenRPC document's components.errors is made from
// Codes.
type Code struct {
	Num         int64
	Name        string
	Retriable   bool
	Description string
}

// The codes hostd answers with. The protocol codes and the application
// codes -32001..-32006 are wire-contract §2. SHUTTING_DOWN and REQUEST_CANCELLED
// are additions: the first answers a request that arrives while the daemon
// drains, the second a request cancelled by $/cancelRequest or by the
// daemon's shutdown (the code is the one LSP clients already know).
// OVERLOADED (retriable) answers a request the daemon's memory budget had
// no room for in time; RESULT_TOO_LARGE one whose answer would exceed
// limits.maxFrameBytes.
var (
	CodeParseError = Code{Num: -32700, Name: "PARSE_ERROR",
		Description: "The frame's body is not JSON (the connection stays usable), or a message came without a Content-Length header (answered with one line of JSON, then the connection is closed): fix the encoder."}
	CodeInvalidRequest = Code{Num: -32600, Name: "INVALID_REQUEST",
		Description: "JSON, but not a request hostd takes (a batch, no jsonrpc \"2.0\", a bad method or id, an id already in flight): send one request per frame, with a fresh id."}
	CodeMethodNotFound = Code{Num: -32601, Name: "METHOD_NOT_FOUND",
		Description: "No such method in this daemon: check the name; rpc.discover says what it serves."}
	CodeInvalidParams = Code{Num: -32602, Name: "INVALID_PARAMS",
		Description: "A param is missing, has the wrong type or is unknown (error.data.field names it): fix what the message names."}
	CodeInternal = Code{Num: -32603, Name: "INTERNAL_ERROR",
		Description: "A bug in the daemon: report it with the message; the daemon keeps running."}
	CodeShuttingDown = Code{Num: -32000, Name: "SHUTTING_DOWN",
		Description: "The daemon is draining and takes no new calls: reconnect once a daemon is back."}
	CodeSessionNotFound = Code{Num: -32001, Name: "SESSION_NOT_FOUND",
		Description: "Unknown or deleted sessionId: session.create (with the same sessionId to re-attach after a restart)."}
	CodeWorkspaceInvalid = Code{Num: -32002, Name: "WORKSPACE_INVALID",
		Description: "A root is missing, not a directory, or unreadable: pass an existing directory."}
	CodeRollbackConflict = Code{Num: -32003, Name: "ROLLBACK_CONFLICT",
		Description: "A file changed since the call being rolled back, or the call was already rolled back: show the user the message; the newer work is kept."}
	CodeReviewNotFound = Code{Num: -32004, Name: "REVIEW_NOT_FOUND",
		Description: "No review entries for that toolCallId: check the id against review.list."}
	CodeUnknownTool = Code{Num: -32005, Name: "UNKNOWN_TOOL",
		Description: "tools.execute named a tool that does not exist: use a name from tools.definitions (the message lists them)."}
	CodeSessionLimit = Code{Num: -32006, Name: "SESSION_LIMIT",
		Description: "The daemon holds limits.maxSessions sessions: delete sessions you no longer need."}
	CodeOverloaded = Code{Num: -32007, Name: "OVERLOADED", Retriable: true,
		Description: "The memory budget had no room for the request in time; it was not run: retry after a moment, and send large payloads one at a time."}
	CodeResultTooLarge = Code{Num: -32008, Name: "RESULT_TOO_LARGE",
		Description: "The answer would be larger than limits.maxFrameBytes: ask for less in one call."}
	CodeRequestCancelled = Code{Num: -32800, Name: "REQUEST_CANCELLED",
		Description: "Cancelled by $/cancelRequest, by the client hanging up, or at the end of the shutdown grace: nothing, if you cancelled it; otherwise retry once a daemon is back."}
)

// Codes is every code above, in wire-contract §2's order.
var Codes = []Code{
	CodeParseError, CodeInvalidRequest, CodeMethodNotFound, CodeInvalidParams, CodeInternal,
	CodeShuttingDown, CodeSessionNotFound, CodeWorkspaceInvalid, CodeRollbackConflict,
	CodeReviewNotFound, CodeUnknownTool, CodeSessionLimit, CodeOverloaded, CodeResultTooLarge,
	CodeRequestCancelled,
}

// CodeName is the wire name of a numeric code, or "" for one hostd does
// not send. A client needs it for the protocol codes, which JSON-RPC
// libraries send without error.data, and for an application error whose
// data is missing.
func CodeName(num int64) string {
	for _, c := range Codes {
		if c.Num == num {
			return c.Name
		}
	}
	return ""
}

// ErrorData is error.data: the code's name, and for a params problem the
// JSON path of the field at fault.
type ErrorData struct {
	Code  string `json:"code"`
	Field string `json:"field,omitempty"`
}

// DefaultMaxFrameBytes is the daemon's default limits.maxFrameBytes: the
// frame cap a client takes when it is told no other.
const DefaultMaxFrameBytes = 64 << 20

// ProtocolVersion is the wire contract's version (host.info).
const ProtocolVersion = 1

// CancelMethod is the notification that cancels a request in flight on
// the same connection (the LSP convention vscode-jsonrpc follows).
const CancelMethod = "$/cancelRequest"

// RecordedNotification is the method of the notification every connected
// client receives when a tool call's changes are recorded for review; its
// params are a ReviewRecorded.
const RecordedNotification = "review.recorded"

// The tool error codes: a tool that runs and fails answers a result with
// ok false whose error.code is one of these (wire-contract §4,
// edit-contract §11). Each is declared here once; the daemon's tools and
// edit language, and every client, name them by these constants.
const (
	ToolInvalidArgument    = "INVALID_ARGUMENT"
	ToolDenied             = "TOOL_DENIED"
	ToolOutsideWorkspace   = "PATH_OUTSIDE_WORKSPACE"
	ToolFailed             = "TOOL_FAILED"
	ToolNotFound           = "NOT_FOUND"
	ToolNotAFile           = "NOT_A_FILE"
	ToolNotText            = "NOT_TEXT"
	ToolFileTooLarge       = "FILE_TOO_LARGE"
	ToolTagRequired        = "EDIT_TAG_REQUIRED"
	ToolTagMismatch        = "EDIT_TAG_MISMATCH"
	ToolTagUnknown         = "EDIT_TAG_UNKNOWN"
	ToolLinesUnseen        = "EDIT_LINES_UNSEEN"
	ToolParseFailed        = "EDIT_PARSE_FAILED"
	ToolRangeInvalid       = "EDIT_RANGE_INVALID"
	ToolBlockUnresolved    = "EDIT_BLOCK_UNRESOLVED"
	ToolRegisterEmpty      = "EDIT_REGISTER_EMPTY"
	ToolRegisterAmbiguous  = "EDIT_REGISTER_AMBIGUOUS"
	ToolRepairAmbiguous    = "EDIT_REPAIR_AMBIGUOUS"
	ToolNoChange           = "EDIT_NO_CHANGE"
	ToolAmplificationLimit = "EDIT_AMPLIFICATION_LIMIT"
	// ToolHostBusy: the daemon's memory budget (limits.maxMemoryBytes)
	// had no room for this call in time, or another program holds the
	// file open without sharing it (Windows); the same call succeeds once
	// the others let go. hostd's addition to the wire contract.
	ToolHostBusy = "HOST_BUSY"
	// ToolRetryBudgetExhausted is not a tool result's code: a runtime
	// writes it on the assistant row when the repeat guard ends a turn
	// (edit-contract §9.3); the tool result itself carries the code that
	// failed. It has no row in ToolCodes.
	ToolRetryBudgetExhausted = "MUTATION_RETRY_BUDGET_EXHAUSTED"
)

// ToolCode is one row of the tool error table: a code a failed tool
// result carries, whether the same intent can succeed once the model does
// what the message says (error.retriable), what it means, and the Go type
// of its error.details (nil: it carries none but the repeat guard's).
// The OpenRPC document's x-tool-errors, from which clients type the codes
// and their details, is generated from ToolCodes, and wire-contract §4's
// table is held to it by a test.
type ToolCode struct {
	Code        string
	Retriable   bool
	Description string
	Details     reflect.Type
}

// ToolCodes is the table, in wire-contract §4's order. A code a tool can
// answer with has a row; a tool setting details uses its row's type.
var ToolCodes = []ToolCode{
	{Code: ToolInvalidArgument, Description: "Args do not fit the tool's schema, an edit exceeds a limit of its language, or a toolCallId is reused: fix the argument the message names."},
	{Code: ToolDenied, Description: "A write into .git or a read-only root, or a change of a read-only file: write elsewhere."},
	{Code: ToolOutsideWorkspace, Description: "The path, symlinks resolved, leaves every root: use a path inside the workspace."},
	{Code: ToolFailed, Description: "An I/O failure, or a call cancelled before it ran; nothing was changed."},
	{Code: ToolNotFound, Description: "No such file; the message names the nearest existing directory."},
	{Code: ToolNotAFile, Description: "A directory, device, FIFO or socket."},
	{Code: ToolNotText, Description: "Invalid UTF-8, or a NUL byte in the first 8 KiB."},
	{Code: ToolFileTooLarge, Description: "Over a size limit: read a window, or write less."},
	{Code: ToolTagRequired, Description: "tag missing or not 4 hex digits."},
	{Code: ToolTagMismatch, Retriable: true, Details: reflect.TypeFor[TagMismatchDetails](),
		Description: "The file changed and the edit could not be proven safe to replay (retriable after a read): redo the edit against the lines shown, with the live tag."},
	{Code: ToolTagUnknown, Retriable: true, Details: reflect.TypeFor[TagUnknownDetails](),
		Description: "This session never minted that tag for this path, or dropped it on purpose (retriable after a read): read the file in this session."},
	{Code: ToolLinesUnseen, Retriable: true, Details: reflect.TypeFor[LinesUnseenDetails](),
		Description: "An anchor names lines this session was never shown: look at the revealed lines and retry."},
	{Code: ToolParseFailed, Description: "Malformed ops: fix the op the message quotes, in the form it shows."},
	{Code: ToolRangeInvalid, Description: "Reversed, out-of-range, overlapping or duplicate anchors, or an EOF state the text cannot have."},
	{Code: ToolBlockUnresolved, Details: reflect.TypeFor[BlockUnresolvedDetails](),
		Description: "N* did not resolve to a block: use the plain range the message suggests."},
	{Code: ToolRegisterEmpty, Description: "Paste from an unset register: CUT into it first."},
	{Code: ToolRegisterAmbiguous, Description: "Two pending anonymous cuts: name the registers."},
	{Code: ToolRepairAmbiguous, Details: reflect.TypeFor[RepairAmbiguousDetails](),
		Description: "Boundary repair asks which edit was meant; nothing was written: the model sends the form it means (the same request again applies exactly as sent). A client must not resend it on its own."},
	{Code: ToolNoChange, Description: "The edit would leave the file as it is: do not repeat it."},
	{Code: ToolAmplificationLimit, Description: "The ops expand past limits.maxExpandedLines: split the edit."},
	{Code: ToolHostBusy, Retriable: true,
		Description: "The daemon's memory budget had no room for this write or edit in time, or (Windows) another program holds the file open without sharing it; nothing was changed: call again in a moment."},
}

// ToolCodeRetriable is a tool code's error.retriable: its row's (false
// for a code without one).
func ToolCodeRetriable(code string) bool {
	for _, c := range ToolCodes {
		if c.Code == code {
			return c.Retriable
		}
	}
	return false
}
