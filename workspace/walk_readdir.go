//go:build !linux

package workspace

import (
	"io/fs"
	"slices"
	"strings"
)

// sortedEntries are what os.File.ReadDir listed, as the walk's entries in
// byte order of their names (the Linux walk reads getdents64 itself).
func sortedEntries(des []fs.DirEntry) []DirEntry {
	entries := make([]DirEntry, 0, len(des))
	for _, e := range des {
		entries = append(entries, DirEntry{Name: e.Name(), Type: entryType(e.Type())})
	}
	slices.SortFunc(entries, func(a, b DirEntry) int { return strings.Compare(a.Name, b.Name) })
	return entries
}

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
