package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteFileCreatesParentsAndUsesPerm(t *testing.T) {
	dir := tempDir(t)
	p := filepath.Join(dir, "a", "b", "c.txt")
	must(t, WriteFile(p, []byte("hi\n"), 0o640))
	got, err := os.ReadFile(p)
	must(t, err)
	if string(got) != "hi\n" {
		t.Errorf("content = %q", got)
	}
	info, err := os.Stat(p)
	must(t, err)
	if permBits && info.Mode().Perm() != 0o640 {
		t.Errorf("mode = %v, want 0640", info.Mode().Perm())
	}
	assertNoTemp(t, filepath.Dir(p))
}

func TestWriteFilePreservesMode(t *testing.T) {
	if !permBits {
		t.Skip("Windows keeps no permission bits, only a read-only attribute")
	}
	dir := tempDir(t)
	p := filepath.Join(dir, "run.sh")
	must(t, os.WriteFile(p, []byte("old"), 0o755))
	must(t, os.Chmod(p, 0o751))
	must(t, WriteFile(p, []byte("new"), 0o644))
	info, err := os.Stat(p)
	must(t, err)
	if info.Mode().Perm() != 0o751 {
		t.Errorf("mode = %v, want the old 0751", info.Mode().Perm())
	}
	got, _ := os.ReadFile(p)
	if string(got) != "new" {
		t.Errorf("content = %q", got)
	}
	assertNoTemp(t, dir)
}

// WriteFile replaces what is at the path: a symlink there is replaced, not
// followed, so a link planted after resolution cannot redirect a write.
func TestWriteFileReplacesSymlinkInsteadOfFollowing(t *testing.T) {
	needLinks(t)
	dir := tempDir(t)
	target := filepath.Join(dir, "target.txt")
	must(t, os.WriteFile(target, []byte("keep"), 0o644))
	link := filepath.Join(dir, "link.txt")
	must(t, os.Symlink(target, link))
	must(t, WriteFile(link, []byte("new"), 0o644))
	if got, _ := os.ReadFile(target); string(got) != "keep" {
		t.Errorf("the link's target was written: %q", got)
	}
	info, err := os.Lstat(link)
	must(t, err)
	if info.Mode()&fs.ModeSymlink != 0 {
		t.Error("the path is still a symlink")
	}
}

func TestWriteFileFailureLeavesOldBytesAndNoTemp(t *testing.T) {
	dir := tempDir(t)
	// A directory at the path: the rename cannot replace it.
	p := filepath.Join(dir, "d")
	must(t, os.Mkdir(p, 0o755))
	if err := WriteFile(p, []byte("x"), 0o644); err == nil {
		t.Fatal("WriteFile over a directory succeeded")
	}
	info, err := os.Stat(p)
	must(t, err)
	if !info.IsDir() {
		t.Error("the directory was replaced")
	}
	assertNoTemp(t, dir)
}

func TestRemoveFile(t *testing.T) {
	dir := tempDir(t)
	p := filepath.Join(dir, "x")
	must(t, os.WriteFile(p, nil, 0o644))
	must(t, RemoveFile(p))
	if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("file still there: %v", err)
	}
	if err := RemoveFile(p); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("second remove: %v, want ErrNotExist", err)
	}
}

func assertNoTemp(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	must(t, err)
	for _, e := range entries {
		if matched, _ := filepath.Match(".*.hostd-*", e.Name()); matched {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}
