//go:build unix

package endpoint

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The socket's security (wire-contract §1): the directory is private (0700,
// ours, not a symlink), the socket is 0600, and every accepted peer must
// run as our uid. A lock file beside the socket, held for the daemon's
// life, decides which daemon owns the path: a second daemon cannot steal
// a live socket, and a socket file left by a dead one is known to be
// stale without guessing.

// The daemon that holds the lock and the listener is the only process
// that ever holds them: its parse workers are forked by a spawner started
// before the lock was taken (package spawn), so no child of the daemon,
// between its fork and its exec, holds a copy of either. Should one be
// held all the same after its daemon died (a hostd of a version before
// the spawner; any other child forked with them), the start tells it
// apart from a live daemon: the lock file names the daemon that took
// the lock, and when that process is gone, whatever holds the lock is an
// orphan that will let go (at its exec or exit), so the start waits for
// it (orphanWait) instead of refusing; and a socket whose listener was
// made by that same gone daemon is stale, whoever still holds a copy, so
// it is replaced, and new clients reach the new daemon.

// orphanWait bounds how long a start waits for a lock held by an orphan
// of its dead daemon (see above) before it reports it as live.
const orphanWait = 30 * time.Second

// probeTimeout bounds the connect attempt that tells a live socket from a
// stale one.
const probeTimeout = time.Second

// freshEvery is how often a listener sets the times of its socket, its
// lock file and their directory to now. The cleaners of temporary
// directories remove what has not been touched for days (macOS's, in the
// user temporary directory where the socket lives there, after three
// days unread; systemd-tmpfiles by age), a connection touches none of
// them, and a desktop daemon runs for weeks: a socket removed under a
// live daemon leaves its clients unable to reach it, and a second daemon
// unable to start beside it (the first holds the locks).
var freshEvery = time.Hour

// Listener is the daemon's Unix listener. Accept refuses peers of another
// uid; Close removes the socket file and releases the lock.
type Listener struct {
	*net.UnixListener
	path string
	lock *os.File
	uid  int // peers must run as this uid
	// OnRefuse, when set, is told of each peer Accept refuses.
	OnRefuse  func(Peer, error)
	closeOnce sync.Once
	closeErr  error
	stop      chan struct{} // closed by Close: ends keepFresh
}

// Path is the socket's absolute path.
func (l *Listener) Path() string { return l.path }

// Claim is an address taken for this process: its directory checked and
// made, its lock held. A daemon claims its address before it opens its
// state and listens only once that is open, so a second daemon learns
// from the lock that it is second before touching the state directory,
// and no client connects to a daemon that is about to fail.
type Claim struct {
	path string
	lock *os.File
	prev int // the pid the lock file named when we took it: the previous owner
}

// ClaimAddress prepares the socket's directory and takes the lock of
// path. Everything that can be checked before creating a directory is.
// Another daemon on path is a *LiveError.
func ClaimAddress(path string) (*Claim, error) {
	path, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if len(path) > maxSocketPath {
		return nil, fmt.Errorf("socket path %s is %d bytes, longer than the %d a Unix socket's name can hold; choose a shorter --socket", path, len(path), maxSocketPath)
	}
	if err := directoryGiven(path); err != nil {
		return nil, err
	}
	if err := safeParent(filepath.Dir(path)); err != nil {
		return nil, err
	}
	if err := privateDir(filepath.Dir(path)); err != nil {
		return nil, err
	}
	lock, prev, err := lockSocket(path)
	if err != nil {
		return nil, err
	}
	return &Claim{path: path, lock: lock, prev: prev}, nil
}

// Release gives the address up without listening on it.
func (c *Claim) Release() { c.lock.Close() }

