package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
)

// tempDir is t.TempDir, removed in a way every Windows the tests run on
// can do (removeTree).
func tempDir(tb testing.TB) string {
	tb.Helper()
	dir := tb.TempDir()
	tb.Cleanup(func() { removeTree(tb, dir) })
	return dir
}

// permBits reports whether this system keeps Unix permission bits;
// Windows keeps only a read-only attribute.
const permBits = runtime.GOOS != "windows"

// needLinks skips a test where symbolic links cannot be made and
// followed: Windows makes them only in developer mode or as an
// administrator, and wine 8 makes them but cannot follow them.
func needLinks(tb testing.TB) {
	tb.Helper()
	if !linksWork(tb) {
		tb.Skip("symbolic links cannot be made and followed here (Windows: developer mode or an administrator; wine 8 makes them but does not follow them)")
	}
}

// linksWork tries a relative link to a directory and a file through it.
func linksWork(tb testing.TB) bool {
	dir := tempDir(tb)
	if err := os.Mkdir(filepath.Join(dir, "d"), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "d", "f"), nil, 0o644); err != nil {
		tb.Fatal(err)
	}
	if err := os.Symlink("d", filepath.Join(dir, "l")); err != nil {
		return false
	}
	_, err := os.Stat(filepath.Join(dir, "l", "f"))
	return err == nil
}

// removeByPath removes top and everything under it by path, children
// first. Windows refuses to remove a directory that a handle holds open.
func removeByPath(top string) error {
	var paths []string
	err := filepath.WalkDir(top, func(p string, _ fs.DirEntry, err error) error {
		if err == nil {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return err
	}
	slices.Reverse(paths) // children before their directory
	for _, p := range paths {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}
