package wire

// Code is a JSON-RPC error code with the name clients match on, which is
// sent as error.data.code (wire-contract §2).
type Code struct {
	Num  int64
	Name string
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
	CodeParseError       = Code{-32700, "PARSE_ERROR"}
	CodeInvalidRequest   = Code{-32600, "INVALID_REQUEST"}
	CodeMethodNotFound   = Code{-32601, "METHOD_NOT_FOUND"}
	CodeInvalidParams    = Code{-32602, "INVALID_PARAMS"}
	CodeInternal         = Code{-32603, "INTERNAL_ERROR"}
	CodeShuttingDown     = Code{-32000, "SHUTTING_DOWN"}
	CodeSessionNotFound  = Code{-32001, "SESSION_NOT_FOUND"}
	CodeWorkspaceInvalid = Code{-32002, "WORKSPACE_INVALID"}
	CodeRollbackConflict = Code{-32003, "ROLLBACK_CONFLICT"}
	CodeReviewNotFound   = Code{-32004, "REVIEW_NOT_FOUND"}
	CodeUnknownTool      = Code{-32005, "UNKNOWN_TOOL"}
	CodeSessionLimit     = Code{-32006, "SESSION_LIMIT"}
	CodeOverloaded       = Code{-32007, "OVERLOADED"}
	CodeResultTooLarge   = Code{-32008, "RESULT_TOO_LARGE"}
	CodeRequestCancelled = Code{-32800, "REQUEST_CANCELLED"}
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
// params are a review.Recorded.
const RecordedNotification = "review.recorded"
