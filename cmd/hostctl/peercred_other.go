//go:build !linux

package main

import "net"

// peerUID reports the peer's uid as unknown: SO_PEERCRED is Linux's.
// Elsewhere hostctl relies on the socket directory's owner and mode, which
// it checks on every system.
func peerUID(*net.UnixConn) (uid int, known bool, err error) {
	return 0, false, nil
}
