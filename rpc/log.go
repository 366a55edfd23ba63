package rpc

// Log field names, defined once so every structured log line of the daemon
// spells them the same way. The daemon's entry point uses them too.
const (
	LogConn       = "conn"       // connection number, unique per daemon run
	LogMethod     = "method"     // JSON-RPC method
	LogRequestID  = "id"         // JSON-RPC request id
	LogDurationUs = "durationUs" // handler time in microseconds
	LogCode       = "code"       // error.data.code of an answer
	LogReason     = "reason"     // why something was refused or closed
	LogSessionID  = "sessionId"
	LogSocket     = "socket"
	LogPID        = "pid"
	LogPeerUID    = "peerUid"
	LogVersion    = "version"
)
