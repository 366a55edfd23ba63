//go:build unix

package endpoint

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/internal/testenv"
)

// shortDir is a private temporary directory whose path is short enough
// for a Unix socket name.
func shortDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "hd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func TestSocketDirectoryIsCreatedPrivate(t *testing.T) {
	path := filepath.Join(shortDir(t), "run", "hostd", "hostd.sock")
	l, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	dir, _ := os.Stat(filepath.Dir(path))
	sock, _ := os.Stat(path)
	if dir.Mode().Perm() != 0o700 || sock.Mode().Perm() != 0o600 || sock.Mode().Type() != fs.ModeSocket {
		t.Errorf("directory %v, socket %v: want 0700 and a 0600 socket", dir.Mode(), sock.Mode())
	}
}

func TestSocketDirectoryMustBePrivate(t *testing.T) {
	base := shortDir(t)
	open := filepath.Join(base, "open")
	os.Mkdir(open, 0o755)
	os.Chmod(open, 0o755)
	link := filepath.Join(base, "link")
	os.Symlink(base, link)
	for _, tt := range []struct{ dir, says string }{
		{open, "0755"},
		{link, "symlink"},
	} {
		_, err := Listen(filepath.Join(tt.dir, "hostd.sock"))
		if err == nil || !strings.Contains(err.Error(), tt.says) {
			t.Errorf("%s: %v, want an error saying %q", tt.dir, err, tt.says)
		}
	}
}

func TestALiveSocketIsNeverStolen(t *testing.T) {
	path := filepath.Join(shortDir(t), "hostd.sock")
	first, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	_, err = Listen(path)
	if !errors.Is(err, ErrLive) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "pid "+strconv.Itoa(os.Getpid())) {
		t.Fatalf("second listener: %v; want ErrLive naming the socket and the live pid", err)
	}
	// The first still accepts.
	go func() {
		if c, err := first.Accept(); err == nil {
			c.Close()
		}
	}()
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatalf("the live socket was disturbed: %v", err)
	}
	c.Close()
}

func TestAStaleSocketIsReplaced(t *testing.T) {
	path := filepath.Join(shortDir(t), "hostd.sock")
	stale, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	stale.SetUnlinkOnClose(false)
	stale.Close() // the file stays; nobody answers on it
	l, err := Listen(path)
	if err != nil {
		t.Fatalf("stale socket not replaced: %v", err)
	}
	l.Close()
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Close must remove the socket file: %v", err)
	}
}

func TestANonSocketFileIsNotRemoved(t *testing.T) {
	path := filepath.Join(shortDir(t), "hostd.sock")
	os.WriteFile(path, []byte("mine"), 0o600)
	if _, err := Listen(path); err == nil || !strings.Contains(err.Error(), "not a socket") {
		t.Fatalf("got %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "mine" {
		t.Error("the file was touched")
	}
}

func TestPeersOfAnotherUIDAreRefused(t *testing.T) {
	path := filepath.Join(shortDir(t), "hostd.sock")
	l, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	l.uid = os.Getuid() + 1 // as if we ran as someone else

	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := l.Accept()
		if err == nil {
			accepted <- c
		}
	}()
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Read(make([]byte, 1)); !errors.Is(err, io.EOF) && !strings.Contains(fmtErr(err), "reset") {
		t.Errorf("a refused peer must see the connection closed, got %v", err)
	}
	select {
	case <-accepted:
		t.Error("Accept returned a peer of another uid")
	case <-time.After(100 * time.Millisecond):
	}
}

