package workspace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/internal/testenv"
)

// openTestWalk is a fresh root holding files (name to content; a name
// ending in / is a directory) and a WalkDir of it.
func openTestWalk(t *testing.T, files map[string]string) (*Dir, string, *WalkDir) {
	t.Helper()
	root := testenv.TempDir(t)
	d, err := OpenDir(root)
	must(t, err)
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			must(t, os.MkdirAll(p, 0o755))
			continue
		}
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(content), 0o644))
	}
	w, err := d.OpenWalkDir(root)
	must(t, err)
	t.Cleanup(func() { w.Close() })
	return d, root, w
}

// List gives every entry once, in byte order of names, with its type.
func TestWalkDirLists(t *testing.T) {
	names := map[string]string{"b.txt": "b", "a.txt": "a", "Z.txt": "z", "sub/": "", "é.txt": "e", "sub/inner.txt": "i"}
	_, _, w := openTestWalk(t, names)
	var buf ListBuffer
	got, err := w.List(&buf)
	must(t, err)
	want := []DirEntry{{"Z.txt", 0}, {"a.txt", 0}, {"b.txt", 0}, {"sub", fs.ModeDir}, {"é.txt", 0}}
	if !slices.Equal(got, want) {
		t.Errorf("List = %v, want %v", got, want)
	}

	// The buffer is reused by the next directory and the first listing
	// keeps its names.
	sub, err := w.OpenDir("sub")
	must(t, err)
	defer sub.Close()
	inner, err := sub.List(&buf)
	must(t, err)
	if !slices.Equal(inner, []DirEntry{{"inner.txt", 0}}) || !slices.Equal(got, want) {
		t.Errorf("second List = %v, first now %v", inner, got)
	}
}

// Many entries take more than one read of the directory.
func TestWalkDirListsALargeDirectory(t *testing.T) {
	files := map[string]string{}
	var want []string
	for i := range 1200 { // about three getdents64 buffers
		name := fmt.Sprintf("%s-%04d", strings.Repeat("n", 40), (i*7919)%1200)
		files[name] = ""
		want = append(want, name)
	}
	slices.Sort(want)
	_, _, w := openTestWalk(t, files)
	got, err := w.List(&ListBuffer{})
	must(t, err)
	var names []string
	for _, e := range got {
		names = append(names, e.Name)
	}
	if !slices.Equal(names, want) {
		t.Errorf("listed %d names, want %d", len(names), len(want))
	}
}

// A symbolic link is listed as one and never followed by OpenFile or
// OpenDir, wherever it points.
func TestWalkDirFollowsNoLink(t *testing.T) {
	testenv.SkipWithoutSymlinks(t)
	_, root, w := openTestWalk(t, map[string]string{"a.txt": "a", "sub/": ""})
	must(t, os.Symlink("a.txt", filepath.Join(root, "file-link")))
	must(t, os.Symlink("sub", filepath.Join(root, "dir-link")))
	entries, err := w.List(&ListBuffer{})
	must(t, err)
	types := map[string]fs.FileMode{}
	for _, e := range entries {
		types[e.Name] = e.Type
	}
	if types["file-link"] != fs.ModeSymlink || types["dir-link"] != fs.ModeSymlink {
		t.Errorf("links listed as %v and %v", types["file-link"], types["dir-link"])
	}
	if f, err := w.OpenFile("file-link"); err == nil {
		f.Close()
		t.Error("OpenFile followed a link")
	}
	if d, err := w.OpenDir("dir-link"); err == nil {
		d.Close()
		t.Error("OpenDir followed a link")
	}
	if !w.Has("file-link") || !w.Has("dir-link") || w.Has("missing") {
		t.Error("Has does not see the links as names, or sees a missing name")
	}
}

