package grep

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/internal/testenv"
	"github.com/hostd-dev/hostd/workspace"
)

// countingSource counts the calls a search makes on a file.
type countingSource struct {
	source
	reads, stats, maps int
}

func (c *countingSource) Read(p []byte) (int, error) {
	c.reads++
	return c.source.Read(p)
}

func (c *countingSource) Stat() (int64, bool, error) {
	c.stats++
	return c.source.Stat()
}

func (c *countingSource) Map(size int64) ([]byte, error) {
	c.maps++
	return c.source.Map(size)
}

// testOptions are the options the grep tool gives a content-mode search
// under lim.
func testOptions(lim config.Limits) Options {
	return Options{
		Max:             lim.MaxGrepMatches,
		MaxAnswerBytes:  lim.MaxResultBytes,
		MaxFileBytes:    lim.MaxGrepFileBytes,
		RetainFileBytes: lim.MaxRetainedFileBytes,
		RetainBytes:     lim.MaxRetainedBytesPerSession,
		Threads:         lim.GrepThreads,
	}
}

// newTestSearch is a content-mode search for pattern with lim.
func newTestSearch(t *testing.T, pattern string, lim config.Limits) *search {
	t.Helper()
	m, err := Compile(pattern, false)
	if err != nil {
		t.Fatal(err)
	}
	return newSearch(context.Background(), m, testOptions(lim))
}

