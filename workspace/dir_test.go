package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func openTestDir(t *testing.T) (*Dir, string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(tempDir(t))
	must(t, err)
	d, err := OpenDir(root)
	must(t, err)
	return d, root
}

// The check right before the rename: a file another process changed
// since it was read is not replaced, and no temp file stays.
func TestWriteFileRefusesAFileChangedSinceRead(t *testing.T) {
	d, root := openTestDir(t)
	p := filepath.Join(root, "a.txt")
	must(t, os.WriteFile(p, []byte("read"), 0o644))
	must(t, os.WriteFile(p, []byte("someone else"), 0o644))
	err := d.WriteFile(p, []byte("mine"), 0o644, Want(true, []byte("read")))
	if !errors.Is(err, ErrChanged) {
		t.Fatalf("err = %v, want ErrChanged", err)
	}
	if got, _ := os.ReadFile(p); string(got) != "someone else" {
		t.Fatalf("the other writer's bytes were replaced: %q", got)
	}
	assertNoTemp(t, root)
	// With the content it holds, the write goes through.
	must(t, d.WriteFile(p, []byte("mine"), 0o644, Want(true, []byte("someone else"))))
	if got, _ := os.ReadFile(p); string(got) != "mine" {
		t.Fatalf("content %q", got)
	}
}

// A new file never replaces one that appeared since the caller saw the
// name free (MV's destination, write's create).
func TestWriteFileOfANewFileNeverReplaces(t *testing.T) {
	d, root := openTestDir(t)
	p := filepath.Join(root, "new.txt")
	must(t, os.WriteFile(p, []byte("appeared"), 0o644))
	if err := d.WriteFile(p, []byte("mine"), 0o644, Want(false, nil)); !errors.Is(err, ErrChanged) {
		t.Fatalf("err = %v, want ErrChanged", err)
	}
	if got, _ := os.ReadFile(p); string(got) != "appeared" {
		t.Fatalf("replaced: %q", got)
	}
	assertNoTemp(t, root)
	q := filepath.Join(root, "sub", "fresh.txt")
	must(t, d.WriteFile(q, []byte("ok"), 0o640, Want(false, nil)))
	info, err := os.Stat(q)
	must(t, err)
	if permBits && info.Mode().Perm() != 0o640 {
		t.Fatalf("mode %v", info.Mode())
	}
	assertNoTemp(t, filepath.Dir(q))
}

func TestRemoveFileChecksFirst(t *testing.T) {
	d, root := openTestDir(t)
	p := filepath.Join(root, "a.txt")
	must(t, os.WriteFile(p, []byte("changed"), 0o644))
	if err := d.RemoveFile(p, Want(true, []byte("read"))); !errors.Is(err, ErrChanged) {
		t.Fatalf("err = %v, want ErrChanged", err)
	}
	must(t, d.RemoveFile(p, Want(true, []byte("changed"))))
	if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("not removed")
	}
}

// A directory swapped for a link to outside after resolution: every
// operation through the Dir is refused as ErrOutside, and nothing
// outside is touched.
func TestDirRefusesADirectorySwappedForALinkOut(t *testing.T) {
	needLinks(t)
	d, root := openTestDir(t)
	outside := tempDir(t)
	must(t, os.WriteFile(filepath.Join(outside, "f.txt"), []byte("outside"), 0o644))
	must(t, os.Symlink(outside, filepath.Join(root, "sub")))
	p := filepath.Join(root, "sub", "f.txt")
	checks := map[string]error{}
	_, checks["open"] = d.Open(p)
	_, checks["stat"] = d.Stat(p)
	checks["write"] = d.WriteFile(p, []byte("x"), 0o644, Expect{})
	checks["write new"] = d.WriteFile(filepath.Join(root, "sub", "new.txt"), []byte("x"), 0o644, Want(false, nil))
	checks["remove"] = d.RemoveFile(p, Expect{})
	_, checks["openroot"] = d.OpenRoot(filepath.Join(root, "sub"))
	for op, err := range checks {
		if !errors.Is(err, ErrOutside) {
			t.Errorf("%s: err = %v, want ErrOutside", op, err)
		}
	}
	entries, _ := os.ReadDir(outside)
	if len(entries) != 1 {
		t.Fatalf("outside holds %d entries, want 1", len(entries))
	}
	if got, _ := os.ReadFile(filepath.Join(outside, "f.txt")); string(got) != "outside" {
		t.Fatalf("outside file changed: %q", got)
	}
}

// Case-insensitive filesystems make .GIT the same directory as .git.
func TestGitDirDeniedInAnyCase(t *testing.T) {
	root := tempDir(t)
	w, err := New(root, "", nil)
	must(t, err)
	for _, p := range []string{".git/config", ".GIT/config", ".Git/hooks/pre-commit", "sub/.gIt/x"} {
		if _, err := w.Resolve(p, Write); !errors.Is(err, ErrDenied) {
			t.Errorf("%s: err = %v, want ErrDenied", p, err)
		}
	}
	if _, err := w.Resolve(".github/workflows/ci.yml", Write); err != nil {
		t.Errorf(".github is not .git: %v", err)
	}
}
