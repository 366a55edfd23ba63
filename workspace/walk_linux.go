package workspace

import (
	"bytes"
	"encoding/binary"
	"io/fs"
	"slices"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// listBuffer is the memory list reuses from one directory to the next:
// the names are gathered there and copied out as one string, so a
// directory costs two allocations however many entries it has.
type listBuffer struct {
	buf   []byte     // getdents64 records
	names []byte     // the names listed so far
	spans []nameSpan // where each is in names, with its type
}

type nameSpan struct {
	start, end int
	typ        byte
}

// list reads the directory with getdents64, which gives each entry's type
// with its name, so listing costs a system call per buffer of entries,
// not one per entry; an entry of unknown type is lstat'ed through the
// directory.
func (w *walkDir) list(b *listBuffer) ([]DirEntry, error) {
	if b.buf == nil {
		b.buf = make([]byte, 32<<10)
	}
	names, spans := b.names[:0], b.spans[:0]
	defer func() { b.names, b.spans = names[:0], spans[:0] }()
	for {
		n, err := unix.Getdents(w.fd, b.buf)
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
		for rec := b.buf[:n]; len(rec) >= 19; {
			reclen := int(binary.NativeEndian.Uint16(rec[16:18]))
			if reclen < 19 || reclen > len(rec) {
				break
			}
			name := rec[19:reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			if string(name) != "." && string(name) != ".." {
				spans = append(spans, nameSpan{start: len(names), end: len(names) + len(name), typ: rec[18]})
				names = append(names, name...)
			}
			rec = rec[reclen:]
		}
	}
	all := string(names)
	entries := make([]DirEntry, len(spans))
	for i, sp := range spans {
		name := all[sp.start:sp.end]
		entries[i] = DirEntry{Name: name, Type: direntType(w.fd, name, sp.typ)}
	}
	slices.SortFunc(entries, func(a, b DirEntry) int { return strings.Compare(a.Name, b.Name) })
	return entries, nil
}

// openat is unix.Openat with the name made a C string in a buffer on the
// stack rather than on the heap: a grep opens every file of a tree, and
// this was its one allocation per file. A name with a NUL byte is
// refused, as unix.Openat refuses it.
func openat(dir int, name string, flags int) (int, error) {
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

// direntType is the type of an entry from the type its directory
// records (t, a DT_ value), asking the file system through the directory
// when the directory does not record it.
func direntType(dirFD int, name string, t byte) fs.FileMode {
	switch t {
	case unix.DT_REG:
		return 0
	case unix.DT_DIR:
		return fs.ModeDir
	case unix.DT_LNK:
		return fs.ModeSymlink
	case unix.DT_UNKNOWN:
		var st unix.Stat_t
		if unix.Fstatat(dirFD, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
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
	return fs.ModeIrregular
}
