//go:build !linux

package tools

import (
	"io/fs"
	"os"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// listDir lists the directory open as fd (never read before) in byte
// order of names, through a copy of the descriptor.
func listDir(fd int, _ *dirScratch) ([]dirEntry, error) {
	dup, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	d := os.NewFile(uintptr(dup), ".")
	defer d.Close()
	des, err := d.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	entries := make([]dirEntry, 0, len(des))
	for _, e := range des {
		t := e.Type()
		switch {
		case t.IsRegular(), t.IsDir(), t&fs.ModeSymlink != 0:
		default:
			t = fs.ModeIrregular
		}
		entries = append(entries, dirEntry{name: e.Name(), typ: t})
	}
	slices.SortFunc(entries, func(a, b dirEntry) int { return strings.Compare(a.name, b.name) })
	return entries, nil
}

// dirScratch is what listDir reuses between directories: nothing here.
type dirScratch struct{}

// openatNoAlloc is unix.Openat here.
func openatNoAlloc(dir int, name string, flags int) (int, error) {
	return unix.Openat(dir, name, flags, 0)
}
