package workspace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// ErrChanged: a path no longer holds what the caller read from it, checked
// right before a replace or remove (another process wrote it since).
// Nothing was changed.
var ErrChanged = errors.New("the file changed on disk since it was read")

// Dir is an open root directory. Every operation on a path beneath it goes
// through the open directory (os.Root: openat with each component checked),
// never through the path's name from "/", so a directory renamed and
// replaced by a symlink to elsewhere after Resolve cannot redirect a read,
// a write, a temp file, a rename or a remove outside the root: the
// operation fails instead. A symlink that stays inside the root is still
// followed, as Resolve followed it.
type Dir struct {
	path string // canonical
	root *os.Root
}

// OpenDir opens the directory at a canonical path as a Dir, for the
// caller to Close (a Workspace closes its own with Close).
func OpenDir(path string) (*Dir, error) {
	r, err := os.OpenRoot(path)
	if err != nil {
		return nil, err
	}
	return &Dir{path: path, root: r}, nil
}

// Close closes the directory: every operation through it fails after
// that, with os.ErrClosed. Closing again does nothing.
func (d *Dir) Close() {
	d.root.Close()
}

// Path is the canonical path the Dir was opened at.
func (d *Dir) Path() string { return d.path }

// Rel returns abs relative to the Dir ("." for the Dir itself), or
// ErrOutside when abs is not beneath it.
func (d *Dir) Rel(abs string) (string, error) {
	if !within(d.path, abs) {
		return "", fmt.Errorf("%w: %s is not under %s", ErrOutside, abs, d.path)
	}
	rel, err := filepath.Rel(d.path, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%w: %s is not under %s", ErrOutside, abs, d.path)
	}
	return rel, nil
}

// confine turns the error os.Root gives for an escape into ErrOutside, so
// callers map it like any other path outside the roots.
func confine(err error, abs string) error {
	if err != nil && strings.Contains(err.Error(), "path escapes from parent") {
		return fmt.Errorf("%w: %s now leads outside its root (a directory on the way was replaced by a link): %v", ErrOutside, abs, err)
	}
	return err
}

// IsEscape reports whether err is a path found to leave its root.
func IsEscape(err error) bool { return errors.Is(err, ErrOutside) }

// Open opens abs for reading. O_NONBLOCK keeps a FIFO swapped in from
// stalling the caller, who checks the type on the descriptor.
func (d *Dir) Open(abs string) (*os.File, error) {
	rel, err := d.Rel(abs)
	if err != nil {
		return nil, err
	}
	f, err := d.root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	return f, confine(busy(nil, rel, err), abs)
}

// Stat follows a final symlink (inside the root); Lstat does not.
func (d *Dir) Stat(abs string) (fs.FileInfo, error) {
	rel, err := d.Rel(abs)
	if err != nil {
		return nil, err
	}
	info, err := d.root.Stat(rel)
	return info, confine(err, abs)
}

// Lstat is Stat of the link itself.
func (d *Dir) Lstat(abs string) (fs.FileInfo, error) {
	rel, err := d.Rel(abs)
	if err != nil {
		return nil, err
	}
	info, err := d.root.Lstat(rel)
	return info, confine(err, abs)
}

// OpenRoot opens the directory abs beneath d as an os.Root of its own, for
// a walk that opens each child by its name alone.
func (d *Dir) OpenRoot(abs string) (*os.Root, error) {
	rel, err := d.Rel(abs)
	if err != nil {
		return nil, err
	}
	r, err := d.root.OpenRoot(rel)
	return r, confine(err, abs)
}

// Expect is what a path must hold right before a mutation replaces or
// removes it. The zero value checks nothing.
type Expect struct {
	Check  bool
	Exists bool
	Data   []byte // the whole content, when Exists; a link's target when Link
	Link   bool   // the path is a symbolic link, not a regular file
}

// Want returns the Expect for a path last seen holding data (exists) or
// absent.
func Want(exists bool, data []byte) Expect { return Expect{Check: true, Exists: exists, Data: data} }

