//go:build unix

package main

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// checkTokenDir checks that dir, as Lstat found it, is a real directory
// of this user's that no one else can enter.
func checkTokenDir(dir string, info fs.FileInfo) error {
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