// searchCounted searches the file name in dir as a walk would offer it and
// returns the result with the calls it made.
func searchCounted(t *testing.T, g *search, dir, name string) (*fileResult, *countingSource) {
	t.Helper()
	d, err := workspace.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	wd, err := d.OpenWalkDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer wd.Close()
	f, err := wd.OpenFile(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	src := &countingSource{source: f}
	var buf []byte
	r := g.search(context.Background(), candidate{dirAbs: dir, dirDisplay: ".", name: name}, src, &buf)
	return &r, src
}

// A file smaller than firstRead costs one read and no stat unless it is
// shown; a larger one is stat'ed for its size before it is read on, and
// not read on when its first bytes are binary; one of mapMin bytes or more
// is mapped after its first read instead of read on.
func TestGrepReadCalls(t *testing.T) {
	dir := testenv.TempDir(t)
	filler := strings.Repeat("filler line of text\n", 10000) // 200 KB
	files := map[string]string{
		"small-miss.txt": "nothing here\n",
		"small-hit.txt":  "a needle\n",
		"crlf-miss.txt":  "\xEF\xBB\xBFnothing\r\nhere\r\n",
		"exact.txt":      strings.Repeat("x", firstRead-1) + "\n",
		"large-miss.txt": filler,
		"large-hit.txt":  filler + "needle\n",
		"large-bin.dat":  "\x00" + filler + "needle\n",
		"huge-miss.txt":  filler + filler,
		"huge-hit.txt":   filler + "a needle\r\n" + filler,
		"huge-bin.dat":   "\x00" + filler + filler,
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g := newTestSearch(t, "needle", config.DefaultLimits())
	// A huge file is mapped after its first read where files map, and
	// read on (in one more read) where they do not.
	hugeReads := 1
	if !mapsFiles(t, filepath.Join(dir, "huge-miss.txt")) {
		hugeReads = 2
	}
	for _, c := range []struct {
		name               string
		reads, stats, maps int
		count              int
		skip               *SkipReason
	}{
		{"small-miss.txt", 1, 0, 0, 0, nil},
		{"small-hit.txt", 1, 1, 0, 1, nil},
		{"crlf-miss.txt", 1, 0, 0, 0, nil},
		{"exact.txt", 2, 1, 0, 0, nil}, // the second read finds the end
		{"large-miss.txt", 2, 1, 0, 0, nil},
		{"large-hit.txt", 2, 1, 0, 1, nil},
		{"large-bin.dat", 1, 1, 0, 0, ptr(NotText)},
		{"huge-miss.txt", hugeReads, 1, 1, 0, nil},
		{"huge-hit.txt", hugeReads, 1, 1, 1, nil},
		{"huge-bin.dat", 1, 1, 0, 0, ptr(NotText)},
	} {
		r, src := searchCounted(t, g, dir, c.name)
		skipOK := (r.skip == nil) == (c.skip == nil) && (r.skip == nil || r.skip.Reason == *c.skip)
		if src.reads != c.reads || src.stats != c.stats || src.maps != c.maps || r.count != c.count || !skipOK || !r.searched {
			t.Errorf("%s: %d reads, %d stats, %d maps, %d matches, skip %v, searched %v; want %d, %d, %d, %d, skip %v, true",
				c.name, src.reads, src.stats, src.maps, r.count, r.skip, r.searched, c.reads, c.stats, c.maps, c.count, c.skip)
		}
		if c.name == "huge-hit.txt" && (len(r.matches) != 1 || r.matches[0].Line != 10001 || r.matches[0].Text != "a needle" || !r.hasText) {
			t.Errorf("huge-hit.txt: matches %+v, text kept %v", r.matches, r.hasText)
		}
	}
}

// FuzzGrepRawBytes: a walked file is searched in its raw bytes before it
// is decoded, and found to match exactly where its decoded text does:
// the lines of a match are the oracle's on the decoded text, whatever the
// BOM and line endings; a file that is not text is never shown.
func FuzzGrepRawBytes(f *testing.F) {
	for _, s := range [][2]string{
		{"needle", "needle\r\n"},
		{"needle", "needle\r\nhay\r\nneedle"},
		{"needle", "\xEF\xBB\xBFneedle first\r\nbeta\r\nneedle again\r\n"},
		{"^needle$", "\xEF\xBB\xBFneedle\r\nneedle \r\n"},
		{`e\r`, "e\r\ne\rx\n"},
		{`a\s+b`, "a\r\nb\na \rb\r\n"},
		{"\ufeffx", "\xEF\xBB\xBFx\n\xEF\xBB\xBFx\r\n"},
		{"needle", "needle \xe9\r\n"},
		{"needle", "needle\x00\r\n"},
		{`(?i)NEEDLE`, "\r\rneedle\r\n"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, raw string) {
		if len(pattern) > 64 || len(raw) > 4096 {
			return
		}
		re, err := regexp.Compile("(?m)" + pattern)
		if err != nil {
			return
		}
		g := newTestSearchOrNil(t, pattern)
		if g == nil {
			return
		}
		dir := testenv.TempDir(t)
		if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte(raw), 0o644); err != nil {
			t.Fatal(err)
		}
		r, _ := searchCounted(t, g, dir, "f.txt")
		text, derr := workspace.Decode([]byte(raw))
		if derr != nil {
			if r.count > 0 && r.skip == nil && r.notText == nil {
				t.Fatalf("%q in %q: a file that is not text shows %d matches", pattern, raw, r.count)
			}
			return
		}
		var got []int
		for _, m := range r.matches {
			got = append(got, m.Line)
		}
		if want := oracleLines(re, text.Body); !slices.Equal(got, want) {
			t.Fatalf("%q in %q: lines %v, oracle %v", pattern, raw, got, want)
		}
	})
}

// newTestSearchOrNil is newTestSearch for a pattern that grep may refuse
// (a newline in it): nil then.
func newTestSearchOrNil(t *testing.T, pattern string) *search {
	if _, err := Compile(pattern, false); err != nil {
		return nil
	}
	lim := config.DefaultLimits()
	lim.MaxGrepMatches, lim.MaxResultBytes = 1<<20, 1<<30 // every line of a fuzzed file
	return newTestSearch(t, pattern, lim)
}

// truncatingSource truncates its file to nothing once it has mapped it,
// as another process may while a search reads the mapping.
type truncatingSource struct {
	source
	path string
}

func (s truncatingSource) Map(size int64) ([]byte, error) {
	m, err := s.source.Map(size)
	if err == nil {
		err = os.Truncate(s.path, 0)
	}
	return m, err
}

// A mapped file truncated while it is searched faults past its new end:
// the search reports it changed and the daemon goes on.
func TestGrepMappedFileTruncated(t *testing.T) {
	dir := testenv.TempDir(t)
	path := filepath.Join(dir, "shrinks.txt")
	if err := os.WriteFile(path, []byte(strings.Repeat("filler line of text\n", 2*mapMin/20)+"needle\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !mapsFiles(t, path) {
		t.Skip("files are read here, never mapped")
	}
	f := openFile(t, path)
	defer f.Close()
	g := newTestSearch(t, "needle", config.DefaultLimits())
	var buf []byte
	r := g.search(context.Background(), candidate{dirAbs: dir, dirDisplay: ".", name: "shrinks.txt"}, truncatingSource{f, path}, &buf)
	if r.skip == nil || r.skip.Reason != Unreadable || !errors.Is(r.skip.Err, errChanged) || r.file != nil {
		t.Errorf("a file truncated under its mapping: skip %v, file %v", r.skip, r.file)
	}
}

func ptr[T any](v T) *T { return &v }

// openFile opens path as a workspace.File.
func openFile(t *testing.T, path string) workspace.File {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	wf, err := workspace.FileOf(f)
	if err != nil {
		t.Fatal(err)
	}
	return wf
}

// mapsFiles reports whether files map into memory here (workspace.File.Map),
// trying it on the file at path.
func mapsFiles(t *testing.T, path string) bool {
	t.Helper()
	f := openFile(t, path)
	defer f.Close()
	m, err := f.Map(1)
	if errors.Is(err, errors.ErrUnsupported) {
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	workspace.Unmap(m)
	return true
}
