package rpc

import (
	"fmt"

	"go.uber.org/zap"
)

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

// jsonrpc2Logger routes jsonrpc2's own printf logging into zap at debug
// level; the interesting events are logged by this package with fields.
type jsonrpc2Logger struct{ log *zap.Logger }

func (l jsonrpc2Logger) Printf(format string, v ...any) {
	if ce := l.log.Check(zap.DebugLevel, "jsonrpc2"); ce != nil {
		ce.Write(zap.String(LogReason, fmt.Sprintf(format, v...)))
	}
}
