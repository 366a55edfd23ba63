package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tree builds a workspace root, a scratch root and two external roots (one
// read-only) under one temp dir and returns the Workspace and the dir.
// The symbolic links are made where links work (linksWork).
func tree(t testing.TB) (*Workspace, string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(tempDir(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"ws/src", "ws/.git/objects", "ws/sub/.git", "scratch", "ext-ro", "ext-rw", "outside"} {
		must(t, os.MkdirAll(filepath.Join(base, d), 0o755))
	}
	for _, f := range []string{"ws/src/a.go", "outside/secret.txt", "ext-ro/lib.txt"} {
		must(t, os.WriteFile(filepath.Join(base, f), []byte("x\n"), 0o644))
	}
	links := map[string]string{
		"ws/out":         "../outside",                   // directory link leaving the workspace
		"ws/secret":      "../outside/secret.txt",        // file link leaving the workspace
		"ws/in":          "src",                          // link staying inside
		"ws/dangling":    "../outside/missing-dir",       // dangling link leaving the workspace
		"ws/dangling-in": "src/not-yet",                  // dangling link staying inside
		"ws/loop-a":      "loop-b",                       // a cycle
		"ws/loop-b":      "loop-a",                       //
		"ws/abs-out":     filepath.Join(base, "outside"), // absolute target
	}
	if linksWork(t) {
		for name, target := range links {
			must(t, os.Symlink(target, filepath.Join(base, name)))
		}
	}
	w, err := New(filepath.Join(base, "ws"), filepath.Join(base, "scratch"), []External{
		{Path: filepath.Join(base, "ext-ro")},
		{Path: filepath.Join(base, "ext-rw"), Writable: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	return w, base
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestResolve(t *testing.T) {
	w, base := tree(t)
	ws := filepath.Join(base, "ws")
	j := filepath.Join
	tests := []struct {
		name    string
		path    string
		access  Access
		abs     string // "" when an error is expected
		display string
		root    RootKind
		err     error
		link    bool // the row needs symbolic links
	}{
		{"relative file", "src/a.go", Read, j(ws, "src/a.go"), "src/a.go", KindWorkspace, nil, false},
		{"dot segments are cleaned", "./src/../src/a.go", Read, j(ws, "src/a.go"), "src/a.go", KindWorkspace, nil, false},
		{"absolute inside", ws + "/src/a.go", Read, j(ws, "src/a.go"), "src/a.go", KindWorkspace, nil, false},
		{"missing file resolves through its parent", "src/new/file.go", Write, j(ws, "src/new/file.go"), "src/new/file.go", KindWorkspace, nil, false},
		{"link inside is resolved to its target", "in/a.go", Read, j(ws, "src/a.go"), "src/a.go", KindWorkspace, nil, true},
		{"dangling link inside resolves to its target", "dangling-in", Write, j(ws, "src/not-yet"), "src/not-yet", KindWorkspace, nil, true},
		{"the root itself", ".", Read, ws, ".", KindWorkspace, nil, false},
		{"scratch root", base + "/scratch/x.txt", Write, j(base, "scratch/x.txt"), j(base, "scratch/x.txt"), KindScratch, nil, false},
		{"external read-only, read", base + "/ext-ro/lib.txt", Read, j(base, "ext-ro/lib.txt"), j(base, "ext-ro/lib.txt"), KindExternal, nil, false},
		{"external read-write, write", base + "/ext-rw/new.txt", Write, j(base, "ext-rw/new.txt"), j(base, "ext-rw/new.txt"), KindExternal, nil, false},

		{"parent escape", "../outside/secret.txt", Read, "", "", "", ErrOutside, false},
		{"absolute outside", base + "/outside/secret.txt", Read, "", "", "", ErrOutside, false},
		{"file link out", "secret", Read, "", "", "", ErrOutside, true},
		{"directory link out", "out/secret.txt", Read, "", "", "", ErrOutside, true},
		{"absolute link out", "abs-out/secret.txt", Read, "", "", "", ErrOutside, true},
		{"write through a directory link out", "out/new.txt", Write, "", "", "", ErrOutside, true},
		{"dangling link out, read", "dangling", Read, "", "", "", ErrOutside, true},
		{"dangling link out, write below it", "dangling/new.txt", Write, "", "", "", ErrOutside, true},
		{"symlink cycle", "loop-a", Read, "", "", "", ErrBadPath, true},
		{"empty path", "", Read, "", "", "", ErrBadPath, false},
		{"blank path", "  ", Read, "", "", "", ErrBadPath, false},
		{"NUL byte", "a\x00b", Read, "", "", "", ErrBadPath, false},
		{"write into .git", ".git/config", Write, "", "", "", ErrDenied, false},
		{"write into a nested .git", "sub/.git/HEAD", Write, "", "", "", ErrDenied, false},
		{"write to a read-only external root", base + "/ext-ro/lib.txt", Write, "", "", "", ErrDenied, false},
	}
	links := linksWork(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.link && !links {
				needLinks(t)
			}
			done := make(chan struct{})
			var got Path
			var err error
			go func() {
				defer close(done)
				got, err = w.Resolve(tt.path, tt.access)
			}()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("Resolve did not return")
			}
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("Resolve(%q) error = %v, want %v", tt.path, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Resolve(%q): %v", tt.path, err)
			}
			if got.Abs != tt.abs || got.Display != tt.display || got.Root != tt.root {
				t.Errorf("Resolve(%q) = %+v, want abs=%s display=%s root=%s", tt.path, got, tt.abs, tt.display, tt.root)
			}
		})
	}
}

func TestResolveReadOfGitIsAllowedButNotWritable(t *testing.T) {
	w, _ := tree(t)
	p, err := w.Resolve(".git/objects", Read)
	if err != nil {
		t.Fatal(err)
	}
	if p.Writable {
		t.Error("a path inside .git reports Writable")
	}
}

func TestNewRejectsBadRoots(t *testing.T) {
	dir := tempDir(t)
	file := filepath.Join(dir, "f")
	must(t, os.WriteFile(file, nil, 0o644))
	for _, root := range []string{"", "relative/dir", filepath.Join(dir, "missing"), file} {
		if _, err := New(root, "", nil); !errors.Is(err, ErrInvalid) {
			t.Errorf("New(%q) error = %v, want ErrInvalid", root, err)
		}
	}
}

func TestRootsAreCanonical(t *testing.T) {
	needLinks(t)
	dir, err := filepath.EvalSymlinks(tempDir(t))
	must(t, err)
	must(t, os.Mkdir(filepath.Join(dir, "real"), 0o755))
	must(t, os.Symlink("real", filepath.Join(dir, "alias")))
	w, err := New(filepath.Join(dir, "alias"), "", nil)
	must(t, err)
	if w.Root() != filepath.Join(dir, "real") {
		t.Errorf("Root() = %s, want the link's target", w.Root())
	}
	// A path spelled through the alias and through the target is one key.
	a, err := w.Resolve(filepath.Join(dir, "alias", "x"), Read)
	must(t, err)
	b, err := w.Resolve("x", Read)
	must(t, err)
	if a.Abs != b.Abs {
		t.Errorf("two spellings resolve to %s and %s", a.Abs, b.Abs)
	}
}

// FuzzBelowRootResolvesAsFromSlash: for any path under the fixture's
// directory, resolution below its root gives what resolution from "/"
// gives (TestBelowRootResolvesAsFromSlash is the table of it).
func FuzzBelowRootResolvesAsFromSlash(f *testing.F) {
	w, base := tree(f)
	f.Cleanup(w.Close)
	for _, seed := range []string{"ws/src/a.go", "ws/in/a.go", "ws/out/secret.txt", "ws/dangling-in/x", "ws/loop-a/b", "ws/.git/objects/x", "ws/src/../in/nope", "scratch/new.txt", "ws/src/a.go/x", "ext-ro/lib.txt"} {
		f.Add(seed)
	}
	fromSlash := &Workspace{}
	f.Fuzz(func(t *testing.T, rel string) {
		if strings.ContainsRune(rel, 0) || filepath.IsAbs(rel) {
			t.Skip()
		}
		p := filepath.Join(base, rel)
		if !within(base, p) {
			t.Skip()
		}
		got, gotErr := w.canonicalPath(p)
		want, wantErr := fromSlash.canonicalPath(p)
		if got != want || (gotErr == nil) != (wantErr == nil) {
			t.Errorf("%q: below the root %q (%v), from / %q (%v)", rel, got, gotErr, want, wantErr)
		}
	})
}

// Resolution below a root (belowRoot: only the elements under the root
// are looked at) gives what resolution from "/" gives, for paths through
// files, directories, links in and out, dangling links, cycles, .git and
// names that do not exist.
func TestBelowRootResolvesAsFromSlash(t *testing.T) {
	w, base := tree(t)
	defer w.Close()
	fromSlash := &Workspace{} // no roots: every path is resolved from "/"
	names := []string{"src", "a.go", "in", "out", "secret", "dangling", "dangling-in", "loop-a", ".git", "objects", "sub", "nope", ".."}
	var paths []string
	for _, a := range names {
		paths = append(paths, a)
		for _, b := range names {
			paths = append(paths, filepath.Join(a, b))
			for _, c := range []string{"a.go", "nope", "x.txt"} {
				paths = append(paths, filepath.Join(a, b, c))
			}
		}
	}
	fast := 0
	for _, rel := range paths {
		p := filepath.Join(base, "ws", rel)
		got, gotErr := w.canonicalPath(p)
		want, wantErr := fromSlash.canonicalPath(p)
		if got != want || (gotErr == nil) != (wantErr == nil) {
			t.Errorf("%s: below the root %q (%v), from / %q (%v)", rel, got, gotErr, want, wantErr)
		}
		if _, _, ok := w.belowRoot(p); ok {
			fast++
		}
	}
	if fast == 0 && !windowsRules {
		t.Error("no path was resolved below its root")
	}
}
