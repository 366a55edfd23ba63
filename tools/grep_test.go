package tools

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/workspace"
)

// §4.3: count and filesWithMatches mint a usable tag with an empty seen
// set, which is not the unknown set; content mode sees the matched lines.
func TestGrepSeenSets(t *testing.T) {
	e := newProdEnv(t, config.DefaultLimits())
	e.put("f.txt", "alpha\nbeta\nalpha again\n")
	for _, mode := range []string{"filesWithMatches", "count"} {
		e2 := newProdEnv(t, config.DefaultLimits())
		e2.put("f.txt", "alpha\nbeta\nalpha again\n")
		r := e2.grep(fmt.Sprintf(`{"pattern":"alpha","outputMode":%q}`, mode))
		v := e2.head("f.txt")
		if r.Tags["f.txt"] != v.Tag || !v.Seen.Known() || v.Seen.Len() != 0 {
			t.Errorf("%s: tag %s, seen known=%v len=%d; want a tag with a known, empty set", mode, r.Tags["f.txt"], v.Seen.Known(), v.Seen.Len())
		}
	}
	e.grep(`{"pattern":"alpha"}`)
	if got := e.head("f.txt").Seen; !got.Contains(1) || got.Contains(2) || !got.Contains(3) {
		t.Errorf("content mode seen %v, want lines 1 and 3 only", got.Ranges())
	}
}

// The tag grep prints is the tag read would print for the same file.
func TestGrepTagIsReadTag(t *testing.T) {
	e := newProdEnv(t, config.DefaultLimits())
	e.put("w.txt", "\xEF\xBB\xBFkey = 1  \r\nother\r\n")
	g := e.grep(`{"pattern":"key"}`)
	r := e.read(`{"path":"w.txt"}`)
	if g.Tags["w.txt"] != r.Tag || r.Tag != workspace.Sum("key = 1\nother\n").Tag() {
		t.Errorf("grep tag %s, read tag %s", g.Tags["w.txt"], r.Tag)
	}
	if g.Matches[0].Text != "key = 1  " {
		t.Errorf("match text %q: want the normalized line without CR", g.Matches[0].Text)
	}
	if len(e.versions("w.txt")) != 1 {
		t.Error("grep and read of one content made two versions")
	}
}

func TestGrepCaps(t *testing.T) {
	lim := config.DefaultLimits()
	lim.MaxGrepMatches = 3
	e := newProdEnv(t, lim)
	e.put("a.txt", "x\nx\n")
	e.put("b.txt", "x\nx\n")
	e.put("c.txt", "x\n")
	r := e.grep(`{"pattern":"x"}`)
	if len(r.Matches) != 3 || !r.Truncated || !strings.Contains(r.Notice, "limit of 3") {
		t.Errorf("%d matches, truncated %v, notice %q", len(r.Matches), r.Truncated, r.Notice)
	}
	// b.txt showed only its first line: only that line is seen.
	if got := e.head("b.txt").Seen; got.Len() != 1 || !got.Contains(1) {
		t.Errorf("b.txt seen %v", got.Ranges())
	}
	if e.versions("c.txt") != nil {
		t.Error("a file past the cap was recorded")
	}
	r = e.grep(`{"pattern":"x","outputMode":"filesWithMatches","headLimit":2}`)
	if !slices.Equal(r.Files, []string{"a.txt", "b.txt"}) || !r.Truncated {
		t.Errorf("headLimit 2: files %v truncated %v", r.Files, r.Truncated)
	}
	r = e.grep(`{"pattern":"x","outputMode":"count","headLimit":3}`)
	if len(r.Counts) != 3 || r.Truncated || r.Counts["a.txt"] != 2 {
		t.Errorf("headLimit equal to the number of files: counts %v truncated %v", r.Counts, r.Truncated)
	}
}

func TestGrepFileSizeBound(t *testing.T) {
	lim := config.DefaultLimits()
	lim.MaxGrepFileBytes = 10
	e := newProdEnv(t, lim)
	e.put("small.txt", "needle\n")
	e.put("large.txt", "needle in a file over the bound\n")
	r := e.grep(`{"pattern":"needle"}`)
	if !slices.Equal(r.Files, []string{"small.txt"}) {
		t.Errorf("files %v, want the large file skipped", r.Files)
	}
	e.failure("grep", `{"pattern":"needle","path":"large.txt"}`, wire.ToolFileTooLarge)
}

