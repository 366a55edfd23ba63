//go:build unix && !linux && !darwin

package endpoint

import (
	"errors"
	"net"
)

// PeerOf: hostd reads peer credentials on Linux and macOS only. Elsewhere
// every socket peer is refused rather than trusted unchecked.
func PeerOf(net.Conn) (Peer, error) {
	return Peer{}, errors.New("peer credentials cannot be read on this system; use hostd --stdio --standalone")
}
