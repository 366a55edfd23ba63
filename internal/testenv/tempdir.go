package testenv

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// TempDir is a new directory for the test, as t.TempDir, removed when the
// test ends one entry at a time (os.Remove, deepest first) rather than by
// os.RemoveAll: on Windows, RemoveAll deletes with POSIX semantics
// (FILE_DISPOSITION_POSIX_SEMANTICS), which wine does not implement, so a
// test that uses t.TempDir fails its cleanup under wine. Windows also
// refuses to remove a directory something holds open: a directory held
// by a handle the test dropped (a workspace.Dir, closed only when it is
// collected) is retried after a collection. The path is canonical
// (symlinks resolved), as a workspace root is.
func TempDir(tb testing.TB) string {
	tb.Helper()
	name := strings.Map(func(r rune) rune {
		if strings.ContainsRune(`/\:*?"<>| `, r) {
			return '_'
		}
		return r
	}, tb.Name())
	dir, err := os.MkdirTemp("", name[:min(len(name), 64)]+"-")
	if err == nil {
		dir, err = filepath.EvalSymlinks(dir)
	}
	if err != nil {
		tb.Fatalf("TempDir: %v", err)
	}
	tb.Cleanup(func() {
		var err error
		for range 50 {
			if err = removeTree(dir); err == nil {
				return
			}
			runtime.GC() // runs the finalizers that close dropped handles
			time.Sleep(10 * time.Millisecond)
		}
		tb.Errorf("TempDir: %s could not be removed: %v", dir, err)
	})
	return dir
}

// removeTree removes dir and everything under it, deepest first; the
// error is the first removal that failed.
func removeTree(dir string) error {
	var paths []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		paths = append(paths, p)
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o700) // a test may have taken its permissions away
		}
		return nil
	})
	var first error
	for _, p := range slices.Backward(paths) {
		if err := os.Remove(p); err != nil && first == nil && !os.IsNotExist(err) {
			first = err
		}
	}
	return first
}

// SkipWithoutSymlinks skips the test where the system does not let this
// process make a symbolic link (Windows grants it to privileged or
// developer-mode users only) or does not report what it made as one
// (under wine a link is a Unix link that Windows calls do not see). It
// probes in a directory of its own, before the test makes anything.
func SkipWithoutSymlinks(tb testing.TB) {
	tb.Helper()
	dir := TempDir(tb)
	link := filepath.Join(dir, "link")
	if err := os.WriteFile(filepath.Join(dir, "target"), nil, 0o644); err != nil {
		tb.Fatal(err)
	}
	if err := os.Symlink("target", link); err != nil {
		tb.Skipf("cannot make a symbolic link here: %v", err)
	}
	if info, err := os.Lstat(link); err != nil || info.Mode()&fs.ModeSymlink == 0 {
		os.Remove(link)
		tb.Skipf("a symbolic link made here is not reported as one (lstat: %v, %v)", info, err)
	}
}
