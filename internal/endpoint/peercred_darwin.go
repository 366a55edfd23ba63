package endpoint

import (
	"net"

	"golang.org/x/sys/unix"
)

// PeerOf reads the uid (LOCAL_PEERCRED, what getpeereid reads) and the
// pid (LOCAL_PEERPID) of the process at the other end of a Unix
// connection, as the kernel recorded them at connect (or listen) time.
func PeerOf(c net.Conn) (Peer, error) {
	var peer Peer
	err := control(c, func(fd int) error {
		cred, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
		if err != nil {
			return err
		}
		peer.UID = int(cred.Uid)
		// The pid only names the peer in logs and messages; a kernel
		// without LOCAL_PEERPID leaves it unknown.
		if pid, err := unix.GetsockoptInt(fd, unix.SOL_LOCAL, unix.LOCAL_PEERPID); err == nil {
			peer.PID = pid
		}
		return nil
	})
	return peer, err
}
