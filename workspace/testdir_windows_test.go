package workspace

import (
	"path/filepath"
	"runtime"
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
