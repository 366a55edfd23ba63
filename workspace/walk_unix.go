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

// walkDirOf takes over r: the WalkDir holds a copy of r's descriptor,
// and r is closed.
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
		return File{file{fd1: fd + 1}}, nil
	}
}

func (w *walkDir) close() error { return unix.Close(w.fd) }

// file is a bare descriptor, plus one: the zero File is not open. One
// word, so a File held in an interface costs no allocation while
// descriptors are small.
type file struct{ fd1 int }

// fileOf takes f's descriptor as a copy of its own and closes f.
func fileOf(f *os.File) (file, error) {
	defer f.Close()
	raw, err := f.SyscallConn()
	if err != nil {
		return file{}, err
	}
	fd := -1
	cerr := raw.Control(func(s uintptr) { fd, err = unix.FcntlInt(s, unix.F_DUPFD_CLOEXEC, 0) })
	if cerr != nil {
		return file{}, cerr
	}
	if err != nil {
		return file{}, err
	}
	return file{fd1: fd + 1}, nil
}

func (f file) fd() (int, error) {
	if f.fd1 <= 0 {
		return -1, errNotOpen
	}
	return f.fd1 - 1, nil
}

func (f file) read(p []byte) (int, error) {
	fd, err := f.fd()
	if err != nil {
		return 0, err
	}
	for {
		n, err := unix.Read(fd, p)
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
	fd, err := f.fd()
	if err != nil {
		return 0, false, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return 0, false, err
	}
	return st.Size, st.Mode&unix.S_IFMT == unix.S_IFREG, nil
}

func (f file) mapping(size int64) ([]byte, error) {
	fd, err := f.fd()
	if err != nil {
		return nil, err
	}
	return unix.Mmap(fd, 0, int(size), unix.PROT_READ, unix.MAP_PRIVATE)
}

func unmap(b []byte) error { return unix.Munmap(b) }

func (f file) close() error {
	fd, err := f.fd()
	if err != nil {
		return err
	}
	return unix.Close(fd)
}
