package mcpface

import (
	"io"

	"github.com/hostd-dev/hostd/internal/client"
)

// Daemon is the part of hostd's JSON-RPC contract the MCP face calls:
// tools.definitions, session.create, session.delete and tools.execute.
// A failed call's error is a *CallError when the daemon answered with a
// JSON-RPC error.
// The face makes its calls through the typed ones of package client.
type Daemon = client.Caller

// CallError is a JSON-RPC error the daemon answered with: its numeric
// code, the name in error.data.code (wire-contract §2) and the message.
type CallError = client.Error

// Remote is a Daemon on the far side of one JSON-RPC connection (LSP
// framing), such as the shared daemon's socket: the protocol client, with
// its frame cap. It is safe for concurrent calls. A call whose context
// ends is cancelled at the daemon with $/cancelRequest, so a tool call
// the MCP client cancels stops there too.
type Remote struct {
	*client.Conn
}

// NewRemote speaks JSON-RPC on rwc until Close or until the daemon hangs
// up, taking frames of at most maxFrame bytes (zero: the default limit).
// Requests the daemon sends are refused; notifications (review.recorded)
// are ignored.
func NewRemote(rwc io.ReadWriteCloser, maxFrame int64) *Remote {
	return &Remote{client.New(rwc, client.Options{MaxFrameBytes: maxFrame, Peer: "the shared daemon's connection"})}
}
