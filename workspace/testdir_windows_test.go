package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"
)

// removeTree removes dir's parent (t.TempDir's own directory) by path,
// before t.TempDir's cleanup would. That cleanup removes through
// directory handles, which wine does not implement; and Windows removes
// no directory a Workspace still holds open, so the held roots are
// collected first.
func removeTree(tb testing.TB, dir string) {
	top := filepath.Dir(dir)
	var err error
	for range 40 {
		runtime.GC()
		if err = removeByPath(top); err == nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	tb.Errorf("removing %s: %v", top, err)
}

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