func fmtErr(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// A shared sticky directory such as /tmp is never to be chmod'ed: the way
// out is a private directory inside it.
func TestASharedDirectoryIsNeverToldToChmod(t *testing.T) {
	shared := filepath.Join(shortDir(t), "tmp")
	os.Mkdir(shared, 0o700)
	if err := os.Chmod(shared, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	_, err := Listen(filepath.Join(shared, "x.sock"))
	want := "use, say, --socket " + filepath.Join(shared, "hostd-"+strconv.Itoa(os.Getuid()), "hostd.sock")
	if err == nil || strings.Contains(err.Error(), "chmod") || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v; want no chmod advice and %q", err, want)
	}
	// And the private directory it names is accepted.
	l, err := Listen(filepath.Join(shared, "hostd-"+strconv.Itoa(os.Getuid()), "hostd.sock"))
	if err != nil {
		t.Fatalf("a private directory in a sticky shared one: %v", err)
	}
	l.Close()
}

// A socket directory under a directory others can write (without the
// sticky bit) or that another user owns could be swapped for theirs.
func TestASocketDirectoryOthersCouldReplaceIsRefused(t *testing.T) {
	tests := []struct {
		name  string
		root  bool
		setup func(dir string) error
		want  string
	}{
		{"world-writable parent", false, func(dir string) error { return os.Chmod(dir, 0o777) }, "can be written by other users (mode 0777, not sticky)"},
		{"parent writable by another group", true, func(dir string) error {
			if err := os.Chown(dir, os.Getuid(), 4242); err != nil {
				return err
			}
			return os.Chmod(dir, 0o770)
		}, "can be written by other users (mode 0770, not sticky)"},
		{"parent of another user", true, func(dir string) error { return os.Chown(dir, 4242, 4242) }, "belongs to uid 4242"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.root && os.Getuid() != 0 {
				t.Skip("chown to another user or group needs root")
			}
			parent := filepath.Join(shortDir(t), "p")
			os.Mkdir(parent, 0o755)
			if err := tt.setup(parent); err != nil {
				t.Fatal(err)
			}
			for _, sock := range []string{
				filepath.Join(parent, "hostd", "hostd.sock"),       // created under parent
				filepath.Join(parent, "a", "b", "hostd.sock"),      // several levels
				filepath.Join(parent, "exists", "d", "hostd.sock"), // under an existing private one
			} {
				if strings.Contains(sock, "exists") {
					os.Mkdir(filepath.Join(parent, "exists"), 0o700)
				}
				l, err := Listen(sock)
				if err == nil {
					l.Close()
					t.Fatalf("%s: listening under %s", sock, parent)
				}
				if !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "private directory of your own") {
					t.Errorf("%s: %v; want %q", sock, err, tt.want)
				}
				if _, err := os.Lstat(filepath.Dir(sock)); err == nil {
					t.Errorf("%s: the directory was created anyway", filepath.Dir(sock))
				}
			}
		})
	}
}

// With a group per user (umask 002), a directory writable by our own
// group is still ours alone.
func TestAParentWritableByOurOwnGroupIsFine(t *testing.T) {
	parent := filepath.Join(shortDir(t), "p")
	os.Mkdir(parent, 0o700)
	if err := os.Chown(parent, os.Getuid(), os.Getgid()); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(parent, 0o775); err != nil {
		t.Fatal(err)
	}
	l, err := Listen(filepath.Join(parent, "hostd", "hostd.sock"))
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
}

// bind's limit is checked before anything is created, and said plainly.
func TestASocketPathTooLongIsRefusedFirst(t *testing.T) {
	dir := filepath.Join(shortDir(t), strings.Repeat("d", 60), strings.Repeat("e", 40))
	sock := filepath.Join(dir, "hostd.sock")
	_, err := Listen(sock)
	want := "is " + strconv.Itoa(len(sock)) + " bytes, longer than the " + strconv.Itoa(maxSocketPath) + " a Unix socket's name can hold"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v; want %q", err, want)
	}
	if _, err := os.Lstat(filepath.Dir(dir)); err == nil {
		t.Errorf("%s was created for a socket that cannot be bound", filepath.Dir(dir))
	}
	// maxSocketPath bytes still bind.
	base := shortDir(t)
	fits := filepath.Join(base, strings.Repeat("f", maxSocketPath-len(base)-len("/"+"/x/s")), "x", "s")
	if len(fits) != maxSocketPath {
		t.Fatalf("test path is %d bytes", len(fits))
	}
	l, err := Listen(fits)
	if err != nil {
		t.Fatalf("a %d-byte path: %v", maxSocketPath, err)
	}
	l.Close()
}