// verify reports ErrChanged unless rel holds exactly want. Memory is
// bounded by the expected size: a larger file is a change unread.
func verify(pd *os.Root, rel string, want Expect) error {
	if !want.Check {
		return nil
	}
	info, err := pd.Lstat(rel)
	if errors.Is(err, fs.ErrNotExist) {
		if want.Exists {
			return fmt.Errorf("%w: it was deleted", ErrChanged)
		}
		return nil
	}
	if err != nil {
		return err
	}
	if !want.Exists {
		return fmt.Errorf("%w: it was created", ErrChanged)
	}
	if want.Link {
		target, err := pd.Readlink(rel)
		if info.Mode()&fs.ModeSymlink == 0 || err != nil || target != string(want.Data) {
			return fmt.Errorf("%w: it is no longer the same symbolic link", ErrChanged)
		}
		return nil
	}
	if !info.Mode().IsRegular() || info.Size() != int64(len(want.Data)) {
		return fmt.Errorf("%w: it is now %d bytes, not %d", ErrChanged, info.Size(), len(want.Data))
	}
	f, err := pd.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	// Compared a chunk at a time: the check costs no copy of the file.
	buf := make([]byte, 64<<10)
	rest := want.Data
	for {
		n, err := f.Read(buf)
		if n > len(rest) || !bytes.Equal(buf[:n], rest[:n]) {
			return fmt.Errorf("%w: its content is different", ErrChanged)
		}
		rest = rest[n:]
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
	}
	if len(rest) > 0 {
		return fmt.Errorf("%w: it is shorter than when it was read", ErrChanged)
	}
	return nil
}

// WriteFile replaces the file at abs with data so that a crash at any
// moment leaves either the old bytes or the new ones, never a mix
// (edit-contract §13.7): a temporary file in the same directory, fsynced, renamed
// over abs, and the directory fsynced, all through d. An existing file
// keeps its mode; a new one gets perm. Parent directories are created as
// needed. Right before the rename the path is checked against want: if
// another process changed it since it was read, nothing is replaced and
// the error is ErrChanged. A new file (want.Exists false) never replaces
// one that appeared meanwhile: it is linked into place, which fails if
// the name is taken.
//
// abs must already be resolved: WriteFile replaces what is at abs, so a
// symlink there would be replaced, not followed.
func (d *Dir) WriteFile(abs string, data []byte, perm fs.FileMode, want Expect) error {
	rel, err := d.Rel(abs)
	if err != nil {
		return err
	}
	_, err = d.writeFile(rel, data, perm, want, false)
	return confine(err, abs)
}

// WriteFileSyncLater is WriteFile without its last step: the directory's
// fsync, which makes the rename durable, is handed back as a DirSync for
// the caller to run later (off the path of its answer). Until it runs, a
// power loss may undo the rename, leaving the old bytes whole; a crash of
// this process loses nothing. The caller must call Sync exactly once,
// also when it gives up on the change.
func (d *Dir) WriteFileSyncLater(abs string, data []byte, perm fs.FileMode, want Expect) (*DirSync, error) {
	rel, err := d.Rel(abs)
	if err != nil {
		return nil, err
	}
	ds, err := d.writeFile(rel, data, perm, want, true)
	return ds, confine(err, abs)
}

// DirSync is a directory fsync left for later (WriteFileSyncLater). It
// holds the directory open until Sync.
type DirSync struct {
	f    *os.File
	once sync.Once
	err  error
}

// Sync fsyncs the directory and closes it; later calls return the first
// call's result. Safe for concurrent use.
func (s *DirSync) Sync() error {
	s.once.Do(func() {
		s.err = fsyncDir(s.f)
		if err := s.f.Close(); s.err == nil {
			s.err = err
		}
	})
	return s.err
}

func (d *Dir) writeFile(rel string, data []byte, perm fs.FileMode, want Expect, later bool) (*DirSync, error) {
	dir, name := filepath.Dir(rel), filepath.Base(rel)
	if dir != "." {
		if err := d.root.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("create parent directory: %w", err)
		}
	}
	// Everything below happens in one directory, opened once: the temp
	// file, the check, the rename and the cleanup cannot land in two
	// different places if the directory is renamed meanwhile.
	pd, err := d.root.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer pd.Close()
	if info, err := pd.Lstat(name); err == nil {
		if info.Mode().IsRegular() {
			perm = info.Mode().Perm()
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, busy(pd, name, err)
	}
	tmp, tmpName, err := createTemp(pd, name)
	if err != nil {
		return nil, err
	}
	if err := fill(tmp, data, perm); err != nil {
		tmp.Close()
		removeAt(pd, tmpName)
		return nil, err
	}
	if err := tmp.Close(); err != nil {
		removeAt(pd, tmpName)
		return nil, err
	}
	return placeTemp(pd, tmpName, name, want, later)
}

// fill writes a temporary file's content and mode and makes them durable:
// a rename of it must never expose a file the disk does not hold whole.
func fill(tmp *os.File, data []byte, perm fs.FileMode) error {
	if _, err := tmp.Write(data); err != nil {
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		return err
	}
	return tmp.Sync()
}

