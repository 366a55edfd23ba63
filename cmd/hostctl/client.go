package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hostd-dev/hostd/internal/client"
	"github.com/hostd-dev/hostd/internal/endpoint"
	"github.com/hostd-dev/hostd/rpc/wire"
)

// errNoDaemon: nothing listens on the socket (no file, or a stale one);
// run maps it to exit status 3.
var errNoDaemon = endpoint.ErrNoListener

// rpcError is a JSON-RPC error the daemon answered with.
type rpcError = client.Error

// daemonConn is hostctl's connection to a daemon: the protocol client and
// the socket it reached, for messages.
type daemonConn struct {
	*client.Conn
	socket string
}

// dial connects to the daemon on socket once the socket, its directory
// and the process listening on it are found to be the user's own
// (endpoint.Dial); nothing is sent before. A missing socket file and a
// stale one are both errNoDaemon, so the caller can tell the user how to
// start a daemon rather than print a bare syscall error; a socket another
// user could have planted is refused, saying what is wrong.
func dial(ctx context.Context, socket string, maxFrame int64) (*daemonConn, error) {
	nc, err := endpoint.Dial(ctx, socket)
	if err != nil {
		return nil, err
	}
	return &daemonConn{Conn: client.New(nc, client.Options{MaxFrameBytes: maxFrame, Peer: socket}), socket: socket}, nil
}

// call is Conn.Call with hostctl's words for a call its --timeout or an
// interrupt ended (the request was cancelled at the daemon either way).
func (c *daemonConn) call(ctx context.Context, method string, params, result any) error {
	err := c.Call(ctx, method, params, result)
	switch {
	case err == nil || ctx.Err() == nil:
		return err
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("%s: no answer before the timeout; the request was cancelled (raise --timeout for long calls)", method)
	}
	return fmt.Errorf("%s: interrupted; the request was cancelled", method)
}

// typed is the typed calls on c, each with call's words for a timeout.
func (c *daemonConn) typed() *client.Client { return client.Typed(client.CallerFunc(c.call)) }

// isMethodNotFound reports whether err is the daemon saying it does not
// serve the method at all (an older daemon, or one built without it).
func isMethodNotFound(err error) bool { return client.Is(err, wire.CodeMethodNotFound) }

// defaultTimeout bounds one hostctl command; every call honours it.
const defaultTimeout = 30 * time.Second
