package main

import (
	"net"
	"syscall"
)

// peerUID is the uid of the process at the other end of c (SO_PEERCRED):
// for a connection hostctl made, the kernel recorded it when the daemon
// called listen, so a process cannot pass off a socket it did not open.
func peerUID(c *net.UnixConn) (uid int, known bool, err error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return 0, false, err
	}
	var cred *syscall.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil {
		return 0, false, err
	}
	if credErr != nil {
		return 0, false, credErr
	}
	return int(cred.Uid), true, nil
}