// A walk keeps only what the store can retain: texts of the earliest files
// are given up first, and every file still gets its tag.
func TestGrepRetentionBudget(t *testing.T) {
	lim := config.DefaultLimits()
	lim.MaxRetainedBytesPerSession = 64
	lim.MaxRetainedFileBytes = 30
	e := newProdEnv(t, lim)
	for i := range 6 {
		e.put(fmt.Sprintf("f%d.txt", i), fmt.Sprintf("match %d %s\n", i, strings.Repeat("-", 10)))
	}
	e.put("huge.txt", "match but too long to retain at all\n")
	r := e.grep(`{"pattern":"match"}`)
	if len(r.Tags) != 7 {
		t.Fatalf("tags %v", r.Tags)
	}
	retained := 0
	for _, pv := range e.s.State().Store.Dump() {
		if pv.Versions[0].Retained {
			retained++
		}
	}
	if st := e.s.State().Store.Stats(); st.RetainedBytes > lim.MaxRetainedBytesPerSession || retained != 3 {
		t.Errorf("retained %d bytes in %d files", st.RetainedBytes, retained)
	}
	if e.head("f0.txt").Retained || !e.head("f5.txt").Retained {
		t.Error("the budget kept early texts and dropped late ones")
	}
}

func TestGrepCancelledRecordsNothing(t *testing.T) {
	e := newProdEnv(t, config.DefaultLimits())
	for i := range 20 {
		e.put(fmt.Sprintf("d/f%02d.txt", i), "hit\n")
	}
	r := e.callCtx(newCancelAfter(6), "grep", `{"pattern":"hit"}`).Base()
	if r.OK || r.Error.Code != wire.ToolFailed || !strings.Contains(r.Error.Message, "cancelled") {
		t.Fatalf("cancelled grep: ok=%v %+v", r.OK, r.Error)
	}
	if d := e.s.State().Store.Dump(); len(d) != 0 {
		t.Errorf("a cancelled grep recorded %d paths", len(d))
	}
}

func TestGrepGitignore(t *testing.T) {
	e := newProdEnv(t, config.DefaultLimits())
	files := map[string]string{
		".gitignore":          "/rooted.txt\nlogs/\n*.tmp\n!keep.tmp\n",
		"rooted.txt":          "hit",
		"sub/rooted.txt":      "hit", // "/rooted.txt" anchors at the root only
		"logs/a.txt":          "hit",
		"sub/logs/b.txt":      "hit", // logs/ matches at any depth
		"x.tmp":               "hit",
		"keep.tmp":            "hit",
		"pkg/.gitignore":      "local.txt\n",
		"pkg/local.txt":       "hit",
		"other/local.txt":     "hit", // pkg/.gitignore does not reach here
		"vendor/.gitignore":   "*\n",
		"vendor/lib.txt":      "hit",
		".git/HEAD":           "hit",
		"nested/.git/config":  "hit",
		"nested/visible.txt":  "hit",
		"logs.txt":            "hit", // logs/ is for directories
		"deep/a/b/c/file.txt": "hit",
	}
	for name, data := range files {
		e.put(name, data+"\n")
	}
	want := []string{"deep/a/b/c/file.txt", "keep.tmp", "logs.txt", "nested/visible.txt", "other/local.txt", "sub/rooted.txt"}
	if r := e.grep(`{"pattern":"hit"}`); !slices.Equal(r.Files, want) {
		t.Errorf("files %v\nwant  %v", r.Files, want)
	}
	// Asked for by name, an ignored directory is searched.
	if r := e.grep(`{"pattern":"hit","path":"logs"}`); !slices.Equal(r.Files, []string{"logs/a.txt"}) {
		t.Errorf("explicit ignored directory: %v", r.Files)
	}
	// A nested walk still honours the .gitignore files above it.
	if r := e.grep(`{"pattern":"hit","path":"sub"}`); !slices.Equal(r.Files, []string{"sub/rooted.txt"}) {
		t.Errorf("walk from sub: %v", r.Files)
	}
}

func TestGrepGlob(t *testing.T) {
	e := newProdEnv(t, config.DefaultLimits())
	for _, f := range []string{"a.go", "a_test.go", "src/b.go", "src/x/c.go", "src/x/c.ts", "docs/d.md"} {
		e.put(f, "hit\n")
	}
	tests := []struct {
		glob, path string
		want       []string
	}{
		{"*.go", "", []string{"a.go", "a_test.go", "src/b.go", "src/x/c.go"}},
		{"*_test.go", "", []string{"a_test.go"}},
		{"src/**/*.go", "", []string{"src/b.go", "src/x/c.go"}},
		{"src/*.go", "", []string{"src/b.go"}},
		{"**/x/*", "", []string{"src/x/c.go", "src/x/c.ts"}},
		{"x/*.ts", "src", []string{"src/x/c.ts"}}, // relative to the searched directory
		{"**", "", []string{"a.go", "a_test.go", "docs/d.md", "src/b.go", "src/x/c.go", "src/x/c.ts"}},
		{"*.{go,ts}", "", nil}, // no brace expansion: path.Match rules
	}
	for _, tt := range tests {
		args := fmt.Sprintf(`{"pattern":"hit","glob":%q,"outputMode":"filesWithMatches","path":%q}`, tt.glob, tt.path)
		if got := e.grep(args).Files; !slices.Equal(got, tt.want) && !(len(got) == 0 && tt.want == nil) {
			t.Errorf("glob %q in %q: %v, want %v", tt.glob, tt.path, got, tt.want)
		}
	}
}

