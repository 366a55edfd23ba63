// Command hostctl is the human way into a running hostd: it connects to
// the daemon's Unix socket, speaks the wire contract (JSON-RPC 2.0 with
// LSP Content-Length framing) as a client, and prints what the daemon
// reports as tables, or as the raw JSON result with --json. It owns no
// daemon state and changes nothing on its own; the only mutating command,
// review rollback, asks the daemon to do it.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	// An interrupt cancels the context, which cancels the request at the
	// daemon too ($/cancelRequest) instead of leaving it running.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr}, os.Getenv)
	stop()
	os.Exit(code)
}
