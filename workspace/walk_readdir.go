//go:build !linux

package workspace

import "io/fs"

// entryType is the DirEntry type of a listed entry of type t
// (fs.DirEntry.Type).
func entryType(t fs.FileMode) fs.FileMode {
	switch {
	case t.IsRegular():
		return 0
	case t.IsDir():
		return fs.ModeDir
	case t&fs.ModeSymlink != 0:
		return fs.ModeSymlink
	}
	return fs.ModeIrregular
}