// Listen listens on the claimed address, replacing a stale socket file;
// the listener then holds the lock until it is closed.
func (c *Claim) Listen() (*Listener, error) {
	if err := clearStale(c.path, c.prev); err != nil {
		c.Release()
		return nil, err
	}
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: c.path, Net: "unix"})
	if err != nil {
		c.Release()
		return nil, fmt.Errorf("listen on %s: %w", c.path, err)
	}
	// The directory is private, so the moment between bind and chmod
	// exposes nothing; the mode documents the intent to anyone listing it.
	if err := os.Chmod(c.path, 0o600); err != nil {
		l.Close()
		c.Release()
		return nil, err
	}
	ln := &Listener{UnixListener: l, path: c.path, lock: c.lock, uid: os.Getuid(), stop: make(chan struct{})}
	go ln.keepFresh(freshEvery)
	return ln, nil
}

// keepFresh touches the listener's files every interval until Close.
func (l *Listener) keepFresh(interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case now := <-t.C:
			l.touch(now)
		}
	}
}

// touch sets the access and modification times of the socket, its lock
// file and their directory to now. A file that is gone is left gone.
func (l *Listener) touch(now time.Time) {
	for _, p := range []string{l.path, l.path + ".lock", filepath.Dir(l.path)} {
		_ = os.Chtimes(p, now, now)
	}
}

// Listen claims path and listens on it.
func Listen(path string) (*Listener, error) {
	c, err := ClaimAddress(path)
	if err != nil {
		return nil, err
	}
	return c.Listen()
}

// safeParent refuses a socket directory that another user could replace:
// one under a directory (its parent, or any directory above) that is
// writable by others (the world, or a group not our own) without the
// sticky bit, or that belongs to a user other than us or root. A directory
// that does not exist yet is checked from the nearest existing one, under
// which it will be created. A sticky shared directory such as /tmp is a
// fine place for a private directory: no one else can rename or remove
// what we create in it.
func safeParent(dir string) error {
	parent := filepath.Dir(dir)
	if _, err := os.Lstat(dir); err != nil {
		for parent != filepath.Dir(parent) {
			if _, err := os.Lstat(parent); err == nil {
				break
			}
			parent = filepath.Dir(parent)
		}
	}
	for p := parent; ; p = filepath.Dir(p) {
		info, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("socket directory: %w", err)
		}
		if owner, ok := ownerOf(info); ok && owner != 0 && owner != os.Getuid() {
			return fmt.Errorf("%s belongs to uid %d, who could replace the socket directory %s under it; put the socket in a private directory of your own (--socket)", p, owner, dir)
		}
		// Group write counts only for a group other than our own: with a
		// group per user (umask 002), our group is only us.
		perm := info.Mode().Perm()
		if gid, ok := groupOf(info); ok && gid == os.Getgid() {
			perm &^= 0o020
		}
		if perm&0o022 != 0 && info.Mode()&fs.ModeSticky == 0 {
			return fmt.Errorf("%s can be written by other users (mode %04o, not sticky), so anyone could replace the socket directory %s under it; put the socket in a private directory of your own (--socket)", p, info.Mode().Perm(), dir)
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}

// modeString is a directory's permission bits in octal, with the sticky
// bit, as chmod and ls users read them.
func modeString(m fs.FileMode) string {
	n := uint32(m.Perm())
	if m&fs.ModeSticky != 0 {
		n |= 0o1000
	}
	return fmt.Sprintf("%04o", n)
}

// privateDir creates dir 0700 if needed and checks that it is a real
// directory owned by us that nobody else can enter.
func privateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("socket directory: %w", err)
	}
	info, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("socket directory: %w", err)
	}
	if !info.IsDir() {
		return fmt.Errorf("socket directory %s is not a directory (symlinks are refused); choose another --socket", dir)
	}
	// A shared directory is never made private: that would break every
	// other user of it. The socket goes in a directory of its own instead.
	if info.Mode()&fs.ModeSticky != 0 {
		return fmt.Errorf("socket directory %s is shared with other users (mode %s); hostd's socket needs a private directory: use, say, --socket %s", dir, modeString(info.Mode()), filepath.Join(dir, "hostd-"+strconv.Itoa(os.Getuid()), "hostd.sock"))
	}
	if info.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("socket directory %s can be written by other users (mode %s); hostd's socket needs a private directory of your own (--socket)", dir, modeString(info.Mode()))
	}
	if owner, ok := ownerOf(info); ok && owner != os.Getuid() {
		return fmt.Errorf("socket directory %s belongs to uid %d, not to us (uid %d); choose another --socket", dir, owner, os.Getuid())
	}
	if perm := info.Mode().Perm(); perm != 0o700 {
		return fmt.Errorf("socket directory %s has mode %04o; it must be 0700 so no other user can reach the socket (chmod 700 %s)", dir, perm, dir)
	}
	return nil
}

