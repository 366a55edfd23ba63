package tools

import "io/fs"

// dirEntry is one name a directory lists, with its type.
type dirEntry struct {
	name string
	typ  fs.FileMode // fs.ModeDir, fs.ModeSymlink, 0 for a regular file, fs.ModeIrregular for anything else
}
