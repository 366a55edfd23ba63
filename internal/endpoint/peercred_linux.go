package endpoint

import (
	"net"

	"golang.org/x/sys/unix"
)

// PeerOf reads the uid and pid of the process at the other end of a Unix
// connection (SO_PEERCRED), as the kernel recorded them at connect time
// (for a connection we accepted) or at listen time (one we made).
func PeerOf(c net.Conn) (Peer, error) {
	var peer Peer
	err := control(c, func(fd int) error {
		cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
		if err != nil {
			return err
		}
		peer = Peer{UID: int(cred.Uid), PID: int(cred.Pid)}
		return nil
	})
	return peer, err
}
