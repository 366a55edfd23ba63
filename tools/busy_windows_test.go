package tools

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/windows"

	"github.com/hostd-dev/hostd/rpc/wire"
)

// A file another program holds open without sharing it for deletion,
// as an editor or a virus scanner may: Windows refuses the rename over
// it. The edit answers HOST_BUSY (retriable), leaves the file's bytes and
// no temporary file, records no review entry, and goes through once the
// other program lets go.
func TestEditOfAFileHeldOpenIsBusyAndLosesNothing(t *testing.T) {
	e := newEditEnv(t)
	t.Cleanup(func() { removeByPathWhenFree(t, e.root) })
	x, store := reviewedExecutor(t, e.m, e.lim)
	e.x = x
	e.write("a.txt", "one\ntwo\n")
	tag := e.showAll("a.txt")

	p, err := windows.UTF16PtrFromString(filepath.Join(e.root, "a.txt"))
	if err != nil {
		t.Fatal(err)
	}
	h, err := windows.CreateFile(p, windows.GENERIC_READ, windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE, nil, windows.OPEN_EXISTING, windows.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		t.Fatal(err)
	}
	r := e.edit("a.txt", tag, "PUT 1.=1:\n+ONE")
	windows.CloseHandle(h)
	if r.OK || r.Error.Code != wire.ToolHostBusy || !r.Error.Retriable || !strings.Contains(r.Error.Message, "open in another program") {
		t.Fatalf("got ok=%v %+v, want retriable HOST_BUSY naming the other program", r.OK, r.Error)
	}
	if got := e.file("a.txt"); got != "one\ntwo\n" {
		t.Fatalf("the held file holds %q", got)
	}
	entries, err := os.ReadDir(e.root)
	if err != nil {
		t.Fatal(err)
	}
	for _, en := range entries {
		if en.Name() != "a.txt" {
			t.Errorf("left in the workspace: %s", en.Name())
		}
	}
	if es, _ := store.List(e.s.ID, ""); len(es) != 0 {
		t.Fatalf("%d review entries for an edit that did not land", len(es))
	}
	if r := e.edit("a.txt", tag, "PUT 1.=1:\n+ONE"); !r.OK {
		t.Fatalf("the retry after the other program let go: %+v", r.Error)
	}
	if got := e.file("a.txt"); got != "ONE\ntwo\n" {
		t.Fatalf("after the retry the file holds %q", got)
	}
}

// removeByPathWhenFree removes dir's parent (t.TempDir's own directory)
// by path, once the workspace roots held open are collected: t.TempDir
// removes through directory handles, which wine does not implement.
func removeByPathWhenFree(t *testing.T, dir string) {
	top := filepath.Dir(dir)
	var err error
	for range 40 {
		runtime.GC()
		var paths []string
		filepath.WalkDir(top, func(p string, _ fs.DirEntry, err error) error {
			if err == nil {
				paths = append(paths, p)
			}
			return nil
		})
		slices.Reverse(paths)
		err = nil
		for _, p := range paths {
			if rerr := os.Remove(p); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
				err = rerr
			}
		}
		if err == nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Errorf("removing %s: %v", top, err)
}