// OpenFile and OpenDir take one name the directory lists: never a path,
// ".", "..", or a name cut short at a NUL byte; names up to the 255 bytes
// a name may have.
func TestWalkDirOpensOneName(t *testing.T) {
	long := strings.Repeat("n", 255)
	_, _, w := openTestWalk(t, map[string]string{"a": "a", long: "long", "sub/": "", "sub/b": "b"})
	for _, c := range []struct {
		name string
		ok   bool
		bad  bool // refused as not one name, before the file system is asked
	}{
		{"a", true, false}, {long, true, false}, {"missing", false, false}, {long + "n", false, false},
		{"sub/b", false, true}, {"..", false, true}, {".", false, true}, {"", false, true}, {"a\x00b", false, true},
	} {
		f, err := w.OpenFile(c.name)
		if err == nil {
			f.Close()
		}
		if (err == nil) != c.ok || errors.Is(err, ErrBadPath) != c.bad {
			t.Errorf("OpenFile %.20q: error %v; want success %v, a bad name %v", c.name, err, c.ok, c.bad)
		}
	}
	if runtime.GOOS == "windows" {
		for _, name := range []string{`sub\b`, "a:stream"} {
			if _, err := w.OpenFile(name); !errors.Is(err, ErrBadPath) {
				t.Errorf("OpenFile %q: error %v, want ErrBadPath", name, err)
			}
		}
	}
	if d, err := w.OpenDir("a"); err == nil {
		d.Close()
		t.Error("OpenDir opened a regular file")
	}
	if _, err := w.OpenDir(".."); !errors.Is(err, ErrBadPath) {
		t.Errorf("OpenDir ..: %v, want ErrBadPath", err)
	}
	if w.Has("sub/b") || w.Has("..") {
		t.Error("Has answered for a path that is not one name")
	}
}

// A directory replaced by a link to outside the root between its listing
// and its opening is refused, and so is a walk starting below it.
func TestWalkDirRefusesADirectorySwappedForALink(t *testing.T) {
	testenv.SkipWithoutSymlinks(t)
	outside := testenv.TempDir(t)
	must(t, os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("secret"), 0o644))
	d, root, w := openTestWalk(t, map[string]string{"sub/f.txt": "f"})
	entries, err := w.List(&ListBuffer{})
	must(t, err)
	if !slices.Equal(entries, []DirEntry{{"sub", fs.ModeDir}}) {
		t.Fatalf("listed %v", entries)
	}
	must(t, os.Rename(filepath.Join(root, "sub"), filepath.Join(root, "moved")))
	must(t, os.Symlink(outside, filepath.Join(root, "sub")))
	if sub, err := w.OpenDir("sub"); err == nil {
		sub.Close()
		t.Fatal("OpenDir followed a link put in the place of a listed directory")
	}
	if sub, err := d.OpenWalkDir(filepath.Join(root, "sub")); err == nil || !IsEscape(err) {
		if err == nil {
			sub.Close()
		}
		t.Fatalf("OpenWalkDir through a link out of the root: %v, want ErrOutside", err)
	}
	if _, err := d.OpenWalkDir(outside); !errors.Is(err, ErrOutside) {
		t.Errorf("OpenWalkDir of a path outside the root: %v, want ErrOutside", err)
	}
}

// A File reads to its end, knows its size and type, and maps where the
// platform maps; FileOf gives the same of a file opened by Path.Open.
func TestFileReadsStatsAndMaps(t *testing.T) {
	content := strings.Repeat("line of text\n", 1000)
	_, root, w := openTestWalk(t, map[string]string{"f.txt": content})
	walked, err := w.OpenFile("f.txt")
	must(t, err)
	osf, err := os.Open(filepath.Join(root, "f.txt"))
	must(t, err)
	of, err := FileOf(osf)
	must(t, err)
	for name, f := range map[string]File{"OpenFile": walked, "FileOf": of} {
		size, regular, err := f.Stat()
		if err != nil || size != int64(len(content)) || !regular {
			t.Errorf("%s: Stat = %d, %v, %v", name, size, regular, err)
		}
		m, err := f.Map(size)
		switch {
		case errors.Is(err, errors.ErrUnsupported):
		case err != nil:
			t.Errorf("%s: Map: %v", name, err)
		default:
			if string(m) != content {
				t.Errorf("%s: the mapping holds %d bytes unlike the file", name, len(m))
			}
			must(t, Unmap(m))
		}
		got, err := io.ReadAll(f)
		if err != nil || string(got) != content {
			t.Errorf("%s: read %d bytes, %v", name, len(got), err)
		}
		if n, err := f.Read(make([]byte, 10)); n != 0 || err != io.EOF {
			t.Errorf("%s: a read at the end = %d, %v; want 0, EOF", name, n, err)
		}
		must(t, f.Close())
	}
	var zero File
	if _, err := zero.Read(make([]byte, 1)); err == nil {
		t.Error("the zero File reads")
	}
	if _, _, err := zero.Stat(); err == nil || zero.Close() == nil {
		t.Error("the zero File stats or closes")
	}
}
