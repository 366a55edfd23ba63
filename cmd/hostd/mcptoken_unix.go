//go:build unix

package main

import (
	"fmt"
	"os"
	"syscall"
)

// privateTokenDir creates dir 0700 if needed and checks that it is a real
// directory of this user's that no one else can enter.
func privateTokenDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("MCP token directory: %w", err)
	}
	info, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("MCP token directory: %w", err)
	}
	if !info.IsDir() {
		return fmt.Errorf("MCP token directory %s is not a directory (symlinks are refused); remove it", dir)
	}
	if st, ok := info.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("MCP token directory %s belongs to uid %d, not to you (uid %d); remove it", dir, st.Uid, os.Getuid())
	}
	if perm := info.Mode().Perm(); perm != 0o700 {
		return fmt.Errorf("MCP token directory %s has mode %04o; it must be 0700 so no other user can read the token (chmod 700 %s)", dir, perm, dir)
	}
	return nil
}
