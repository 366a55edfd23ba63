//go:build unix

package workspace

import (
	"io"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// nameSeparators are the bytes a name in a directory cannot hold.
const nameSeparators = "/"

// walkDir is the directory's descriptor.
type walkDir struct{ fd int }

// walkDirOf takes the directory r holds open as a WalkDir of its own
// descriptor, closing r.
func walkDirOf(r *os.Root) (*WalkDir, error) {
	defer r.Close()
	f, err := r.Open(".")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	raw, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	fd := -1
	cerr := raw.Control(func(s uintptr) { fd, err = unix.FcntlInt(s, unix.F_DUPFD_CLOEXEC, 0) })
	if cerr != nil {
		return nil, cerr
	}
	if err != nil {
		return nil, err
	}
	return &WalkDir{walkDir{fd: fd}}, nil
}

func (w *walkDir) has(name string) bool {
	var st unix.Stat_t
	return unix.Fstatat(w.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil
}

// openDir opens one component with O_NOFOLLOW and O_DIRECTORY: a
// directory replaced by a link or a file since it was listed is refused,
// never followed.
func (w *walkDir) openDir(name string) (*WalkDir, error) {
	for {
		fd, err := unix.Openat(w.fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "openat", Path: name, Err: err}
		}
		return &WalkDir{walkDir{fd: fd}}, nil
	}
}

func (w *walkDir) openFile(name string) (File, error) {
	for {
		fd, err := openat(w.fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return File{}, &fs.PathError{Op: "openat", Path: name, Err: err}
		}
		return File{file{fd: fd, byFD: true}}, nil
	}
}

func (w *walkDir) close() error { return unix.Close(w.fd) }

// file is a bare descriptor (byFD) or, for FileOf, an *os.File.
type file struct {
	f    *os.File
	fd   int
	byFD bool
}

func fileOf(f *os.File) file { return file{f: f} }

func (f file) read(p []byte) (int, error) {
	switch {
	case f.f != nil:
		return f.f.Read(p)
	case !f.byFD:
		return 0, errNotOpen
	}
	for {
		n, err := unix.Read(f.fd, p)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return 0, err
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func (f file) stat() (int64, bool, error) {
	switch {
	case f.f != nil:
		info, err := f.f.Stat()
		if err != nil {
			return 0, false, err
		}
		return info.Size(), info.Mode().IsRegular(), nil
	case !f.byFD:
		return 0, false, errNotOpen
	}
	var st unix.Stat_t
	if err := unix.Fstat(f.fd, &st); err != nil {
		return 0, false, err
	}
	return st.Size, st.Mode&unix.S_IFMT == unix.S_IFREG, nil
}

func (f file) mapping(size int64) ([]byte, error) {
	switch {
	case f.f != nil:
		raw, err := f.f.SyscallConn()
		if err != nil {
			return nil, err
		}
		var m []byte
		cerr := raw.Control(func(fd uintptr) { m, err = mmap(int(fd), size) })
		if cerr != nil {
			return nil, cerr
		}
		return m, err
	case !f.byFD:
		return nil, errNotOpen
	}
	return mmap(f.fd, size)
}

func mmap(fd int, size int64) ([]byte, error) {
	return unix.Mmap(fd, 0, int(size), unix.PROT_READ, unix.MAP_PRIVATE)
}

func unmap(b []byte) error { return unix.Munmap(b) }

func (f file) close() error {
	switch {
	case f.f != nil:
		return f.f.Close()
	case !f.byFD:
		return errNotOpen
	}
	return unix.Close(f.fd)
}
