package tools

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/session"
	"github.com/hostd-dev/hostd/workspace"
)

// within fails the test if fn does not return in d: a tool that blocks on
// a FIFO must fail the test, not hang it.
func within(t *testing.T, d time.Duration, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("did not return within %v", d)
	}
}

func lines(n int, format string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, format+"\n", i)
	}
	return b.String()
}

func TestSocketIsNotAFile(t *testing.T) {
	e := newProdEnv(t, config.DefaultLimits())
	l, err := net.Listen("unix", filepath.Join(e.root, "sock"))
	if err != nil {
		t.Skipf("cannot make a socket here: %v", err)
	}
	defer l.Close()
	msg := e.failure("read", `{"path":"sock"}`, wire.ToolNotAFile)
	if !strings.Contains(msg, "socket") {
		t.Errorf("message %q does not name the socket", msg)
	}
}

func TestSymlinkOutsideTheWorkspace(t *testing.T) {
	e := newProdEnv(t, config.DefaultLimits())
	outside := filepath.Join(filepath.Dir(e.root), "secret.txt")
	if err := os.WriteFile(outside, []byte("password\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(e.root, "leak.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Dir(e.root), filepath.Join(e.root, "up")); err != nil {
		t.Fatal(err)
	}
	e.put("real.txt", "password inside\n")
	if err := os.Symlink("real.txt", filepath.Join(e.root, "alias.txt")); err != nil {
		t.Fatal(err)
	}

	e.failure("read", `{"path":"leak.txt"}`, wire.ToolOutsideWorkspace)
	e.failure("read", `{"path":"up/secret.txt"}`, wire.ToolOutsideWorkspace)
	e.failure("grep", `{"pattern":"password","path":"leak.txt"}`, wire.ToolOutsideWorkspace)
	r := e.grep(`{"pattern":"password"}`)
	if !slices.Equal(r.Files, []string{"alias.txt", "real.txt"}) {
		t.Errorf("grep files = %v; want the link inside searched and the links out skipped", r.Files)
	}
	// A link inside is one file with its target: one store entry, one tag.
	if r.Tags["alias.txt"] != r.Tags["real.txt"] || len(e.s.State().Store.Dump()) != 1 {
		t.Errorf("alias and target recorded apart: %v", r.Tags)
	}
	if got := e.read(`{"path":"alias.txt"}`); got.Path != "real.txt" {
		t.Errorf("read through a link shows path %q, want the canonical real.txt", got.Path)
	}
}

// §4.4: a file just over 2 MiB is hashed and tagged but not retained.
func TestReadJustOverTheRetentionBound(t *testing.T) {
	lim := config.DefaultLimits()
	e := newProdEnv(t, lim)
	line := strings.Repeat("z", 63) + "\n"
	at := strings.Repeat(line, int(lim.MaxRetainedFileBytes)/len(line))
	e.put("at.txt", at)
	e.put("over.txt", at+"!")
	for _, c := range []struct {
		name     string
		body     string
		retained bool
	}{{"at.txt", at, true}, {"over.txt", at + "!", false}} {
		r := e.read(fmt.Sprintf(`{"path":%q,"offset":32768,"limit":1}`, c.name))
		if r.Tag != workspace.Sum(c.body).Tag() {
			t.Errorf("%s: tag %s, want %s", c.name, r.Tag, workspace.Sum(c.body).Tag())
		}
		v := e.head(c.name)
		if v.Retained != c.retained || (v.Text != "") == !c.retained {
			t.Errorf("%s: retained=%v with %d bytes of text, want retained=%v", c.name, v.Retained, len(v.Text), c.retained)
		}
		if !slices.Equal(v.Seen.Ranges(), []session.Range{{From: 32768, To: 32768}}) {
			t.Errorf("%s: seen %v", c.name, v.Seen.Ranges())
		}
	}
}

func TestReadLimitIsCapped(t *testing.T) {
	lim := config.DefaultLimits()
	lim.MaxReadLimit, lim.DefaultReadLimit = 3, 2
	e := newProdEnv(t, lim)
	e.put("f.txt", lines(10, "l%d"))
	r := e.read(`{"path":"f.txt"}`)
	if r.LineCount != 2 || !r.Truncated {
		t.Errorf("default window: %d lines, truncated %v", r.LineCount, r.Truncated)
	}
	r = e.read(`{"path":"f.txt","offset":2,"limit":50}`)
	if r.LineCount != 3 || !strings.Contains(r.Notice, "capped at 3") || !strings.Contains(r.Notice, "offset=5") {
		t.Errorf("capped window: %d lines, notice %q", r.LineCount, r.Notice)
	}
}

// A changed file is a new head version; the old one stays behind it with
// its seen lines, and the ledger keeps both tags.
func TestReadAfterAnExternalChange(t *testing.T) {
	e := newProdEnv(t, config.DefaultLimits())
	e.put("f.txt", "a\nb\n")
	first := e.read(`{"path":"f.txt"}`).Tag
	e.put("f.txt", "a\nB\n")
	second := e.read(`{"path":"f.txt","limit":1}`).Tag
	vs := e.versions("f.txt")
	if first == second || len(vs) != 2 || vs[0].Tag != second || vs[1].Tag != first {
		t.Fatalf("versions %v after a change", vs)
	}
	if !slices.Equal(vs[0].Seen.Ranges(), []session.Range{{From: 1, To: 1}}) || vs[1].Seen.Len() != 2 {
		t.Errorf("seen sets mixed across versions: %v / %v", vs[0].Seen.Ranges(), vs[1].Seen.Ranges())
	}
}

// Many concurrent reads of one session, each a different window: one tag,
// and the union of every window seen. Run with -race.
func TestConcurrentReadsOfOneSession(t *testing.T) {
	e := newProdEnv(t, config.DefaultLimits())
	e.put("f.txt", lines(400, "line %d"))
	e.put("g.txt", lines(50, "other %d"))
	var wg sync.WaitGroup
	tags := make([]string, 40)
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := e.x.Execute(context.Background(), Request{SessionID: e.s.ID, Tool: "read", Args: []byte(fmt.Sprintf(`{"path":"f.txt","offset":%d,"limit":10}`, i*10+1))})
			if err != nil || !out.Base().OK {
				t.Errorf("read %d: %v %s", i, err, out.Base().Content)
				return
			}
			tags[i] = out.(*wire.ReadResult).Tag
			e.x.Execute(context.Background(), Request{SessionID: e.s.ID, Tool: "grep", Args: []byte(`{"pattern":"other 1"}`)})
		}()
	}
	wg.Wait()
	for _, tag := range tags {
		if tag != tags[0] {
			t.Fatalf("tags differ across concurrent reads: %v", tags)
		}
	}
	if got := e.head("f.txt").Seen.Ranges(); !slices.Equal(got, []session.Range{{From: 1, To: 400}}) {
		t.Errorf("seen = %v, want [[1 400]]", got)
	}
}

