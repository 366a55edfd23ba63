package wire

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

// ProtocolVersion is the wire contract's version (host.info).
const ProtocolVersion = 1

// CancelMethod is the notification that cancels a request in flight on
// the same connection (the LSP convention vscode-jsonrpc follows).
const CancelMethod = "$/cancelRequest"

// RecordedNotification is the method of the notification every connected
// client receives when a tool call's changes are recorded for review; its
// params are a ReviewRecorded.
const RecordedNotification = "review.recorded"
