package main

import (
	"fmt"
	"io/fs"
	"os"
)

// privateTokenDir creates dir if needed and checks that it is a real
// directory: it is under the user's profile, whose ACL admits the user
// (and the system and administrators) only, and a file created there
// inherits that ACL.
func privateTokenDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("MCP token directory: %w", err)
	}
	info, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("MCP token directory: %w", err)
	}
	if !info.IsDir() || info.Mode()&(fs.ModeSymlink|fs.ModeIrregular) != 0 {
		return fmt.Errorf("MCP token directory %s is not a plain directory (links and junctions are refused); remove it", dir)
	}
	return nil
}
