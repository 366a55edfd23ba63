package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// A walk of a tree beneath a root goes through a WalkDir: a directory held
// open, which lists its entries and opens what it lists by the entry's name
// alone, one path component, never following a symbolic link. The walk's
// first directory is opened through the root's os.Root (OpenWalkDir) and
// every directory below it through its parent (WalkDir.OpenDir), so a
// directory renamed and replaced by a link since it was listed is refused,
// not followed: a walk can never leave the root it started in. This is the
// rule os.Root applies to each component of a path, applied to the one
// component a walk takes at a time, without os.Root's bookkeeping per file
// (on Unix a WalkDir and a File are bare descriptors: a grep opens every
// file of a tree, and an *os.File costs more to set up than a small file
// costs to read).

// DirEntry is one name a directory lists, with its type as the directory
// records it.
type DirEntry struct {
	Name string
	// Type is fs.ModeDir, fs.ModeSymlink, 0 for a regular file, or
	// fs.ModeIrregular for anything else (devices, FIFOs, sockets, and on
	// Windows junctions and other reparse points), which a walk never
	// opens.
	Type fs.FileMode
}

// WalkDir is a directory beneath an open root, open for a walk. Has,
// OpenDir and OpenFile may be called on several goroutines at once (a
// walk goes on listing while searchers open the files it listed); List
// at most once, and Close once nothing more is opened through it.
type WalkDir struct{ walkDir }

// ListBuffer is memory List reuses from one directory to the next; the
// zero value is ready. It belongs to one goroutine at a time.
type ListBuffer struct{ listBuffer }

// OpenWalkDir opens the directory abs (canonical, beneath d) for a walk,
// through d's open root. A path that leads outside the root now is
// ErrOutside.
func (d *Dir) OpenWalkDir(abs string) (*WalkDir, error) {
	rel, err := d.Rel(abs)
	if err != nil {
		return nil, err
	}
	r, err := d.root.OpenRoot(rel)
	if err != nil {
		return nil, confine(err, abs)
	}
	return walkDirOf(r)
}

// List returns the directory's entries, without "." and "..", sorted by
// name in byte order, so the same tree always walks in the same order. It
// is called at most once per WalkDir.
func (w *WalkDir) List(buf *ListBuffer) ([]DirEntry, error) { return w.list(&buf.listBuffer) }

// Has reports whether the directory lists name (of any type; a symbolic
// link is not followed).
func (w *WalkDir) Has(name string) bool { return validName(name) == nil && w.has(name) }

// OpenDir opens the subdirectory name (one component the directory lists).
// A name that is now a symbolic link, or no longer a directory, is
// refused.
func (w *WalkDir) OpenDir(name string) (*WalkDir, error) {
	if err := validName(name); err != nil {
		return nil, err
	}
	return w.openDir(name)
}

// OpenFile opens name (one component the directory lists) for reading,
// never following a symbolic link and never blocking: a FIFO put there
// since it was listed opens, and the caller checks the type with Stat
// before it trusts what it reads. Safe to call on several goroutines.
func (w *WalkDir) OpenFile(name string) (File, error) {
	if err := validName(name); err != nil {
		return File{}, err
	}
	return w.openFile(name)
}

// Close closes the directory.
func (w *WalkDir) Close() error { return w.close() }

// File is a file open for reading through an open root, by WalkDir.OpenFile
// or (FileOf) Path.Open. The zero File is not open. A File is used by one
// goroutine at a time.
type File struct{ file }

// FileOf takes over f, opened through a root (Path.Open), as a File: f is
// closed with the File, or at once (on Unix, where the File holds a copy
// of its descriptor, and on an error).
func FileOf(f *os.File) (File, error) {
	sf, err := fileOf(f)
	return File{sf}, err
}

// Read reads from the file's current offset. At the end it returns 0 and
// io.EOF.
func (f File) Read(p []byte) (int, error) { return f.read(p) }

// Stat returns the file's size and whether it is a regular file.
func (f File) Stat() (size int64, regular bool, err error) { return f.stat() }

// Map maps the file's first size bytes into memory, read-only, where the
// platform can (errors.ErrUnsupported otherwise: read it instead). Reading
// the mapping past the end of a file another process truncated meanwhile
// faults (SIGBUS): the caller reads it with runtime/debug.SetPanicOnFault
// on and recovers. Unmap releases it.
func (f File) Map(size int64) ([]byte, error) {
	if size <= 0 || int64(int(size)) != size {
		return nil, errors.New("nothing to map")
	}
	return f.mapping(size)
}

// Unmap releases a mapping Map returned.
func Unmap(b []byte) error { return unmap(b) }

// Close closes the file.
func (f File) Close() error { return f.close() }

// errNotOpen is what a zero File answers.
var errNotOpen = errors.New("file is not open")

// validName refuses what is not one component a directory can list: a
// name with a separator, "." or "..", or a NUL byte. Every name a walk
// opens comes from a listing, so this refuses only misuse, but it is what
// makes "one component" a rule rather than an assumption.
func validName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, nameSeparators+"\x00") {
		return fmt.Errorf("%w: %q is not one name in a directory", ErrBadPath, name)
	}
	return nil
}