// Reads fill the store like any producer: the 65th path evicts the coldest,
// and the ledger still knows the evicted tag (edit-contract §4.5).
func TestReadsRespectThePathBound(t *testing.T) {
	lim := config.DefaultLimits()
	e := newProdEnv(t, lim)
	for i := range lim.MaxPathsPerSession + 1 {
		e.put(fmt.Sprintf("f%02d.txt", i), fmt.Sprintf("file %d\n", i))
	}
	first := e.read(`{"path":"f00.txt"}`).Tag
	for i := 1; i <= lim.MaxPathsPerSession; i++ {
		e.read(fmt.Sprintf(`{"path":"f%02d.txt"}`, i))
	}
	if vs := e.versions("f00.txt"); vs != nil {
		t.Errorf("the coldest path survived the 65th read")
	}
	d := workspace.Sum("file 0\n")
	if known, ok := e.s.State().Store.Minted(filepath.Join(e.root, "f00.txt"), first, d, 1); !known || !ok {
		t.Error("the ledger forgot the evicted path's tag")
	}
}

// cancelAfter is a context whose Err turns to Canceled after n calls, so a
// test can cancel a call in the middle of its work.
type cancelAfter struct {
	context.Context
	n atomic.Int64
}

func newCancelAfter(n int64) *cancelAfter {
	c := &cancelAfter{Context: context.Background()}
	c.n.Store(n)
	return c
}