// lockSocket takes the exclusive lock that makes this daemon the owner of
// path, and writes our pid into the lock file so a second daemon can name
// us; prev is the pid the file named before (0 when none). The lock file
// is never removed: removing it would let two daemons lock two different
// files of the same name. A lock held while the daemon the file names is
// gone is held by an orphan of that daemon: the start waits for it, up
// to orphanWait.
func lockSocket(path string) (*os.File, int, error) {
	f, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, 0, fmt.Errorf("socket lock: %w", err)
	}
	var waited time.Duration
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, 0, fmt.Errorf("socket lock: %w", err)
		}
		pid := lockPID(f)
		if pid <= 0 || !processGone(pid) || waited >= orphanWait {
			f.Close()
			return nil, 0, &LiveError{Addr: path, PID: pid}
		}
		time.Sleep(10 * time.Millisecond)
		waited += 10 * time.Millisecond
	}
	prev := lockPID(f)
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return f, prev, nil
}

// lockPID is the pid the lock file names, 0 when it names none.
func lockPID(f *os.File) int {
	b := make([]byte, 32)
	n, _ := f.ReadAt(b, 0)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b[:n])))
	return pid
}

// processGone reports whether process pid has ended: it does not exist,
// or it is a zombie, whose descriptors the kernel has closed already.
func processGone(pid int) bool {
	if data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
		_, rest, _ := strings.Cut(string(data), ") ")
		return strings.HasPrefix(rest, "Z") || strings.HasPrefix(rest, "X")
	} else if _, err := os.Stat("/proc/self/stat"); err == nil {
		return true // /proc works here and has no such process
	}
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// clearStale removes a socket file no daemon answers on. Holding the lock
// already means no hostd owns it; the connect probe also keeps us from
// removing a socket some other live process serves. A socket that
// answers is stale all the same when its listener was made by prev, the
// daemon that held the lock before us, and that process is gone: an
// orphan of it holds a copy of the listener and will never answer.
func clearStale(path string, prev int) error {
	info, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if info.Mode().Type() != fs.ModeSocket {
		return fmt.Errorf("%s exists and is not a socket; remove it or choose another --socket", path)
	}
	c, err := net.DialTimeout("unix", path, probeTimeout)
	if err == nil {
		live := &LiveError{Addr: path}
		if peer, err := PeerOf(c); err == nil {
			live.PID = peer.PID
		}
		c.Close()
		if live.PID <= 0 || live.PID != prev || !processGone(prev) {
			return live
		}
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("removing stale socket %s: %w", path, err)
	}
	return nil
}

// Accept returns the next connection from a peer running as our uid.
// Others are closed at once and reported to OnRefuse.
func (l *Listener) Accept() (net.Conn, error) {
	for {
		c, err := l.AcceptUnix()
		if err != nil {
			return nil, err
		}
		peer, err := PeerOf(c)
		if err == nil && peer.UID != l.uid {
			err = fmt.Errorf("its peer runs as uid %d, not as us (uid %d)", peer.UID, l.uid)
		}
		if err == nil {
			return c, nil
		}
		if l.OnRefuse != nil {
			l.OnRefuse(peer, err)
		}
		c.Close()
	}
}

// Close stops listening, removes the socket file and releases the lock.
// It is safe to call more than once: the server closes it when it starts
// draining, and the daemon again on its way out.
func (l *Listener) Close() error {
	l.closeOnce.Do(func() {
		close(l.stop)
		l.closeErr = l.UnixListener.Close()
		if err := os.Remove(l.path); err != nil && !errors.Is(err, fs.ErrNotExist) && l.closeErr == nil {
			l.closeErr = err
		}
		l.lock.Close()
	})
	return l.closeErr
}
