package tools

import (
	"bytes"
	"encoding/binary"
	"io/fs"
	"slices"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// listDir lists the directory open as fd (never read before) in byte
// order of names, with the types the directory records (getdents64), so
// listing costs a system call per buffer of entries, not one per entry;
// an entry of unknown type is lstat'ed through fd. scratch is the
// caller's, reused from one directory to the next: the names are gathered
// there and copied out as one string, so a directory costs two
// allocations however many entries it has.
func listDir(fd int, scratch *dirScratch) ([]dirEntry, error) {
	if scratch.buf == nil {
		scratch.buf = make([]byte, 32<<10)
	}
	names, spans := scratch.names[:0], scratch.spans[:0]
	defer func() { scratch.names, scratch.spans = names[:0], spans[:0] }()
	for {
		n, err := unix.Getdents(fd, scratch.buf)
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
		for b := scratch.buf[:n]; len(b) >= 19; {
			reclen := int(binary.NativeEndian.Uint16(b[16:18]))
			if reclen < 19 || reclen > len(b) {
				break
			}
			name := b[19:reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			if string(name) != "." && string(name) != ".." {
				spans = append(spans, nameSpan{start: len(names), end: len(names) + len(name), typ: b[18]})
				names = append(names, name...)
			}
			b = b[reclen:]
		}
	}
	all := string(names)
	entries := make([]dirEntry, len(spans))
	for i, sp := range spans {
		name := all[sp.start:sp.end]
		entries[i] = dirEntry{name: name, typ: direntType(fd, name, sp.typ)}
	}
	slices.SortFunc(entries, func(a, b dirEntry) int { return strings.Compare(a.name, b.name) })
	return entries, nil
}

// dirScratch is the memory listDir reuses from one directory to the next.
type dirScratch struct {
	buf   []byte     // getdents64 records
	names []byte     // the names listed so far
	spans []nameSpan // where each is in names, with its type
}

type nameSpan struct {
	start, end int
	typ        byte
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

// openatNoAlloc is unix.Openat with the name made a C string in a buffer
// on the stack rather than on the heap: a grep opens every file of a tree,
// and this was its one allocation per file. A name with a NUL byte is
// refused, as unix.Openat refuses it.
func openatNoAlloc(dir int, name string, flags int) (int, error) {
	var cname [256]byte // NAME_MAX is 255
	if len(name) >= len(cname) {
		return unix.Openat(dir, name, flags, 0)
	}
	if strings.IndexByte(name, 0) >= 0 {
		return -1, unix.EINVAL
	}
	copy(cname[:], name)
	fd, _, errno := unix.Syscall6(unix.SYS_OPENAT, uintptr(dir), uintptr(unsafe.Pointer(&cname[0])), uintptr(flags), 0, 0, 0)
	if errno != 0 {
		return -1, errno
	}
	return int(fd), nil
}
