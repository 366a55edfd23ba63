package endpoint

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"time"

	"github.com/Microsoft/go-winio"
	"golang.org/x/sys/windows"
)

// On Windows the daemon serves a named pipe per user. Three things make
// it as private as the Unix socket:
//
//   - its security descriptor: owned by the user, one ACE allowing the
//     user's SID, one denying network logons, no inherited entries; so the
//     system refuses to open it for any other account, administrators
//     included (they could take ownership, which no process of ours would
//     miss: the owner check below reads the server's token, not the ACL);
//   - the first instance is created with FILE_CREATE (go-winio's
//     ListenPipe), which fails when the name exists: nobody can slip an
//     instance of their own in beside a live daemon's, and a name someone
//     else created first is refused, not shared;
//   - FILE_PIPE_REJECT_REMOTE_CLIENTS (go-winio sets it), and a client
//     that checks, before sending a byte, that the process serving the
//     pipe runs as the same user (its token's SID). A squatter holding the
//     name is found out there.
//
// The pipe is in message mode, so a client can half-close it (CloseWrite)
// as it does a socket: the forwarder relies on it.

// pipeBuffer is each direction's buffer; frames larger than it stream.
const pipeBuffer = 64 << 10

// Listener is the daemon's named pipe listener.
type Listener struct {
	net.Listener
	path      string
	lock      windows.Handle
	closeOnce sync.Once
	// OnRefuse is never called: the pipe's security descriptor refuses
	// other users before a connection exists.
	OnRefuse func(Peer, error)
}

// Path is the pipe's name.
func (l *Listener) Path() string { return l.path }

// securityDescriptor is the pipe's descriptor in SDDL for the user sid.
func securityDescriptor(sid string) string {
	return fmt.Sprintf("O:%sD:P(D;;GA;;;NU)(A;;GA;;;%s)", sid, sid)
}

// Claim is a pipe name taken for this process: no one serves it, and
// the lock file of the name is held, so a second daemon learns that it
// is second before touching the state directory.
type Claim struct {
	path, sid string
	lock      windows.Handle
}

// ClaimAddress takes the pipe name path. A live daemon of ours on the
// name is a *LiveError; a name another user holds is refused.
func ClaimAddress(path string) (*Claim, error) {
	sid, err := userSID()
	if err != nil {
		return nil, fmt.Errorf("read this process's user: %w", err)
	}
	lock, err := lockName(path)
	if errors.Is(err, ErrLive) {
		// Name the daemon that holds it, once it serves.
		if herr := holder(path, sid); herr != nil {
			return nil, herr
		}
	}
	if err != nil {
		return nil, err
	}
	if err := holder(path, sid); err != nil {
		windows.CloseHandle(lock)
		return nil, err
	}
	return &Claim{path: path, sid: sid, lock: lock}, nil
}

// Release gives the name up without listening on it.
func (c *Claim) Release() { windows.CloseHandle(c.lock) }

// Listen creates the pipe's first instance; the listener then holds the
// name's lock until it is closed.
//
// A name someone serves was found by dialing it (ClaimAddress), which
// names the holder; FILE_CREATE closes the window between that look and
// the create, on a system that enforces it (Windows does, Wine does not).
func (c *Claim) Listen() (*Listener, error) {
	l, err := winio.ListenPipe(c.path, &winio.PipeConfig{
		SecurityDescriptor: securityDescriptor(c.sid),
		MessageMode:        true,
		InputBufferSize:    pipeBuffer,
		OutputBufferSize:   pipeBuffer,
	})
	if err == nil {
		return &Listener{Listener: l, path: c.path, lock: c.lock}, nil
	}
	c.Release()
	if !nameTaken(err) {
		return nil, fmt.Errorf("listen on %s: %w", c.path, err)
	}
	// Someone made the name between the look and the create.
	if err := holder(c.path, c.sid); err != nil {
		return nil, err
	}
	return nil, &LiveError{Addr: c.path}
}

// Listen claims path and listens on it.
func Listen(path string) (*Listener, error) {
	c, err := ClaimAddress(path)
	if err != nil {
		return nil, err
	}
	return c.Listen()
}

// Close stops listening and releases the name's lock.
func (l *Listener) Close() error {
	err := l.Listener.Close()
	l.closeOnce.Do(func() { windows.CloseHandle(l.lock) })
	return err
}

