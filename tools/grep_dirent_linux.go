package tools

import (
	"bytes"
	"encoding/binary"
	"io/fs"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// listDir lists the directory open as fd (never read before) in byte
// order of names, with the types the directory records (getdents64), so
// listing costs a system call per buffer of entries, not one per entry;
// an entry of unknown type is lstat'ed through fd.
func listDir(fd int) ([]dirEntry, error) {
	var entries []dirEntry
	buf := make([]byte, 32<<10)
	for {
		n, err := unix.Getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			break
		}
		// struct linux_dirent64: ino u64, off s64, reclen u16, type u8, name.
		for b := buf[:n]; len(b) >= 19; {
			reclen := int(binary.NativeEndian.Uint16(b[16:18]))
			if reclen < 19 || reclen > len(b) {
				break
			}
			name := b[19:reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			if s := string(name); s != "." && s != ".." {
				entries = append(entries, dirEntry{name: s, typ: direntType(fd, s, b[18])})
			}
			b = b[reclen:]
		}
	}
	slices.SortFunc(entries, func(a, b dirEntry) int { return strings.Compare(a.name, b.name) })
	return entries, nil
}

func direntType(fd int, name string, t byte) fs.FileMode {
	switch t {
	case unix.DT_REG:
		return 0
	case unix.DT_DIR:
		return fs.ModeDir
	case unix.DT_LNK:
		return fs.ModeSymlink
	case unix.DT_UNKNOWN:
		var st unix.Stat_t
		if unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
			return fs.ModeIrregular
		}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFREG:
			return 0
		case unix.S_IFDIR:
			return fs.ModeDir
		case unix.S_IFLNK:
			return fs.ModeSymlink
		}
	}
	return fs.ModeIrregular // devices, FIFOs, sockets: never opened
}
