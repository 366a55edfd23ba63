package main

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
)

// Whoever can create the socket's directory can stand up a daemon of
// their own there: with XDG_RUNTIME_DIR unset and a shared TMPDIR, another
// user may create hostd-$UID/ before we do. hostd refuses to serve from
// such a directory, but hostctl would still connect to the impostor and
// send it our requests. So before sending a byte hostctl checks what
// ssh-agent clients check: the directory is a real directory, ours, and
// no one else can write it; the socket is ours; and once connected, the
// process on the other end (SO_PEERCRED) runs as us.

// errUntrusted marks a socket hostctl refuses to talk to.
var errUntrusted = errors.New("refusing")

// socketTrust is what hostctl needs to judge a socket: the uid it runs
// as, and whether the path is the default one (whose fix is to set
// XDG_RUNTIME_DIR) or one the user named (whose fix is another --socket).
type socketTrust struct {
	uid           int
	defaultSocket bool
	xdgSet        bool
}

// elsewhere is the way out when the socket's directory cannot be trusted.
func (t socketTrust) elsewhere(dir string) string {
	if t.defaultSocket && !t.xdgSet {
		return fmt.Sprintf("remove %s or set XDG_RUNTIME_DIR to a private directory, then start hostd again", dir)
	}
	if t.defaultSocket {
		return fmt.Sprintf("remove %s and start hostd again", dir)
	}
	return fmt.Sprintf("remove %s, or use a socket in a private directory of your own (--socket)", dir)
}

// checkSocket vets socket and its directory before hostctl connects. A
// missing directory or socket is errNoDaemon; anything that another user
// could have planted or could replace is errUntrusted, naming what is
// wrong and what to do.
func (t socketTrust) checkSocket(socket string) error {
	dir := filepath.Dir(socket)
	info, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w on %s", errNoDaemon, socket)
	}
	if err != nil {
		return fmt.Errorf("cannot check the socket's directory: %w", err)
	}
	if info.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%w %s: its directory %s is a symbolic link, which anyone who can write its parent could point elsewhere; %s", errUntrusted, socket, dir, t.elsewhere(dir))
	}
	if !info.IsDir() {
		return fmt.Errorf("%w %s: %s is not a directory", errUntrusted, socket, dir)
	}
	if owner, ok := ownerOf(info); ok && owner != t.uid {
		return fmt.Errorf("%w %s: another user (uid %d) owns %s, so a daemon there is not yours (you are uid %d); %s", errUntrusted, socket, owner, dir, t.uid, t.elsewhere(dir))
	}
	if perm := info.Mode().Perm(); perm&0o022 != 0 {
		return fmt.Errorf("%w %s: %s has mode %04o, so other users can replace the socket in it; hostd keeps its socket in a private (0700) directory: %s", errUntrusted, socket, dir, perm, t.elsewhere(dir))
	}

	info, err = os.Lstat(socket)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w on %s", errNoDaemon, socket)
	}
	if err != nil {
		return fmt.Errorf("cannot check the socket: %w", err)
	}
	if info.Mode().Type() != fs.ModeSocket {
		return fmt.Errorf("%w %s: it is not a socket (%s); remove it, or point --socket at hostd's socket", errUntrusted, socket, kind(info.Mode()))
	}
	if owner, ok := ownerOf(info); ok && owner != t.uid {
		return fmt.Errorf("%w %s: the socket belongs to uid %d, not to you (uid %d); a daemon you started would own it: remove it and start hostd again", errUntrusted, socket, owner, t.uid)
	}
	return nil
}

// checkPeer verifies, before anything is sent on c, that the process
// listening on the socket runs as our uid. Where the system cannot say
// (no SO_PEERCRED), the directory checks stand alone.
func (t socketTrust) checkPeer(c *net.UnixConn, socket string) error {
	uid, known, err := peerUID(c)
	if err != nil {
		return fmt.Errorf("%w %s: cannot read the credentials of the process listening on it: %v", errUntrusted, socket, err)
	}
	if known && uid != t.uid {
		return fmt.Errorf("%w %s: the process listening on it runs as uid %d, not as you (uid %d), so nothing was sent; stop it and start your own hostd", errUntrusted, socket, uid, t.uid)
	}
	return nil
}

func kind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "mode " + m.String()
}
