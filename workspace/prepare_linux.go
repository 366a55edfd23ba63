package workspace

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// openAnon creates an unnamed regular file in the directory open as pd
// (O_TMPFILE).
func openAnon(pd *os.Root) (*os.File, error) {
	dir, err := pd.Open(".")
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	fd, err := unix.Openat(int(dir.Fd()), ".", unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), "(unnamed)"), nil
}

// linkAnon gives the unnamed file f a temporary name beside name in the
// directory open as pd, and returns that name. The link goes through
// /proc/self/fd, which needs no privilege (AT_EMPTY_PATH would).
func linkAnon(pd *os.Root, f *os.File, name string) (string, error) {
	dir, err := pd.Open(".")
	if err != nil {
		return "", err
	}
	defer dir.Close()
	src := "/proc/self/fd/" + strconv.Itoa(int(f.Fd()))
	prefix := tempPrefix(name)
	for range 10000 {
		tmp := prefix + strconv.FormatUint(uint64(rand.Uint32()), 10)
		err := unix.Linkat(unix.AT_FDCWD, src, int(dir.Fd()), tmp, unix.AT_SYMLINK_FOLLOW)
		if err == unix.EEXIST {
			continue
		}
		if err != nil {
			return "", err
		}
		return tmp, nil
	}
	return "", fmt.Errorf("link a temporary file beside %s: too many names taken", name)
}
