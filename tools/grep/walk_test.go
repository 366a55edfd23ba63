package grep

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/internal/testenv"
	"github.com/hostd-dev/hostd/workspace"
)

// testTree is a workspace holding files (path to content, '/'-separated),
// with git's user configuration out of the way.
type testTree struct {
	t    *testing.T
	root string
	ws   *workspace.Workspace
}

func newTestTree(t *testing.T, files map[string]string) *testTree {
	t.Helper()
	home := testenv.TempDir(t)
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", "")
	root := testenv.TempDir(t)
	tr := &testTree{t: t, root: root}
	for name, content := range files {
		tr.put(name, content)
	}
	ws, err := workspace.New(root, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	tr.ws = ws
	return tr
}

func (tr *testTree) put(name, content string) {
	tr.t.Helper()
	p := filepath.Join(tr.root, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tr.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		tr.t.Fatal(err)
	}
}

// files searches the directory dir (relative to the root) for pattern in
// filesWithMatches mode with opt's threads and glob, and returns the files
// shown.
func (tr *testTree) files(dir, pattern string, threads int, glob string) []string {
	tr.t.Helper()
	r := tr.search(dir, pattern, func(o *Options) {
		o.Mode, o.Threads = FilesWithMatches, threads
		g, err := ParseGlob(glob)
		if err != nil {
			tr.t.Fatal(err)
		}
		o.Glob = g
	})
	var out []string
	for _, f := range r.Files {
		out = append(out, f.Display)
	}
	return out
}

func (tr *testTree) search(dir, pattern string, set func(*Options)) *Result {
	tr.t.Helper()
	p, err := tr.ws.Resolve(dir, workspace.Read)
	if err != nil {
		tr.t.Fatal(err)
	}
	m, err := Compile(pattern, false)
	if err != nil {
		tr.t.Fatal(err)
	}
	opt := testOptions(config.DefaultLimits())
	set(&opt)
	r, err := SearchDir(context.Background(), tr.ws, p, m, opt)
	if err != nil {
		tr.t.Fatal(err)
	}
	return r
}

// A directory search visits files depth-first in byte order of names,
// leaves out .git and what .gitignore files ignore (the ones above the
// searched directory too), applies the glob, and gives the same answer
// on one goroutine and on several.
func TestSearchDirWalk(t *testing.T) {
	tr := newTestTree(t, map[string]string{
		".gitignore":       "*.log\nbuild/\n",
		"a.txt":            "hit\n",
		"B.txt":            "hit\n",
		"x.log":            "hit\n",
		"build/out.txt":    "hit\n",
		"src/.gitignore":   "gen.go\n",
		"src/gen.go":       "hit\n",
		"src/main.go":      "hit\n",
		"src/sub/deep.go":  "hit\n",
		"src/sub/miss.go":  "nothing\n",
		".git/config":      "hit\n",
		"z/nested/keep.md": "hit\n",
	})
	for _, threads := range []int{1, 3} {
		for _, c := range []struct {
			dir, glob string
			want      []string
		}{
			{".", "", []string{"B.txt", "a.txt", "src/main.go", "src/sub/deep.go", "z/nested/keep.md"}},
			{"src", "", []string{"src/main.go", "src/sub/deep.go"}},
			{"build", "", []string{"build/out.txt"}}, // an ignored directory named is searched
			{".", "*.go", []string{"src/main.go", "src/sub/deep.go"}},
			{".", "src/**/*.go", []string{"src/main.go", "src/sub/deep.go"}},
			{"src", "sub/*", []string{"src/sub/deep.go"}}, // relative to the searched directory
		} {
			if got := tr.files(c.dir, "hit", threads, c.glob); !slices.Equal(got, c.want) {
				t.Errorf("%d threads, %s, glob %q: %v, want %v", threads, c.dir, c.glob, got, c.want)
			}
		}
	}
	// Each file's canonical path is the one the workspace resolves its
	// displayed path to: the snapshot store's key for it.
	for _, f := range tr.search(".", "hit", func(*Options) {}).Files {
		if p, err := tr.ws.Resolve(f.Display, workspace.Read); err != nil || p.Abs != f.Abs {
			t.Errorf("%s: canonical path %q, the workspace resolves it to %q (%v)", f.Display, f.Abs, p.Abs, err)
		}
	}
	// A root outside the workspace is displayed as canonical paths.
	ext := testenv.TempDir(t)
	if err := os.MkdirAll(filepath.Join(ext, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ext, "d", "e.txt"), []byte("hit\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New(tr.root, "", []workspace.External{{Path: ext}})
	if err != nil {
		t.Fatal(err)
	}
	tr.ws = ws
	want := []string{filepath.Join(ext, "d", "e.txt")}
	for _, threads := range []int{1, 3} {
		if got := tr.files(ext, "hit", threads, ""); !slices.Equal(got, want) {
			t.Errorf("%d threads, an external root: %v, want %v", threads, got, want)
		}
	}
}

// A symlinked file is searched when it resolves inside the roots, under
// the link's name and its target's canonical path; a link out of the roots
// and a symlinked directory are not followed.
func TestSearchDirSymlinks(t *testing.T) {
	testenv.SkipWithoutSymlinks(t)
	outside := testenv.TempDir(t)
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("hit\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tr := newTestTree(t, map[string]string{"a/target.txt": "hit\n", "dir/inner.txt": "hit\n"})
	for link, target := range map[string]string{"link.txt": filepath.Join("a", "target.txt"), "out.txt": filepath.Join(outside, "secret.txt"), "dirlink": "dir"} {
		if err := os.Symlink(target, filepath.Join(tr.root, link)); err != nil {
			t.Fatal(err)
		}
	}
	r := tr.search(".", "hit", func(*Options) {})
	var got []string
	for _, f := range r.Files {
		got = append(got, f.Display+" "+f.Abs)
	}
	want := []string{
		"a/target.txt " + filepath.Join(tr.root, "a", "target.txt"),
		"dir/inner.txt " + filepath.Join(tr.root, "dir", "inner.txt"),
		"link.txt " + filepath.Join(tr.root, "a", "target.txt"),
	}
	if !slices.Equal(got, want) {
		t.Errorf("files %q\nwant  %q", got, want)
	}
}

// Content mode shows each match with its line, clipped as Options.Clip
// says, and stops at Max with the result truncated; a file's text is kept
// only within the retention bounds.
func TestSearchDirBounds(t *testing.T) {
	tr := newTestTree(t, map[string]string{"a.txt": "hit one\nmiss\nhit two\n", "b.txt": "hit " + strings.Repeat("x", 50) + "\n", "c.txt": "hit\n"})
	r := tr.search(".", "hit", func(o *Options) {
		o.Max = 3
		o.Clip = func(line string) (string, bool) {
			if len(line) > 10 {
				return line[:10], true
			}
			return line, false
		}
		o.RetainFileBytes, o.RetainBytes = 30, 30
	})
	if len(r.Files) != 2 || !r.Truncated || r.OverBytes || r.Searched != 3 {
		t.Fatalf("%d files, truncated %v, over bytes %v, %d searched", len(r.Files), r.Truncated, r.OverBytes, r.Searched)
	}
	a, b := r.Files[0], r.Files[1]
	if !slices.Equal(a.Matches, []Match{{1, "hit one", false}, {3, "hit two", false}}) || a.Count != 2 || a.Lines != 3 {
		t.Errorf("a.txt: %+v", a)
	}
	if !slices.Equal(b.Matches, []Match{{1, "hit xxxxxx", true}}) || b.HasText {
		t.Errorf("b.txt: matches %+v, text kept %v (it is over RetainFileBytes)", b.Matches, b.HasText)
	}
	if !a.HasText || a.Text != "hit one\nmiss\nhit two\n" || a.Digest != workspace.Sum(a.Text) {
		t.Errorf("a.txt: text %q kept %v", a.Text, a.HasText)
	}
}

// A search that stops early, at its limit or cancelled, leaves no
// goroutine behind.
func TestSearchDirStopsCleanly(t *testing.T) {
	files := map[string]string{}
	for i := range 300 {
		files[fmt.Sprintf("d%d/e%d/f%03d.txt", i%7, i%4, i)] = "hit\nhit\n"
	}
	tr := newTestTree(t, files)
	p, _ := tr.ws.Resolve(".", workspace.Read)
	m, _ := Compile("hit", false)
	opt := testOptions(config.DefaultLimits())
	opt.Threads = 4
	goroutines := runtime.NumGoroutine()
	for range 5 {
		o := opt
		o.Max = 3
		if r, err := SearchDir(context.Background(), tr.ws, p, m, o); err != nil || len(r.Files) != 2 || !r.Truncated {
			t.Fatalf("Max 3: %v, %+v", err, r)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := SearchDir(ctx, tr.ws, p, m, opt); err == nil {
			t.Fatal("a search with a cancelled context succeeded")
		}
	}
	testenv.Poll(5*time.Second, func() bool { return runtime.NumGoroutine() <= goroutines })
	if n := runtime.NumGoroutine(); n > goroutines {
		t.Errorf("%d goroutines after the searches, %d before", n, goroutines)
	}
}

// While one worker searches a slow file, the others claim no more than
// the window of grepInFlight files past it: the results waiting for take
// stay bounded however far the walk could run ahead.
func TestPoolWindow(t *testing.T) {
	files := map[string]string{
		// No prefilter for [a-z][0-9]: the regexp runs over all 8 MB of
		// the first file, for tens of milliseconds.
		"a/slow.txt": strings.Repeat("abc def ghi jkl mno pqr stu\n", 300000),
	}
	for i := range 400 {
		files[fmt.Sprintf("b/d%03d/f.txt", i)] = "no match here\n"
	}
	tr := newTestTree(t, files)
	peak := 0
	testHookClaimed = func(n int) { peak = max(peak, n) }
	defer func() { testHookClaimed = nil }()
	r := tr.search(".", "[a-z][0-9]", func(o *Options) { o.Threads = 4 })
	if r.Searched != 401 {
		t.Errorf("%d files searched, want 401", r.Searched)
	}
	if peak > grepInFlight || peak < grepInFlight/2 {
		t.Errorf("at most %d files were in flight; want the window filled, and never past %d", peak, grepInFlight)
	}
}
