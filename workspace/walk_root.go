//go:build !unix

package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// nameSeparators are the bytes a name in a directory cannot hold: both
// separators, and the colon of a drive or an alternate data stream.
const nameSeparators = `/\:`

// walkDir is the directory as an os.Root of its own: without a bare
// descriptor to open by one name with no link followed, every step goes
// through os.Root, which keeps it inside the directory, and checks that
// what it opened is the entry itself and not what a link put there
// since the listing leads to.
type walkDir struct{ root *os.Root }

// walkDirOf takes over r.
func walkDirOf(r *os.Root) (*WalkDir, error) { return &WalkDir{walkDir{root: r}}, nil }

// listBuffer is what list reuses between directories: nothing here.
type listBuffer struct{}

func (w *walkDir) list(*listBuffer) ([]DirEntry, error) {
	d, err := w.root.Open(".")
	if err != nil {
		return nil, err
	}
	defer d.Close()
	des, err := d.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	return sortedEntries(des), nil
}

func (w *walkDir) has(name string) bool {
	_, err := w.root.Lstat(name)
	return err == nil
}

// errLinked: the entry is a link, or was replaced since it was looked at.
var errLinked = errors.New("a symbolic link or reparse point, not followed")

func (w *walkDir) openDir(name string) (*WalkDir, error) {
	info, err := w.root.Lstat(name)
	if err != nil {
		return nil, err
	}
	if info.Mode().Type() != fs.ModeDir {
		return nil, &fs.PathError{Op: "open", Path: name, Err: errLinked}
	}
	sub, err := w.root.OpenRoot(name)
	if err != nil {
		return nil, err
	}
	opened, err := sub.Stat(".")
	if err == nil {
		err = sameEntry(opened, info, name)
	}
	if err != nil {
		sub.Close()
		return nil, err
	}
	return &WalkDir{walkDir{root: sub}}, nil
}

func (w *walkDir) openFile(name string) (File, error) {
	f, err := w.root.Open(name)
	if err != nil {
		return File{}, err
	}
	info, err := w.root.Lstat(name)
	if err == nil && info.Mode()&(fs.ModeSymlink|fs.ModeIrregular) != 0 {
		err = &fs.PathError{Op: "open", Path: name, Err: errLinked}
	}
	if err == nil {
		var opened fs.FileInfo
		if opened, err = f.Stat(); err == nil {
			err = sameEntry(opened, info, name)
		}
	}
	if err != nil {
		f.Close()
		return File{}, err
	}
	return File{file{f: f}}, nil
}

// sameEntry checks that what was opened is the entry lstat'ed as listed:
// os.Root follows a link that stays inside the root, and a walk follows
// none.
func sameEntry(opened, listed fs.FileInfo, name string) error {
	if !os.SameFile(opened, listed) {
		return &fs.PathError{Op: "open", Path: name, Err: fmt.Errorf("%w: it changed while it was opened", errLinked)}
	}
	return nil
}

func (w *walkDir) close() error { return w.root.Close() }

// file is an *os.File.
type file struct{ f *os.File }

func fileOf(f *os.File) (file, error) { return file{f: f}, nil }

func (f file) read(p []byte) (int, error) {
	if f.f == nil {
		return 0, errNotOpen
	}
	return f.f.Read(p)
}

func (f file) stat() (int64, bool, error) {
	if f.f == nil {
		return 0, false, errNotOpen
	}
	info, err := f.f.Stat()
	if err != nil {
		return 0, false, err
	}
	return info.Size(), info.Mode().IsRegular(), nil
}

// mapping is not done here: the file is read.
func (f file) mapping(int64) ([]byte, error) { return nil, errors.ErrUnsupported }

func unmap([]byte) error { return errors.ErrUnsupported }

func (f file) close() error {
	if f.f == nil {
		return errNotOpen
	}
	return f.f.Close()
}
