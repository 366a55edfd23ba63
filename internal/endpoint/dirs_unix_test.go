//go:build unix

package endpoint

import (
	"os"
	"path/filepath"
	"testing"
)

// The rendezvous: the runtime directory when there is one, else a
// directory of the user's own under /tmp; never $TMPDIR.
func TestTheDefaultSocket(t *testing.T) {
	if got := socketIn("/run/user/1000", 1000); got != "/run/user/1000/hostd/hostd.sock" {
		t.Errorf("with a runtime directory: %s", got)
	}
	if got := socketIn("", 1000); got != "/tmp/hostd-1000/hostd.sock" {
		t.Errorf("without one: %s", got)
	}
	t.Setenv("TMPDIR", t.TempDir())
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	if got, want := Default(), socketIn(runtimeDir(os.Getuid()), os.Getuid()); got != want {
		t.Errorf("Default() = %s with TMPDIR and XDG_RUNTIME_DIR set, want %s", got, want)
	}
}

// A runtime directory counts only when it is the user's own directory:
// not missing, not a link to one, not another user's. macOS's temporary
// directory comes back from confstr with a trailing slash.
func TestARuntimeDirectoryMustBeOurOwn(t *testing.T) {
	base := t.TempDir()
	own := filepath.Join(base, "own")
	os.Mkdir(own, 0o700)
	link := filepath.Join(base, "link")
	os.Symlink(own, link)
	uid := os.Getuid()
	for _, tt := range []struct{ dir, want string }{
		{own, own},
		{own + "/", own},
		{link, ""},
		{filepath.Join(base, "missing"), ""},
		{"", ""},
	} {
		if got := usableDir(tt.dir, uid); got != tt.want {
			t.Errorf("usableDir(%q) = %q, want %q", tt.dir, got, tt.want)
		}
	}
	if got := usableDir(own, uid+1); got != "" {
		t.Errorf("our directory was taken as uid %d's: %q", uid+1, got)
	}
}

func TestTheStateDirectory(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	env := func(state string) func(string) string {
		return func(k string) string {
			if k == "XDG_STATE_HOME" {
				return state
			}
			return ""
		}
	}
	if got, want := stateDir(env("/srv/state")), "/srv/state/hostd"; got != want {
		t.Errorf("XDG_STATE_HOME set: %s, want %s", got, want)
	}
	// A relative XDG_STATE_HOME is invalid by the spec and ignored.
	if got, want := stateDir(env("rel")), filepath.Join(home, stateUnder(runtimeGOOS())); got != want {
		t.Errorf("relative XDG_STATE_HOME: %s, want %s", got, want)
	}
	if got := stateUnder("darwin"); got != "Library/Application Support/hostd" {
		t.Errorf("macOS: %s", got)
	}
	if got := stateUnder("linux"); got != ".local/state/hostd" {
		t.Errorf("Linux: %s", got)
	}
}

func runtimeGOOS() string { return goos }
