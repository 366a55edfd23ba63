package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func preparePath(t *testing.T, name string) (Path, string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(tempDir(t))
	must(t, err)
	w, err := New(root, "", nil)
	must(t, err)
	p, err := w.Resolve(name, Write)
	must(t, err)
	return p, root
}

// A prepared write shows nothing until Place: no name in the directory,
// the old content in place. Place then replaces it and leaves no
// temporary file.
func TestPreparedWriteIsInvisibleUntilPlaced(t *testing.T) {
	p, root := preparePath(t, "a.txt")
	must(t, os.WriteFile(p.Abs, []byte("old"), 0o640))
	w := p.Prepare([]byte("new"), 0o644)
	if runtime.GOOS == "linux" && w.anon == nil {
		t.Log("this filesystem has no O_TMPFILE; the prepared write falls back to Place")
	}
	entries, err := os.ReadDir(root)
	must(t, err)
	if len(entries) != 1 {
		t.Fatalf("Prepare made a name visible: %v", entries)
	}
	if got, _ := os.ReadFile(p.Abs); string(got) != "old" {
		t.Fatalf("content before Place = %q", got)
	}
	ds, err := w.Place(Want(true, []byte("old")))
	must(t, err)
	must(t, ds.Sync())
	got, err := os.ReadFile(p.Abs)
	must(t, err)
	info, _ := os.Stat(p.Abs)
	if string(got) != "new" || permBits && info.Mode().Perm() != 0o640 {
		t.Fatalf("after Place: %q mode %v; want the new bytes under the file's own mode", got, info.Mode().Perm())
	}
	assertNoTemp(t, root)
}

// Place checks the path right before it renames: bytes another process
// wrote after Prepare are never replaced, and nothing is left behind.
func TestPreparedWriteRefusesAFileChangedMeanwhile(t *testing.T) {
	p, root := preparePath(t, "a.txt")
	must(t, os.WriteFile(p.Abs, []byte("read"), 0o644))
	w := p.Prepare([]byte("mine"), 0o644)
	must(t, os.WriteFile(p.Abs, []byte("someone else"), 0o644))
	if _, err := w.Place(Want(true, []byte("read"))); !errors.Is(err, ErrChanged) {
		t.Fatalf("Place = %v, want ErrChanged", err)
	}
	if got, _ := os.ReadFile(p.Abs); string(got) != "someone else" {
		t.Fatalf("the other writer's bytes were replaced: %q", got)
	}
	assertNoTemp(t, root)
}

// A new file whose name another process took after Prepare is not
// replaced; a new file in a directory that does not exist yet is written
// at Place (Prepare creates nothing visible, not even the directory).
func TestPreparedCreate(t *testing.T) {
	p, root := preparePath(t, "new.txt")
	w := p.Prepare([]byte("mine"), 0o644)
	must(t, os.WriteFile(p.Abs, []byte("theirs"), 0o644))
	if _, err := w.Place(Want(false, nil)); !errors.Is(err, ErrChanged) {
		t.Fatalf("Place over a name taken meanwhile = %v, want ErrChanged", err)
	}
	assertNoTemp(t, root)

	q, root := preparePath(t, "sub/dir/new.txt")
	w = q.Prepare([]byte("mine"), 0o600)
	if _, err := os.Stat(filepath.Join(root, "sub")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Prepare created the parent directory: %v", err)
	}
	ds, err := w.Place(Want(false, nil))
	must(t, err)
	must(t, ds.Sync())
	if got, _ := os.ReadFile(q.Abs); string(got) != "mine" {
		t.Fatalf("content %q", got)
	}
}

// Discard leaves no trace, on disk or in the directory.
func TestPreparedWriteDiscarded(t *testing.T) {
	p, root := preparePath(t, "a.txt")
	must(t, os.WriteFile(p.Abs, []byte("old"), 0o644))
	p.Prepare([]byte("new"), 0o644).Discard()
	if got, _ := os.ReadFile(p.Abs); string(got) != "old" {
		t.Fatalf("content %q", got)
	}
	entries, _ := os.ReadDir(root)
	if len(entries) != 1 {
		t.Fatalf("Discard left %v", entries)
	}
}
