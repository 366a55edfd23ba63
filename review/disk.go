package review

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
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
