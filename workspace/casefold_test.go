package workspace

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hostd-dev/hostd/internal/exfattest"
)

// listed is the names dir holds, read from the filesystem (a listing is
// never answered from FUSE's caches).
func listed(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	must(t, osNames{}.list(dir, func(n string) bool { out = append(out, n); return true }))
	slices.Sort(out)
	return out
}

// On a case-insensitive, case-preserving filesystem (exFAT here; APFS and
// NTFS by default) every spelling that opens a file resolves to the name
// as stored: one key for its snapshots, its lock and its review entries,
// and the name the model is shown.
func TestResolveGivesTheStoredNameOnACaseInsensitiveFilesystem(t *testing.T) {
	mnt := exfattest.Mount(t)
	ws := filepath.Join(mnt, "Work")
	must(t, os.MkdirAll(filepath.Join(ws, "Src"), 0o755))
	must(t, os.WriteFile(filepath.Join(ws, "Src", "Foo.go"), []byte("package foo\n"), 0o644))
	nfd := "cafe\u0301.go"
	must(t, os.WriteFile(filepath.Join(ws, nfd), []byte("x\n"), 0o644))

	// The root too is named as stored, however the caller spells it.
	w, err := New(filepath.Join(mnt, "WORK"), "", nil)
	must(t, err)
	if w.Root() != ws {
		t.Fatalf("Root() = %s, want the stored %s", w.Root(), ws)
	}
	want := filepath.Join(ws, "Src", "Foo.go")
	for _, spelling := range []string{"Src/Foo.go", "src/foo.go", "SRC/FOO.GO", "sRc/fOo.Go", filepath.Join(mnt, "work", "src", "foo.go")} {
		p, err := w.Resolve(spelling, Write)
		must(t, err)
		if p.Abs != want || p.Display != "Src/Foo.go" {
			t.Errorf("Resolve(%s) = %s shown as %s, want %s shown as Src/Foo.go", spelling, p.Abs, p.Display, want)
		}
	}
	// exFAT compares names by case only: the decomposed name in another
	// case is the stored one, the composed spelling is another name.
	p, err := w.Resolve("CAFE\u0301.GO", Read)
	must(t, err)
	if p.Display != nfd {
		t.Errorf("the decomposed spelling in upper case resolves to %+q, want the stored %+q", p.Display, nfd)
	}
	p, err = w.Resolve("caf\u00e9.go", Read)
	must(t, err)
	if p.Display != "caf\u00e9.go" {
		t.Errorf("the composed spelling resolves to %+q; exFAT does not fold normalization, so it names no file and keeps its spelling", p.Display)
	}
	if _, err := p.Stat(); !os.IsNotExist(err) {
		t.Errorf("the composed spelling opens something on exFAT: %v", err)
	}
}

// A write through another spelling replaces the stored name: the file
// keeps its name and its case. A new file keeps the spelling given.
func TestWriteThroughAnotherSpellingKeepsTheStoredName(t *testing.T) {
	mnt := exfattest.Mount(t)
	must(t, os.WriteFile(filepath.Join(mnt, "Foo.go"), []byte("old\n"), 0o644))
	w, err := New(mnt, "", nil)
	must(t, err)

	p, err := w.Resolve("foo.go", Write)
	must(t, err)
	must(t, p.WriteFile([]byte("new\n"), 0o644, Want(true, []byte("old\n"))))
	q, err := w.Resolve("FOO.GO", Write)
	must(t, err)
	ds, err := q.Prepare([]byte("newer\n"), 0o644).Place(Want(true, []byte("new\n")))
	must(t, err)
	must(t, ds.Sync())

	n, err := w.Resolve("NewFile.TXT", Write)
	must(t, err)
	must(t, n.WriteFile([]byte("fresh\n"), 0o644, Want(false, nil)))
	// A second new file through another spelling is the first one.
	dup, err := w.Resolve("newfile.txt", Write)
	must(t, err)
	if dup.Abs != n.Abs {
		t.Errorf("newfile.txt resolves to %s, want the stored %s", dup.Abs, n.Abs)
	}

	if got := listed(t, mnt); !slices.Equal(got, []string{"Foo.go", "NewFile.TXT"}) {
		t.Fatalf("the directory holds %q, want [Foo.go NewFile.TXT]: a write renamed a file", got)
	}
	if got, _ := os.ReadFile(filepath.Join(mnt, "Foo.go")); string(got) != "newer\n" {
		t.Fatalf("Foo.go holds %q", got)
	}
}