// The server check on its own: a daemon running as another uid is
// refused, with our own uid injected as someone else's, and the refusal
// comes before anything is sent.
func TestDialChecksWhoServes(t *testing.T) {
	path := filepath.Join(shortDir(t), "hostd.sock")
	l, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	got := make(chan int, 4)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.SetReadDeadline(time.Now().Add(2 * time.Second))
			n, _ := io.Copy(io.Discard, c)
			got <- int(n)
			c.Close()
		}
	}()
	c, err := Dial(context.Background(), path)
	if err != nil {
		t.Fatalf("our own daemon refused: %v", err)
	}
	peer, err := PeerOf(c)
	if err != nil || peer.UID != os.Getuid() || peer.PID != os.Getpid() {
		t.Errorf("PeerOf the daemon: %+v, %v; want our uid and pid", peer, err)
	}
	c.Close()
	<-got
	// The directory checks would refuse a socket of ours for another
	// uid first; the check of the server is what is tested here.
	c, err = net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	err = checkServer(c, path, os.Getuid()+1)
	c.Close()
	want := "runs as uid " + strconv.Itoa(os.Getuid()) + ", not as you (uid " + strconv.Itoa(os.Getuid()+1) + ")"
	if !errors.Is(err, ErrUntrusted) || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want ErrUntrusted saying %q", err, want)
	}
	if n := <-got; n != 0 {
		t.Errorf("%d bytes were sent to a daemon of another uid", n)
	}
}

// No socket, or a stale one, is ErrNoListener: the caller starts one.
func TestDialFindsNoListener(t *testing.T) {
	dir := shortDir(t)
	stale := filepath.Join(dir, "stale.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: stale, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close()
	for _, path := range []string{filepath.Join(dir, "missing.sock"), stale, filepath.Join(dir, "nodir", "hostd.sock")} {
		if _, err := Dial(context.Background(), path); !errors.Is(err, ErrNoListener) {
			t.Errorf("%s: %v, want ErrNoListener", path, err)
		}
	}
}

// A --socket that names a directory is a person pointing at where the
// socket lives: the daemon says what to pass instead and never suggests
// removing the directory.
func TestADirectoryGivenAsTheSocketSaysWhatToPass(t *testing.T) {
	dir := shortDir(t)
	_, err := Listen(dir)
	if err == nil || !strings.Contains(err.Error(), dir+" is a directory") || !strings.Contains(err.Error(), filepath.Join(dir, "hostd.sock")) || strings.Contains(err.Error(), "remove") {
		t.Fatalf("got %v", err)
	}
}

// A listener keeps its socket, its lock file and their directory looking
// recently used, so a cleaner of temporary directories that removes what
// is days old (macOS's user temporary directory, systemd-tmpfiles) never
// removes them under a live daemon.
func TestAListenerKeepsItsFilesFresh(t *testing.T) {
	old := freshEvery
	freshEvery = 20 * time.Millisecond
	defer func() { freshEvery = old }()
	path := filepath.Join(shortDir(t), "run", "hostd.sock")
	l, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	files := []string{path, path + ".lock", filepath.Dir(path)}
	long := time.Now().Add(-10 * 24 * time.Hour)
	for _, p := range files {
		if err := os.Chtimes(p, long, long); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for _, p := range files {
		var age time.Duration
		if !testenv.Poll(time.Until(deadline), func() bool {
			info, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			age = time.Since(info.ModTime())
			return age < time.Hour
		}) {
			t.Fatalf("%s still looks %v old", p, age.Round(time.Hour))
		}
	}
	// After Close nothing touches them: the socket is gone, the lock
	// file stays as it was left.
	l.Close()
	if err := os.Chtimes(path+".lock", long, long); err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * freshEvery)
	if info, err := os.Stat(path + ".lock"); err != nil || time.Since(info.ModTime()) < time.Hour {
		t.Errorf("the lock file was touched after Close: %v", err)
	}
}

// TestHintsNameASocketNotTheDefault: hostctl lines in messages reach the
// daemon they are about: plain for the default address, with --socket
// (shell-quoted when needed) for any other.
func TestHintsNameASocketNotTheDefault(t *testing.T) {
	for addr, want := range map[string]string{
		Default():            "hostctl",
		"/tmp/x/hostd.sock":  "hostctl --socket /tmp/x/hostd.sock",
		"/tmp/my dir/h.sock": "hostctl --socket '/tmp/my dir/h.sock'",
		"/tmp/it's/h.sock":   `hostctl --socket '/tmp/it'\''s/h.sock'`,
	} {
		if got := Hostctl(addr); got != want {
			t.Errorf("Hostctl(%q) = %q, want %q", addr, got, want)
		}
	}
	e := (&LiveError{Addr: "/tmp/x/hostd.sock", PID: 7}).Error()
	if !strings.Contains(e, "hostctl --socket /tmp/x/hostd.sock info") || !strings.Contains(e, "hostctl --socket /tmp/x/hostd.sock shutdown") {
		t.Errorf("the live error's hint: %s", e)
	}
}
