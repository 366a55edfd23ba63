package review

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/hostd-dev/hostd/workspace"
)

// State is what one path holds at one moment: nothing, or a regular file's
// bytes and permission bits.
type State struct {
	Exists bool
	Data   []byte
	Mode   fs.FileMode
	Link   bool // a symbolic link whose target is Data
}

// Observation is what Observe found at a path.
type Observation struct {
	Exists  bool        // something is at the path
	Regular bool        // it is a regular file (a symlink is not followed)
	Link    bool        // it is a symbolic link; Data is its target
	Mode    fs.FileMode // its permission bits
	Size    int64
	// Data and SHA256 are set only for a regular file no larger than the
	// read limit: a file of another size cannot hold the content being
	// compared against, so it is never read, whatever its size.
	Data   []byte
	SHA256 string
}

// State returns the observation as a State; ok is false when the content
// was not read or the path is not a regular file, so it cannot be put back.
func (o Observation) State() (st State, ok bool) {
	if !o.Exists {
		return State{}, true
	}
	if o.Link {
		return State{Exists: true, Data: o.Data, Link: true}, true
	}
	if !o.Regular || o.Data == nil {
		return State{}, false
	}
	return State{Exists: true, Data: o.Data, Mode: o.Mode}, true
}

// matches reports whether the observation is exactly the side f describes.
// Only existence and content count: the mode is put back by every restore
// anyway, and a caller's idea of a mode may differ from what landed.
func (o Observation) matches(f Facts) bool {
	if !f.Exists {
		return !o.Exists
	}
	if f.Link {
		return o.Link && o.SHA256 == f.SHA256
	}
	return o.Regular && o.Data != nil && o.SHA256 == f.SHA256
}

// Observe reports what path holds now, reading its content only when it is
// a regular file of at most readLimit bytes. Memory is bounded by
// readLimit whatever the file has grown to. An absent path is not an error.
func Observe(path string, readLimit int64) (Observation, error) {
	info, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Observation{}, nil
	}
	if err != nil {
		return Observation{}, err
	}
	o := Observation{Exists: true, Regular: info.Mode().IsRegular(), Mode: info.Mode().Perm(), Size: info.Size()}
	if info.Mode()&fs.ModeSymlink != 0 {
		target, err := os.Readlink(path)
		if err != nil {
			return o, fmt.Errorf("observe %s: %w", path, err)
		}
		o.Link, o.Mode, o.Data = true, 0, []byte(target)
		o.Size, o.SHA256 = int64(len(o.Data)), sha256Hex(o.Data)
		return o, nil
	}
	if !o.Regular || o.Size > readLimit {
		return o, nil
	}
	// openNoFollow: if the path was swapped for a FIFO since Lstat,
	// opening it must not hang the daemon, nor may a swapped-in symlink
	// redirect the read. Where the open cannot refuse a link itself, the
	// file opened must be the one Lstat saw.
	f, err := openNoFollow(path)
	if err != nil {
		return o, fmt.Errorf("observe %s: %w", path, err)
	}
	defer f.Close()
	if opened, err := f.Stat(); err != nil || !opened.Mode().IsRegular() || !os.SameFile(info, opened) {
		o.Regular = false
		return o, err
	}
	data, err := io.ReadAll(io.LimitReader(f, readLimit+1))
	if err != nil {
		return o, fmt.Errorf("observe %s: %w", path, err)
	}
	o.Size = int64(len(data))
	if o.Size > readLimit {
		return o, nil
	}
	o.Data, o.SHA256 = data, sha256Hex(data)
	return o, nil
}

// Restore makes path hold st, through the project's one atomic write or
// remove. An existing file is first given st's mode, because WriteFile
// keeps the mode of the file it replaces; a crash between the two steps
// leaves the old content under the new mode, which the intent that
// surrounds every Restore puts right at the next Open. Removing a path
// that is already absent succeeds: restores must be repeatable.
func Restore(path string, st State) error {
	if st.Link {
		return workspace.SymlinkAt(path, string(st.Data))
	}
	if !st.Exists {
		err := workspace.RemoveFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	mode := st.Mode.Perm()
	if info, err := os.Lstat(path); err == nil && info.Mode().IsRegular() && info.Mode().Perm() != mode {
		if err := os.Chmod(path, mode); err != nil {
			return err
		}
	}
	return workspace.WriteFile(path, st.Data, mode)
}

// RestoreIn is Restore confined to an open root: every step goes through
// d (workspace.Dir), so a directory swapped for a link since the path was
// recorded cannot redirect the restore outside the root, and the path is
// checked against want right before it is replaced or removed.
func RestoreIn(d *workspace.Dir, path string, st State, want workspace.Expect) error {
	if st.Link {
		return d.Symlink(string(st.Data), path, want)
	}
	if !st.Exists {
		err := d.RemoveFile(path, want)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	mode := st.Mode.Perm()
	if info, err := d.Lstat(path); err == nil && info.Mode().IsRegular() && info.Mode().Perm() != mode {
		if err := d.Chmod(path, mode); err != nil {
			return err
		}
	}
	return d.WriteFile(path, st.Data, mode, want)
}
