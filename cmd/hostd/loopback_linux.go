package main

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
)

// loopbackPeerUID is the uid owning the client end of a TCP connection
// accepted on 127.0.0.1: a loopback connection has both its ends in this
// network namespace's /proc/net/tcp, the client's row holding its owner.
// It is the check SO_PEERCRED gives the Unix socket, for TCP.
func loopbackPeerUID(c net.Conn) (int, error) {
	local, ok1 := c.LocalAddr().(*net.TCPAddr)
	remote, ok2 := c.RemoteAddr().(*net.TCPAddr)
	if !ok1 || !ok2 || remote.IP.To4() == nil || !remote.IP.IsLoopback() {
		return 0, fmt.Errorf("not an IPv4 loopback TCP connection: %v", c.RemoteAddr())
	}
	f, err := os.Open("/proc/net/tcp")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	// The client's row: its local address is our remote one and the
	// other way round (addresses in host byte order, ports big-endian).
	key := func(a *net.TCPAddr) string {
		return fmt.Sprintf("%08X:%04X", binary.NativeEndian.Uint32(a.IP.To4()), a.Port)
	}
	from, to := key(remote), key(local)
	s := bufio.NewScanner(f)
	for s.Scan() {
		fields := strings.Fields(s.Text())
		if len(fields) > 7 && fields[1] == from && fields[2] == to {
			return strconv.Atoi(fields[7])
		}
	}
	if err := s.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("no socket row for %v in /proc/net/tcp", c.RemoteAddr())
}
