//go:build unix && !linux

package workspace

import (
	"os"

	"golang.org/x/sys/unix"
)

// listBuffer is what list reuses between directories: nothing here.
type listBuffer struct{}

// list reads the directory through a copy of its descriptor with
// os.File.ReadDir, which records each entry's type where the system gives
// it.
func (w *walkDir) list(*listBuffer) ([]DirEntry, error) {
	dup, err := unix.FcntlInt(uintptr(w.fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	d := os.NewFile(uintptr(dup), ".")
	defer d.Close()
	des, err := d.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	return sortedEntries(des), nil
}

func openat(dir int, name string, flags int) (int, error) { return unix.Openat(dir, name, flags, 0) }