// placeTemp moves the temporary file tmpName, written and fsynced, over
// name in the directory open as pd, once name still holds want: linked
// when want says the name is free (so a file that appeared meanwhile is
// never replaced), renamed otherwise. The temporary file is gone after,
// whatever happens.
func placeTemp(pd *os.Root, tmpName, name string, want Expect, later bool) (*DirSync, error) {
	committed := false
	defer func() {
		if !committed {
			removeAt(pd, tmpName)
		}
	}()
	if err := verify(pd, name, want); err != nil {
		return nil, busy(pd, name, err)
	}
	if want.Check && !want.Exists {
		if err := pd.Link(tmpName, name); err == nil {
			removeAt(pd, tmpName)
			committed = true
			return finishDir(pd, later)
		} else if errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("%w: it was created", ErrChanged)
		}
		// A filesystem without hard links: the check above must do.
	}
	if err := pd.Rename(tmpName, name); err != nil {
		return nil, busy(pd, name, err)
	}
	committed = true
	return finishDir(pd, later)
}

// finishDir makes a write's rename durable: now, or (later) by the
// DirSync it returns.
func finishDir(pd *os.Root, later bool) (*DirSync, error) {
	if !later {
		return nil, syncDir(pd)
	}
	f, err := pd.Open(".")
	if err != nil {
		return nil, err
	}
	return &DirSync{f: f}, nil
}

// createTemp creates the temporary file of name in the directory open as
// pd: tempPrefix and decimal digits, exclusive.
func createTemp(pd *os.Root, name string) (*os.File, string, error) {
	prefix := tempPrefix(name)
	for range 10000 {
		tmp := prefix + strconv.FormatUint(uint64(rand.Uint32()), 10)
		f, err := pd.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, tmp, err
	}
	return nil, "", fmt.Errorf("create a temporary file beside %s: too many names taken", name)
}

// RemoveFile deletes abs (a symlink itself, not its target) after checking
// it still holds want, and fsyncs its directory, so the removal is durable
// before the caller reports it.
func (d *Dir) RemoveFile(abs string, want Expect) error {
	rel, err := d.Rel(abs)
	if err != nil {
		return err
	}
	pd, err := d.root.OpenRoot(filepath.Dir(rel))
	if err != nil {
		return confine(err, abs)
	}
	defer pd.Close()
	name := filepath.Base(rel)
	if err := verify(pd, name, want); err != nil {
		return confine(busy(pd, name, err), abs)
	}
	if err := removeAt(pd, name); err != nil {
		return confine(err, abs)
	}
	return confine(syncDir(pd), abs)
}

func syncDir(pd *os.Root) error {
	f, err := pd.Open(".")
	if err != nil {
		return err
	}
	defer f.Close()
	return fsyncDir(f)
}

// Symlink makes abs a symbolic link to target, atomically: the link is
// made under a temporary name in the same directory, checked against want
// and renamed into place (linked, never replacing, when want says the
// name is free).
func (d *Dir) Symlink(target, abs string, want Expect) error {
	rel, err := d.Rel(abs)
	if err != nil {
		return err
	}
	dir, name := filepath.Dir(rel), filepath.Base(rel)
	if dir != "." {
		if err := d.root.MkdirAll(dir, 0o755); err != nil {
			return confine(fmt.Errorf("create parent directory: %w", err), abs)
		}
	}
	pd, err := d.root.OpenRoot(dir)
	if err != nil {
		return confine(err, abs)
	}
	defer pd.Close()
	var tmp string
	for range 10000 {
		tmp = tempPrefix(name) + strconv.FormatUint(uint64(rand.Uint32()), 10)
		if err = pd.Symlink(target, tmp); !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return confine(err, abs)
	}
	committed := false
	defer func() {
		if !committed {
			removeAt(pd, tmp)
		}
	}()
	if err := verify(pd, name, want); err != nil {
		return confine(busy(pd, name, err), abs)
	}
	if want.Check && !want.Exists {
		if err := pd.Link(tmp, name); err == nil {
			removeAt(pd, tmp)
			committed = true
			return confine(syncDir(pd), abs)
		} else if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("%w: it was created", ErrChanged)
		}
	}
	if err := pd.Rename(tmp, name); err != nil {
		return confine(busy(pd, name, err), abs)
	}
	committed = true
	return confine(syncDir(pd), abs)
}

// Readlink returns the target of the symbolic link abs.
func (d *Dir) Readlink(abs string) (string, error) {
	rel, err := d.Rel(abs)
	if err != nil {
		return "", err
	}
	target, err := d.root.Readlink(rel)
	return target, confine(err, abs)
}

// Chmod sets the permission bits of abs through d.
func (d *Dir) Chmod(abs string, mode fs.FileMode) error {
	rel, err := d.Rel(abs)
	if err != nil {
		return err
	}
	return confine(d.root.Chmod(rel, mode), abs)
}
