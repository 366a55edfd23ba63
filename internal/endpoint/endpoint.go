// Package endpoint owns where hostd listens and who may talk to it, on
// each platform: the per-user rendezvous every client of one user finds
// (derived from the user's identity, never from environment variables a
// launcher may drop), the per-user state directory, listening privately
// (Unix: a 0600 socket in a 0700 directory nobody else can replace, a lock
// file that decides which daemon owns the path, a stale socket replaced
// and a live one never stolen; Windows: a named pipe whose security
// descriptor admits only the user's SID, created as the name's first
// instance so nobody can squat it, refusing remote clients), the identity
// of a connected peer (SO_PEERCRED on Linux, LOCAL_PEERCRED and
// LOCAL_PEERPID on macOS, the pipe's server process token on Windows), and
// dialing with a check of who serves before a byte is sent. It knows
// nothing of the protocol spoken over the connection: that is rpc's and
// client's.
package endpoint

import (
	"errors"
	"fmt"
	"strings"
)

// ErrLive reports another daemon owning the address; *LiveError names it.
var ErrLive = errors.New("already running")

// LiveError is another live daemon owning the address.
type LiveError struct {
	Addr string
	PID  int // 0 when it could not be learnt
}

func (e *LiveError) Error() string {
	who := "another hostd"
	if e.PID > 0 {
		who = fmt.Sprintf("pid %d", e.PID)
	}
	ctl := Hostctl(e.Addr)
	return fmt.Sprintf("%v: %s is listening on %s; talk to it (%s info), stop it (%s shutdown), or give this one another --socket", ErrLive, who, e.Addr, ctl, ctl)
}

// Hostctl is the hostctl command line that reaches a daemon on addr:
// plain "hostctl" for the user's default address, else with --socket
// naming addr (quoted for a shell when it needs it). A hint that left
// --socket out would send its reader to another daemon, the default
// one, and could stop it.
func Hostctl(addr string) string {
	if addr == Default() {
		return "hostctl"
	}
	return "hostctl --socket " + shellQuote(addr)
}

// shellQuote is s as a POSIX shell word: as it is when every byte is one
// a shell takes literally, else in single quotes.
func shellQuote(s string) string {
	safe := s != ""
	for i := 0; i < len(s) && safe; i++ {
		c := s[i]
		safe = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("/._-+@%=:,", c) >= 0
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Is makes a LiveError an ErrLive.
func (e *LiveError) Is(target error) bool { return target == ErrLive }

// ErrNoListener reports a dial that found no daemon: no socket or pipe,
// or a stale socket file nobody listens on. The caller may start one.
var ErrNoListener = errors.New("no hostd is listening")

// ErrUntrusted marks an address Dial refuses to talk to: something another
// user could have planted or could replace, or a server that does not run
// as us. Nothing was sent to it.
var ErrUntrusted = errors.New("refusing")

// Peer is the process at the other end of a connection, as the system
// reports it.
type Peer struct {
	UID int    // Unix: the peer's uid; -1 on Windows
	SID string // Windows: the peer's user SID; "" on Unix
	PID int    // 0 when the system does not say
}

func (p Peer) String() string {
	if p.SID != "" {
		return fmt.Sprintf("user %s (pid %d)", p.SID, p.PID)
	}
	return fmt.Sprintf("uid %d (pid %d)", p.UID, p.PID)
}