func (c *cancelAfter) Err() error {
	if c.n.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

func TestReadCancelledRecordsNothing(t *testing.T) {
	e := newProdEnv(t, config.DefaultLimits())
	e.put("big.txt", strings.Repeat(lines(1000, "%d"), 200)) // several chunks
	r := e.callCtx(newCancelAfter(2), "read", `{"path":"big.txt"}`).Base()
	if r.OK || r.Error.Code != wire.ToolFailed || !strings.Contains(r.Error.Message, "cancelled") {
		t.Fatalf("cancelled read: %+v", r.Error)
	}
	if d := e.s.State().Store.Dump(); len(d) != 0 {
		t.Errorf("a cancelled read recorded %d paths", len(d))
	}
}

// TestProducersOnCorpus runs the three producers over real source files:
// the inputs and expected outputs of the TypeScript edit fixtures. Read,
// grep and write must agree with each other and with workspace.Sum on
// every file.
func TestProducersOnCorpus(t *testing.T) {
	fixtures, _ := filepath.Glob(filepath.Join(corpusDir(t, "ts-edit-fixtures/fixtures"), "*"))
	if len(fixtures) == 0 {
		t.Fatal("no fixtures in the shared corpus's ts-edit-fixtures/fixtures")
	}
	e := newProdEnv(t, config.DefaultLimits())
	type file struct{ rel, input, expected string }
	var files []file
	for _, dir := range fixtures {
		inputs, _ := filepath.Glob(filepath.Join(dir, "input", "*"))
		for _, in := range inputs {
			raw, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			exp, err := os.ReadFile(filepath.Join(dir, "expected", filepath.Base(in)))
			if err != nil {
				t.Fatal(err)
			}
			rel := filepath.Base(dir) + "/" + filepath.Base(in)
			e.put(rel, string(raw))
			files = append(files, file{rel, string(raw), string(exp)})
		}
	}
	g := e.grep(`{"pattern":"","outputMode":"filesWithMatches"}`)
	if len(g.Files) != len(files) {
		t.Fatalf("grep listed %d files, want %d", len(g.Files), len(files))
	}
	for _, f := range files {
		text, err := workspace.Decode([]byte(f.input))
		if err != nil {
			t.Fatalf("%s: %v", f.rel, err)
		}
		want := workspace.Sum(text.Body).Tag()
		r := e.read(fmt.Sprintf(`{"path":%q}`, f.rel))
		if r.Tag != want || g.Tags[f.rel] != want {
			t.Errorf("%s: read tag %s, grep tag %s, want %s", f.rel, r.Tag, g.Tags[f.rel], want)
		}
		ls := workspace.Lines(text.Body)
		rows := strings.Split(r.Content, "\n")[1:]
		if r.TotalLines != len(ls) || len(rows) != len(ls) || (len(ls) > 0 && rows[len(rows)-1] != fmt.Sprintf("%d:%s", len(ls), ls[len(ls)-1])) {
			t.Errorf("%s: %d lines shown of %d", f.rel, len(rows), len(ls))
		}
		w := e.write(map[string]string{"path": f.rel, "content": r.Content})
		if got := e.cat(f.rel); got != f.input || w.Tag != want {
			t.Errorf("%s: writing back read's own output did not restore the file (tag %s)", f.rel, w.Tag)
		}
		w = e.write(map[string]string{"path": f.rel, "content": f.expected})
		exp, _ := workspace.Decode([]byte(f.expected))
		if w.Tag != workspace.Sum(exp.Body).Tag() {
			t.Errorf("%s: write tag %s, want %s", f.rel, w.Tag, workspace.Sum(exp.Body).Tag())
		}
	}
}

// A window of long lines stops at the output byte limit; the lines left
// out are not seen and the notice says where to read on.
func TestReadOutputByteLimit(t *testing.T) {
	lim := config.DefaultLimits()
	lim.MaxResultBytes = 1000
	e := newProdEnv(t, lim)
	e.put("a.txt", strings.Repeat(strings.Repeat("y", 300)+"\n", 10))
	r := e.read(map[string]any{"path": "a.txt"})
	if r.LineCount != 4 || !r.Truncated || !strings.Contains(r.Notice, "offset=5") || !strings.Contains(r.Notice, "1000-byte output limit") {
		t.Fatalf("lineCount %d truncated %v notice %q", r.LineCount, r.Truncated, r.Notice)
	}
	if seen := e.head("a.txt").Seen.Ranges(); len(seen) != 1 || seen[0].To != 4 {
		t.Fatalf("seen %v", seen)
	}
}

// A read of the header's spelling of a path says which file it names.
func TestReadOfAHeaderSpelledPathNamesTheFile(t *testing.T) {
	e := newProdEnv(t, config.DefaultLimits())
	e.put("src/main.go", "package main\n")
	msg := e.failure("read", map[string]string{"path": "src/main.go#DBFD"}, wire.ToolNotFound)
	if !strings.Contains(msg, "name the file as src/main.go") {
		t.Fatalf("message %q", msg)
	}
	msg = e.failure("read", map[string]string{"path": "src/other.go#DBFD"}, wire.ToolNotFound)
	if !strings.Contains(msg, "nearest existing directory") {
		t.Fatalf("a missing file whose plain name is missing too: %q", msg)
	}
}
