package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"syscall"
	"time"

	"github.com/hostd-dev/hostd/internal/client"
	"github.com/hostd-dev/hostd/rpc/wire"
)

// errNoDaemon: nothing listens on the socket (no file, or a stale one);
// run maps it to exit status 3.
var errNoDaemon = errors.New("no hostd is listening")

// rpcError is a JSON-RPC error the daemon answered with.
type rpcError = client.Error

// daemonConn is hostctl's connection to a daemon: the protocol client and
// the socket it reached, for messages.
type daemonConn struct {
	*client.Conn
	socket string
}

// dial connects to the daemon on socket once trust accepts the socket, its
// directory and the process listening on it; nothing is sent before. A
// missing socket file and a stale one (no listener behind it) are both
// errNoDaemon, so the caller can tell the user how to start a daemon
// rather than print a bare syscall error.
func dial(ctx context.Context, socket string, maxFrame int64, trust socketTrust) (*daemonConn, error) {
	if err := trust.checkSocket(socket); err != nil {
		return nil, err
	}
	var d net.Dialer
	nc, err := d.DialContext(ctx, "unix", socket)
	if err != nil {
		if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED) {
			return nil, fmt.Errorf("%w on %s", errNoDaemon, socket)
		}
		if errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EPERM) {
			return nil, fmt.Errorf("cannot connect to %s: permission denied (the daemon's socket is 0600: run hostctl as the user that started hostd)", socket)
		}
		return nil, fmt.Errorf("cannot connect to %s: %w", socket, err)
	}
	if err := trust.checkPeer(nc.(*net.UnixConn), socket); err != nil {
		nc.Close()
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

// isMethodNotFound reports whether err is the daemon saying it does not
// serve the method at all (an older daemon, or one built without it).
func isMethodNotFound(err error) bool { return client.Is(err, wire.CodeMethodNotFound) }

// defaultTimeout bounds one hostctl command; every call honours it.
const defaultTimeout = 30 * time.Second
