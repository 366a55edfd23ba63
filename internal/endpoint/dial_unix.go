//go:build unix

package endpoint

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"syscall"
)

// Whoever can create the socket's directory can stand up a daemon of
// their own there: another user may create /tmp/hostd-UID/ before we do.
// hostd refuses to serve from such a directory, but a client would still
// connect to the impostor and send it our requests. So before sending a
// byte Dial checks what ssh-agent clients check: the directory is a real
// directory, ours, and no one else can write it; the socket is ours; and
// once connected, the process on the other end runs as us.

// Dial connects to the daemon on the socket at path once the socket, its
// directory and the process listening on it are found to be ours; nothing
// is sent before. No socket file, and a stale one (no listener behind
// it), are ErrNoListener; anything another user could have planted or
// could replace is ErrUntrusted, naming what is wrong and what to do.
func Dial(ctx context.Context, path string) (net.Conn, error) {
	return dialAs(ctx, path, os.Getuid())
}

// dialAs is Dial for a client running as uid (a test injects another).
func dialAs(ctx context.Context, path string, uid int) (net.Conn, error) {
	if err := checkSocket(path, uid); err != nil {
		return nil, err
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		switch {
		case errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED):
			return nil, fmt.Errorf("%w on %s", ErrNoListener, path)
		case errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EPERM):
			return nil, fmt.Errorf("cannot connect to %s: permission denied (the daemon's socket is 0600: connect as the user that started hostd)", path)
		}
		return nil, fmt.Errorf("cannot connect to %s: %w", path, err)
	}
	if err := checkServer(c, path, uid); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// checkServer verifies, before anything is sent on c, that the process
// listening on the socket runs as uid. For a connection we made, the
// system recorded the listener's credentials when it called listen, so a
// process cannot pass off a socket it did not open.
func checkServer(c net.Conn, path string, uid int) error {
	peer, err := PeerOf(c)
	if err != nil {
		return fmt.Errorf("%w %s: cannot read the credentials of the process listening on it: %v", ErrUntrusted, path, err)
	}
	if peer.UID != uid {
		return fmt.Errorf("%w %s: the process listening on it runs as uid %d, not as you (uid %d), so nothing was sent; stop it and start your own hostd", ErrUntrusted, path, peer.UID, uid)
	}
	return nil
}

// checkSocket vets the socket and its directory before connecting.
func checkSocket(path string, uid int) error {
	if err := directoryGiven(path); err != nil {
		return err
	}
	dir := filepath.Dir(path)
	way := wayOut(path, dir)
	info, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w on %s", ErrNoListener, path)
	}
	if err != nil {
		return fmt.Errorf("cannot check the socket's directory: %w", err)
	}
	if info.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%w %s: its directory %s is a symbolic link, which anyone who can write its parent could point elsewhere; %s", ErrUntrusted, path, dir, way)
	}
	if !info.IsDir() {
		return fmt.Errorf("%w %s: %s is not a directory", ErrUntrusted, path, dir)
	}
	if owner, ok := ownerOf(info); ok && owner != uid {
		return fmt.Errorf("%w %s: another user (uid %d) owns %s, so a daemon there is not yours (you are uid %d); %s", ErrUntrusted, path, owner, dir, uid, way)
	}
	if perm := info.Mode().Perm(); perm&0o022 != 0 {
		return fmt.Errorf("%w %s: %s has mode %04o, so other users can replace the socket in it; hostd keeps its socket in a private (0700) directory: %s", ErrUntrusted, path, dir, perm, way)
	}

	info, err = os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w on %s", ErrNoListener, path)
	}
	if err != nil {
		return fmt.Errorf("cannot check the socket: %w", err)
	}
	if info.Mode().Type() != fs.ModeSocket {
		return fmt.Errorf("%w %s: it is not a socket (%s); remove it, or point --socket at hostd's socket", ErrUntrusted, path, kind(info.Mode()))
	}
	if owner, ok := ownerOf(info); ok && owner != uid {
		return fmt.Errorf("%w %s: the socket belongs to uid %d, not to you (uid %d); a daemon you started would own it: remove it and start hostd again", ErrUntrusted, path, owner, uid)
	}
	return nil
}

// wayOut is what to do when the socket's directory cannot be trusted.
func wayOut(path, dir string) string {
	if path == Default() {
		return fmt.Sprintf("remove %s (it may take root, if another user made it) and start hostd again, or give every client a --socket in a private directory of your own", dir)
	}
	return fmt.Sprintf("remove %s, or use a socket in a private directory of your own (--socket)", dir)
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

// directoryGiven is the error for a --socket that names a directory: a
// person pointing at where the socket lives. It says what to pass instead
// and nothing about removing the directory, which is most likely theirs
// and full of other things.
func directoryGiven(path string) error {
	info, err := os.Stat(path)
	if err != nil || !info.IsDir() {
		return nil
	}
	return fmt.Errorf("%s is a directory; --socket (and HOSTD_SOCKET) take the socket file's own path, such as %s", path, filepath.Join(path, "hostd.sock"))
}
