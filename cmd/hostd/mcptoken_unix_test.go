//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The token directory is created 0700, and one that others can enter or
// that is a link is refused with the step that fixes it.
func TestPrivateTokenDir(t *testing.T) {
	root := t.TempDir()
	fresh := filepath.Join(root, "state", "mcp")
	if err := privateTokenDir(fresh); err != nil {
		t.Fatalf("new directory: %v", err)
	}
	if info, err := os.Stat(fresh); err != nil || info.Mode().Perm() != 0o700 {
		t.Fatalf("new directory: %v, %v; want mode 0700", info, err)
	}
	open := filepath.Join(root, "open")
	if err := os.Mkdir(open, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o755); err != nil { // past the umask
		t.Fatal(err)
	}
	if err := privateTokenDir(open); err == nil || !strings.Contains(err.Error(), "chmod 700") {
		t.Errorf("0755 directory: %v, want a refusal naming chmod 700", err)
	}
	link := filepath.Join(root, "link")
	if err := os.Symlink(fresh, link); err != nil {
		t.Fatal(err)
	}
	if err := privateTokenDir(link); err == nil || !strings.Contains(err.Error(), "symlinks are refused") {
		t.Errorf("symlink: %v, want a refusal of the link", err)
	}
}
