package main

import (
	"fmt"
	"io/fs"
)

// checkTokenDir checks that dir, as Lstat found it, is a real directory:
// it is under the user's profile, whose ACL admits the user (and the
// system and administrators) only, and a file created there inherits that
// ACL.
func checkTokenDir(dir string, info fs.FileInfo) error {
	if !info.IsDir() || info.Mode()&(fs.ModeSymlink|fs.ModeIrregular) != 0 {
		return fmt.Errorf("MCP token directory %s is not a plain directory (links and junctions are refused); remove it", dir)
	}
	return nil
}