// holder says who serves the pipe path, if anyone: nil when nobody does,
// a *LiveError for a daemon of ours (sid), a refusal for anyone else.
func holder(path, sid string) error {
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	c, err := winio.DialPipeContext(ctx, path)
	if errors.Is(err, windows.ERROR_FILE_NOT_FOUND) || errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s is held by a process hostd cannot reach (%v); it may not be yours, so hostd will not share the name: stop it, or give hostd another --socket", path, err)
	}
	defer c.Close()
	server, err := serverOf(c)
	switch {
	case err != nil:
		return fmt.Errorf("%s is held by a process whose user cannot be read (%v); it may not be yours, so hostd will not share the name: stop it, or give hostd another --socket", path, err)
	case server.SID != sid:
		return fmt.Errorf("%s is held by another user's process (%s); hostd will not share the name: stop that process, or give hostd another --socket", path, server)
	}
	return &LiveError{Addr: path, PID: server.PID}
}

// nameTaken reports a first instance that could not be made because the
// name exists.
func nameTaken(err error) bool {
	return errors.Is(err, windows.ERROR_ACCESS_DENIED) || errors.Is(err, windows.ERROR_ALREADY_EXISTS) ||
		errors.Is(err, windows.ERROR_PIPE_BUSY) || errors.Is(err, os.ErrExist)
}

// probeTimeout bounds the connect attempt to a name someone holds.
const probeTimeout = time.Second

// Dial connects to the daemon on the pipe once the process serving it is
// found to run as this user; nothing is sent before. No pipe of that name
// is ErrNoListener.
func Dial(ctx context.Context, path string) (net.Conn, error) {
	sid, err := userSID()
	if err != nil {
		return nil, fmt.Errorf("read this process's user: %w", err)
	}
	return dialAs(ctx, path, sid)
}

// dialAs is Dial for a client running as sid (a test injects another).
func dialAs(ctx context.Context, path, sid string) (net.Conn, error) {
	c, err := winio.DialPipeContext(ctx, path)
	if err != nil {
		switch {
		case errors.Is(err, windows.ERROR_FILE_NOT_FOUND) || errors.Is(err, os.ErrNotExist):
			return nil, fmt.Errorf("%w on %s", ErrNoListener, path)
		case errors.Is(err, windows.ERROR_ACCESS_DENIED):
			return nil, fmt.Errorf("%w %s: the pipe admits only the user who started that hostd, and that is not you; start your own hostd", ErrUntrusted, path)
		}
		return nil, fmt.Errorf("cannot connect to %s: %w", path, err)
	}
	server, err := serverOf(c)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("%w %s: cannot read the user of the process serving it: %v", ErrUntrusted, path, err)
	}
	if server.SID != sid {
		c.Close()
		return nil, fmt.Errorf("%w %s: the process serving it runs as %s, not as you (%s), so nothing was sent; stop it and start your own hostd", ErrUntrusted, path, server.SID, sid)
	}
	return c, nil
}

// PeerOf is the process at the other end of a pipe connection: the
// server for one we dialed, the client for one we accepted.
func PeerOf(c net.Conn) (Peer, error) {
	server, err := serverOf(c)
	if err != nil || server.PID != os.Getpid() {
		return server, err
	}
	return endOf(c, windows.GetNamedPipeClientProcessId)
}

// serverOf is the process serving the pipe c is connected to.
func serverOf(c net.Conn) (Peer, error) { return endOf(c, windows.GetNamedPipeServerProcessId) }

// endOf is the process at one end of c's pipe, as pidOf reads it.
func endOf(c net.Conn, pidOf func(windows.Handle, *uint32) error) (Peer, error) {
	h, err := handleOf(c)
	if err != nil {
		return Peer{}, err
	}
	var pid uint32
	if err := pidOf(h, &pid); err != nil {
		return Peer{}, err
	}
	return processPeer(pid)
}

func handleOf(c net.Conn) (windows.Handle, error) {
	f, ok := c.(interface{ Fd() uintptr })
	if !ok {
		return 0, fmt.Errorf("%T is not a pipe", c)
	}
	return windows.Handle(f.Fd()), nil
}

// processPeer reads the user a process runs as, from its token.
func processPeer(pid uint32) (Peer, error) {
	peer := Peer{UID: -1, PID: int(pid)}
	p, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, pid)
	if err != nil {
		return peer, fmt.Errorf("open process %d: %w", pid, err)
	}
	defer windows.CloseHandle(p)
	var tok windows.Token
	if err := windows.OpenProcessToken(p, windows.TOKEN_QUERY, &tok); err != nil {
		return peer, fmt.Errorf("open the token of process %d: %w", pid, err)
	}
	defer tok.Close()
	u, err := tok.GetTokenUser()
	if err != nil {
		return peer, fmt.Errorf("read the user of process %d: %w", pid, err)
	}
	peer.SID = u.User.Sid.String()
	return peer, nil
}
