//go:build unix

package endpoint

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
)

func defaultAddress() string { return socketIn(runtimeDir(os.Getuid()), os.Getuid()) }

// socketIn is the default socket: in the user's runtime directory when
// the system has one, else in a directory of the user's own under /tmp
// (whose sticky bit keeps others from replacing it once made; one made
// by someone else first is refused when listening and dialing).
func socketIn(runtime string, uid int) string {
	if runtime != "" {
		return filepath.Join(runtime, "hostd", "hostd.sock")
	}
	return filepath.Join("/tmp", "hostd-"+strconv.Itoa(uid), "hostd.sock")
}

func stateDir(getenv func(string) string) string {
	if dir := getenv("XDG_STATE_HOME"); filepath.IsAbs(dir) {
		return filepath.Join(dir, "hostd")
	}
	if home := homeDir(); home != "" {
		return filepath.Join(home, stateUnder(goos))
	}
	return filepath.Join("/tmp", "hostd-state-"+strconv.Itoa(os.Getuid()))
}

// stateUnder is where the state directory sits under the home directory
// on goos: where macOS keeps an application's data, the XDG default
// elsewhere.
func stateUnder(goos string) string {
	if goos == "darwin" {
		return filepath.Join("Library", "Application Support", "hostd")
	}
	return filepath.Join(".local", "state", "hostd")
}

// usableDir is dir, cleaned, when it is a directory of uid's own (the
// system's per-user directory, as the system reported it), else "".
func usableDir(dir string, uid int) string {
	if dir == "" {
		return ""
	}
	dir = filepath.Clean(dir)
	if !ownDir(dir, uid) {
		return ""
	}
	return dir
}

// ownDir reports whether dir is a directory (not a link) owned by uid.
func ownDir(dir string, uid int) bool {
	info, err := os.Lstat(dir)
	if err != nil || !info.IsDir() {
		return false
	}
	owner, ok := ownerOf(info)
	return ok && owner == uid
}

// goos is the system this binary runs on.
const goos = runtime.GOOS
