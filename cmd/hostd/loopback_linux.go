package main

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
)

// On Linux `hostd mcp --http` checks, besides the token, who owns the
// client end of each connection: the check SO_PEERCRED makes on the
// Unix socket, for TCP. A connection of another user is closed before it
// is read.

// ownerOnly serves only connections whose client socket belongs to this
// process's uid; others are closed unread, and said so on log. The check
// runs at a connection's first read or write, in the goroutine that
// serves it, so another user's connections cannot hold up the accept
// loop for this user's.
func ownerOnly(l net.Listener, log io.Writer) net.Listener {
	return &ownerListener{Listener: l, log: log}
}

type ownerListener struct {
	net.Listener
	log io.Writer
}

func (l *ownerListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &ownerConn{Conn: c, log: l.log}, nil
}

// ownerConn is a connection whose owner is checked before anything is
// read from it or written to it.
type ownerConn struct {
	net.Conn
	log   io.Writer
	once  sync.Once
	fault error // the check's verdict: nil when the client is this uid
}

func (c *ownerConn) check() error {
	c.once.Do(func() {
		uid, err := loopbackPeerUID(c.Conn)
		if err == nil && uid != os.Getuid() {
			err = fmt.Errorf("its client runs as uid %d, not as you (uid %d)", uid, os.Getuid())
		}
		if err != nil {
			fmt.Fprintf(c.log, "hostd mcp: refused a connection from %v: %v\n", c.RemoteAddr(), err)
			c.Conn.Close()
			c.fault = fmt.Errorf("connection refused: %w", err)
		}
	})
	return c.fault
}

func (c *ownerConn) Read(p []byte) (int, error) {
	if err := c.check(); err != nil {
		return 0, err
	}
	return c.Conn.Read(p)
}

func (c *ownerConn) Write(p []byte) (int, error) {
	if err := c.check(); err != nil {
		return 0, err
	}
	return c.Conn.Write(p)
}

// loopbackPeerUID is the uid owning the client end of a TCP connection
// accepted on a loopback address: a loopback connection has both its ends
// in this network namespace's /proc/net/tcp (tcp6 for IPv6), the client's
// row holding its owner.
func loopbackPeerUID(c net.Conn) (int, error) {
	local, ok1 := c.LocalAddr().(*net.TCPAddr)
	remote, ok2 := c.RemoteAddr().(*net.TCPAddr)
	if !ok1 || !ok2 || !remote.IP.IsLoopback() {
		return 0, fmt.Errorf("not a loopback TCP connection: %v", c.RemoteAddr())
	}
	table := "/proc/net/tcp6"
	if remote.IP.To4() != nil {
		table = "/proc/net/tcp"
	}
	f, err := os.Open(table)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return clientRowUID(f, remote, local)
}

// tcpEstablished is the state column of a connected socket's row.
const tcpEstablished = "01"

// clientRowUID reads a /proc/net/tcp or tcp6 table for the row of the
// connection's client end, whose local address is client and remote one
// server, and returns its uid. Only a connected socket that a process
// still holds counts: a client that closed before the check leaves an
// orphaned row (FIN_WAIT2, say) listed with uid 0 and inode 0, which
// would pass for root's.
func clientRowUID(table io.Reader, client, server *net.TCPAddr) (int, error) {
	from, to := procAddr(client), procAddr(server)
	s := bufio.NewScanner(table)
	found := false
	for s.Scan() {
		// sl local rem st tx:rx tr:when retrnsmt uid timeout inode ...
		fields := strings.Fields(s.Text())
		if len(fields) < 10 || fields[1] != from || fields[2] != to {
			continue
		}
		found = true
		if fields[3] != tcpEstablished || fields[9] == "0" {
			continue
		}
		return strconv.Atoi(fields[7])
	}
	if err := s.Err(); err != nil {
		return 0, err
	}
	if found {
		return 0, fmt.Errorf("its client socket is no longer connected or held by a process (closed before it could be checked)")
	}
	return 0, fmt.Errorf("no socket row for %v", client)
}

// procAddr is an address as /proc/net/tcp spells it: the IP's 32-bit
// words in host byte order, then the port, in hex.
func procAddr(a *net.TCPAddr) string {
	ip := a.IP.To4()
	if ip == nil {
		ip = a.IP.To16()
	}
	var b strings.Builder
	for i := 0; i < len(ip); i += 4 {
		fmt.Fprintf(&b, "%08X", binary.NativeEndian.Uint32(ip[i:i+4]))
	}
	fmt.Fprintf(&b, ":%04X", a.Port)
	return b.String()
}
