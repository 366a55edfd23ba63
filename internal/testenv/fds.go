package testenv

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// OpenUnder counts the descriptors process pid has open on dir or on a
// path under it, as Linux's /proc lists them. ok is false where the
// system lists none (not Linux, or /proc not mounted): the caller checks
// another way or not at all.
func OpenUnder(pid int, dir string) (n int, ok bool) {
	if runtime.GOOS != "linux" {
		return 0, false
	}
	fds := filepath.Join("/proc", strconv.Itoa(pid), "fd")
	entries, err := os.ReadDir(fds)
	if err != nil {
		return 0, false
	}
	for _, e := range entries {
		target, err := os.Readlink(filepath.Join(fds, e.Name()))
		if err == nil && (target == dir || strings.HasPrefix(target, dir+string(filepath.Separator))) {
			n++
		}
	}
	return n, true
}