func TestGrepSkipsUnreadableAndNonText(t *testing.T) {
	e := newProdEnv(t, config.DefaultLimits())
	e.put("ok.txt", "hit\n")
	e.put("latin1.txt", "hit \xe9t\xe9\n")
	e.put("nul-byte.txt", "hit\x00\n")
	e.put("late-nul.txt", strings.Repeat("x", workspace.NULScanBytes)+"\nhit\x00\n")
	r := e.grep(`{"pattern":"hit"}`)
	if !slices.Equal(r.Files, []string{"late-nul.txt", "ok.txt"}) {
		t.Errorf("files %v: invalid UTF-8 and an early NUL are binary; a NUL past 8 KiB is text", r.Files)
	}
	// Mode 0 makes a file unreadable but to root; on Windows it only makes
	// it read-only.
	if err := os.Chmod(filepath.Join(e.root, "ok.txt"), 0); err == nil && os.Geteuid() != 0 && runtime.GOOS != "windows" {
		if r := e.grep(`{"pattern":"hit"}`); slices.Contains(r.Files, "ok.txt") {
			t.Error("an unreadable file was reported")
		}
	}
}

// 20,000 scattered matches in one file make 20,000 seen ranges: building
// and recording them must not cost the square of that.
func TestGrepManyScatteredMatches(t *testing.T) {
	lim := config.DefaultLimits()
	lim.MaxResultBytes = 4 << 20 // room for all 20,000 in the answer
	e := newProdEnv(t, lim)
	e.put("f.txt", strings.Repeat("hit\nmiss\n", 20000))
	within(t, 10*time.Second, func() {
		r := e.grep(`{"pattern":"hit"}`)
		if len(r.Matches) != 20000 {
			t.Errorf("%d matches", len(r.Matches))
		}
		e.grep(`{"pattern":"hit"}`) // fuses with the first record
	})
	if got := e.head("f.txt").Seen; got.Len() != 20000 || !got.Contains(39999) || got.Contains(2) {
		t.Errorf("seen %d lines", got.Len())
	}
}

// Content mode stops at the output byte limit with a notice, so many long
// matching lines cannot make a result of unbounded size.
func TestGrepOutputByteLimit(t *testing.T) {
	lim := config.DefaultLimits()
	lim.MaxResultBytes = 1000
	e := newProdEnv(t, lim)
	long := strings.Repeat("needle ", 40) // 280 bytes
	e.put("a.txt", strings.Repeat(long+"\n", 5))
	e.put("b.txt", strings.Repeat(long+"\n", 5))
	r := e.grep(map[string]any{"pattern": "needle"})
	if len(r.Matches) != 1 || !r.Truncated || !strings.Contains(r.Notice, "1000-byte output limit") {
		t.Fatalf("%d matches, truncated %v, notice %q", len(r.Matches), r.Truncated, r.Notice)
	}
}

// The whole answer obeys maxResultBytes in every mode, its JSON included
// (a fixed allowance for the notice and the result's own fields): 20,000
// matching files once made answers of 6 to 18 MB.
func TestGrepAnswerObeysTheByteLimitInEveryMode(t *testing.T) {
	lim := config.DefaultLimits()
	lim.MaxResultBytes = 16 << 10
	e := newProdEnv(t, lim)
	name := strings.Repeat("d", 60)
	for i := range 2000 {
		e.put(fmt.Sprintf("%s/file-%05d.txt", name, i), "x <needle> \"quoted\"\n")
	}
	for _, mode := range []string{"content", "filesWithMatches", "count"} {
		out := e.call("grep", map[string]any{"pattern": "needle", "outputMode": mode})
		r := out.(*wire.GrepResult)
		raw, _ := json.Marshal(out)
		if int64(len(raw)) > lim.MaxResultBytes+1024 {
			t.Errorf("%s: the answer is %d bytes, over the %d-byte limit", mode, len(raw), lim.MaxResultBytes)
		}
		if !r.Truncated || len(r.Files) == 0 || !strings.Contains(r.Notice, "output limit") {
			t.Errorf("%s: %d files, truncated %v, notice %q", mode, len(r.Files), r.Truncated, r.Notice)
		}
	}
}

// A file the model names is told apart as not text even when the pattern
// cannot match it: the raw-bytes shortcut is the walk's only.
func TestGrepNamedBinaryFileWithoutAMatch(t *testing.T) {
	e := newProdEnv(t, config.DefaultLimits())
	e.put("nul-byte.txt", "abc\x00def\n")
	e.put("crlf-latin1.txt", "caf\xe9\r\n")
	e.failure("grep", `{"pattern":"zzz","path":"nul-byte.txt"}`, wire.ToolNotText)
	e.failure("grep", `{"pattern":"zzz","path":"crlf-latin1.txt"}`, wire.ToolNotText)
	if r := e.grep(`{"pattern":"zzz"}`); r.FilesSearched != 2 || len(r.Files) != 0 {
		t.Errorf("a walk: %d searched, files %v", r.FilesSearched, r.Files)
	}
}
