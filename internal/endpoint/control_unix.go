//go:build unix

package endpoint

import (
	"fmt"
	"net"
	"syscall"
)

// control runs f on the file descriptor of a Unix connection.
func control(c net.Conn, f func(fd int) error) error {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return fmt.Errorf("%T is not a socket", c)
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := raw.Control(func(fd uintptr) { ferr = f(int(fd)) }); err != nil {
		return err
	}
	return ferr
}
