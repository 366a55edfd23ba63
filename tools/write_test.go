package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/session"
	"github.com/hostd-dev/hostd/workspace"
	"github.com/hostd-dev/hostd/workspace/textenc"
)

func TestStripPasted(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"header and numbered rows", "[a.go#1A2B]\n1:package a\n2:\n3:func A() {}\n", "package a\n\nfunc A() {}\n"},
		{"numbered rows from an offset get a final newline", "41:x\n42:y", "x\ny\n"},
		{"header only", "[src/a.go#FFFF]\npackage a\n", "package a\n"},
		{"header and one numbered row", "[a#0000]\n7:only\n", "only\n"},
		{"one numbered line alone is content", "8080:80", "8080:80"},
		{"gap in the numbers", "1:a\n3:b\n", "1:a\n3:b\n"},
		{"descending numbers", "2:a\n1:b\n", "2:a\n1:b\n"},
		{"one row without a number", "1:a\nb\n2:c\n", "1:a\nb\n2:c\n"},
		{"lower-case tag is not a header", "[a.go#1a2b]\nx\n", "[a.go#1a2b]\nx\n"},
		{"header needs the whole first line", "[a.go#1A2B] trailing words\nx\n", "[a.go#1A2B] trailing words\nx\n"},
		{"header not first", "x\n[a.go#1A2B]\n", "x\n[a.go#1A2B]\n"},
		{"a colon later in the line stays", "1:a:b\n2:c\n", "a:b\nc\n"},
		{"empty", "", ""},
		{"header alone", "[a.go#1A2B]\n", ""},
		{"read's no-newline marker ends the file without one", "[a#0000]\n1:a\n2:b\n\\ No newline at end of file\n", "a\nb"},
		{"the marker without numbered rows is content", "a\n\\ No newline at end of file\n", "a\n\\ No newline at end of file\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := stripPasted(tt.in); got != tt.want {
				t.Errorf("stripPasted(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// An existing text file keeps its BOM and dominant line ending whatever
// the content brings; a new file keeps the content's own.
func TestWriteKeepsBOMAndLineEndings(t *testing.T) {
	tests := []struct {
		name     string
		old      *string
		content  string
		want     string
		wantLine int
	}{
		{"CRLF file, LF content", ptr("a\r\nb\r\n"), "x\ny\n", "x\r\ny\r\n", 2},
		{"LF file, CRLF content", ptr("a\nb\n"), "x\r\ny\r\n", "x\ny\n", 2},
		{"BOM file, content without BOM", ptr("\xEF\xBB\xBFa\n"), "b\n", "\xEF\xBB\xBFb\n", 1},
		{"plain file, content with BOM", ptr("a\n"), "\xEF\xBB\xBFb\n", "b\n", 1},
		{"BOM+CRLF file, no final newline", ptr("\xEF\xBB\xBFa\r\nb\r\n"), "x\ny", "\xEF\xBB\xBFx\r\ny", 2},
		{"new file keeps the content's CRLF and BOM", nil, "\xEF\xBB\xBFx\r\ny\r\n", "\xEF\xBB\xBFx\r\ny\r\n", 2},
		{"binary file replaced by the content as given", ptr("\x00\x01\x02"), "text\r\n", "text\r\n", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newProdEnv(t, config.DefaultLimits())
			if tt.old != nil {
				e.put("f.txt", *tt.old)
			}
			r := e.write(map[string]string{"path": "f.txt", "content": tt.content})
			if got := e.cat("f.txt"); got != tt.want {
				t.Errorf("on disk %q, want %q", got, tt.want)
			}
			if r.Created != (tt.old == nil) || r.Bytes != int64(len(tt.want)) {
				t.Errorf("created %v bytes %d", r.Created, r.Bytes)
			}
			text, _ := workspace.Decode([]byte(tt.want))
			if r.Tag != workspace.Sum(text.Body).Tag() {
				t.Errorf("tag %s is not the tag of what landed", r.Tag)
			}
			v := e.head("f.txt")
			if !slices.Equal(v.Seen.Ranges(), []session.Range{{From: 1, To: tt.wantLine}}) || v.Text != text.Body {
				t.Errorf("recorded seen %v text %q; want every line of what landed", v.Seen.Ranges(), v.Text)
			}
		})
	}
}

func ptr(s string) *string { return &s }

// A whole-file write gives every line one ending; when the file or the
// content mixed LF and CRLF, a warning says so instead of doing it
// silently.
func TestWriteWarnsWhenMixedEndingsAreUnified(t *testing.T) {
	e := newProdEnv(t, config.DefaultLimits())
	e.put("f.txt", "a\r\nb\nc\r\n")
	r := e.write(map[string]string{"path": "f.txt", "content": "x\ny\nz\n"})
	if got := e.cat("f.txt"); got != "x\r\ny\r\nz\r\n" {
		t.Fatalf("on disk %q", got)
	}
	if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "1 line ended with LF") || !strings.Contains(r.Warnings[0], "use edit") {
		t.Fatalf("warnings %q", r.Warnings)
	}
	r = e.write(map[string]string{"path": "g.txt", "content": "x\ny\r\nz\n"})
	if got := e.cat("g.txt"); got != "x\ny\nz\n" || len(r.Warnings) != 1 || !strings.HasPrefix(r.Warnings[0], "content mixed") {
		t.Fatalf("on disk %q, warnings %q", got, r.Warnings)
	}
	r = e.write(map[string]string{"path": "h.txt", "content": "x\r\ny\r\n"})
	if len(r.Warnings) != 0 {
		t.Fatalf("a uniform file warned: %q", r.Warnings)
	}
}

func TestWritePreservesMode(t *testing.T) {
	e := newProdEnv(t, config.DefaultLimits())
	p := e.put("run.sh", "#!/bin/sh\n")
	if err := os.Chmod(p, 0o750); err != nil {
		t.Fatal(err)
	}
	e.write(`{"path":"run.sh","content":"#!/bin/sh\necho hi\n"}`)
	if info, _ := os.Stat(p); info.Mode().Perm() != 0o750 {
		t.Errorf("mode %v, want 0750", info.Mode().Perm())
	}
	e.write(`{"path":"new.txt","content":"x"}`)
	if info, _ := os.Stat(filepath.Join(e.root, "new.txt")); info.Mode().Perm() != newFilePerm {
		t.Errorf("new file mode %v", info.Mode().Perm())
	}
}

func TestWriteSizeBound(t *testing.T) {
	lim := config.DefaultLimits()
	lim.MaxWriteBytes = 8
	e := newProdEnv(t, lim)
	e.failure("write", `{"path":"a.txt","content":"123456789"}`, wire.ToolFileTooLarge)
	// CRLF restoration may push content over the bound.
	e.put("crlf.txt", "a\r\nb\r\n")
	e.failure("write", `{"path":"crlf.txt","content":"1\n2\n3\n4\n"}`, wire.ToolFileTooLarge)
	if got := e.cat("crlf.txt"); got != "a\r\nb\r\n" {
		t.Errorf("file changed by a refused write: %q", got)
	}
	e.write(`{"path":"a.txt","content":"12345678"}`)
}

func TestWriteDenied(t *testing.T) {
	e := newProdEnv(t, config.DefaultLimits())
	e.put(".git/HEAD", "ref\n")
	outside := filepath.Join(filepath.Dir(e.root), "outside")
	os.Mkdir(outside, 0o755)
	os.Symlink(outside, filepath.Join(e.root, "out"))
	e.failure("write", `{"path":".git/HEAD","content":"x"}`, wire.ToolDenied)
	e.failure("write", `{"path":"sub/.git/objects/x","content":"x"}`, wire.ToolDenied)
	e.failure("write", `{"path":"out/x.txt","content":"x"}`, wire.ToolOutsideWorkspace)
	if _, err := os.Stat(filepath.Join(outside, "x.txt")); err == nil {
		t.Error("a write escaped through a symlinked directory")
	}
	if got := e.cat(".git/HEAD"); got != "ref\n" {
		t.Errorf(".git/HEAD = %q", got)
	}

	// A read-only external root.
	ext := filepath.Join(filepath.Dir(e.root), "ext")
	os.Mkdir(ext, 0o755)
	ws, err := workspace.New(e.root, "", []workspace.External{{Path: ext}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := e.m.Create("ro", ws)
	if err != nil {
		t.Fatal(err)
	}
	e.s = s
	e.failure("write", fmt.Sprintf(`{"path":%q,"content":"x"}`, filepath.Join(ext, "a.txt")), wire.ToolDenied)
}

// §5.4: when the bytes on disk differ from the bytes written, the tag is
// minted from what is on disk, a one-line warning says so, and only the
// lines the session wrote and still finds there count as seen.
func TestWriteDrift(t *testing.T) {
	e := newProdEnv(t, config.DefaultLimits())
	c := &Call{Session: e.s, State: e.s.State(), Limits: e.lim}
	p, err := e.s.State().Workspace.Resolve("f.go", workspace.Write)
	if err != nil {
		t.Fatal(err)
	}
	body := "package f\nfunc F(){\nreturn\n}\n"
	landed := []byte("package f\n\nfunc F() {\n\treturn\n}\n") // a formatter's work
	r := recordLanded(c, p, body, []byte(body), landed)
	if r.Tag != workspace.Sum(string(landed)).Tag() {
		t.Errorf("tag %s, want the tag of the landed bytes", r.Tag)
	}
	if len(r.Warnings) != 1 || strings.Contains(r.Warnings[0], "\n") {
		t.Errorf("warnings %q, want one line", r.Warnings)
	}
	v := e.head("f.go")
	if v.Text != string(landed) {
		t.Errorf("recorded %q, want the landed text", v.Text)
	}
	// Line 1 and the last line are the session's own; the rest changed.
	if got := v.Seen.Ranges(); !slices.Equal(got, []session.Range{{From: 1, To: 1}, {From: 5, To: 5}}) {
		t.Errorf("seen %v", got)
	}

	// Without drift: every line, no warning.
	r = recordLanded(c, p, body, []byte(body), []byte(body))
	if len(r.Warnings) != 0 || r.Tag != workspace.Sum(body).Tag() {
		t.Errorf("clean write: warnings %q tag %q", r.Warnings, r.Tag)
	}
	if got := e.head("f.go").Seen.Ranges(); !slices.Equal(got, []session.Range{{From: 1, To: 4}}) {
		t.Errorf("seen %v", got)
	}
}

// write holds the session's mutation lock for the whole call (§13.3).
func TestWriteHoldsTheMutationLock(t *testing.T) {
	e := newProdEnv(t, config.DefaultLimits())
	unlock := e.s.LockMutations()
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.write(`{"path":"a.txt","content":"x\n"}`)
	}()
	select {
	case <-done:
		t.Fatal("write ran while another mutation held the lock")
	case <-time.After(100 * time.Millisecond):
	}
	if _, err := os.Stat(filepath.Join(e.root, "a.txt")); err == nil {
		t.Fatal("the file was written before the lock was free")
	}
	unlock()
	within(t, 5*time.Second, func() { <-done })
}

// Concurrent writes of one path serialize: the file is one of the contents
// and the store's head names exactly what is on disk.
func TestConcurrentWrites(t *testing.T) {
	e := newProdEnv(t, config.DefaultLimits())
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := e.x.Execute(t.Context(), Request{SessionID: e.s.ID, Tool: "write", Args: []byte(fmt.Sprintf(`{"path":"f.txt","content":"writer %d\n"}`, i))})
			if err != nil || !out.Base().OK {
				t.Errorf("write %d failed", i)
			}
		}()
	}
	wg.Wait()
	disk := e.cat("f.txt")
	if !strings.HasPrefix(disk, "writer ") || e.head("f.txt").Text != disk {
		t.Errorf("disk %q, store head %q", disk, e.head("f.txt").Text)
	}
}

// Write takes no tag: a path spelled like the header of an existing file
// is refused rather than creating a second file beside it.
func TestWriteRefusesAHeaderSpelledPath(t *testing.T) {
	e := newProdEnv(t, config.DefaultLimits())
	e.put("main.go", "package main\n")
	msg := e.failure("write", map[string]string{"path": "main.go#DBFD", "content": "package other\n"}, wire.ToolInvalidArgument)
	if !strings.Contains(msg, "write main.go") {
		t.Fatalf("message %q does not name the path to write", msg)
	}
	if _, err := os.Stat(filepath.Join(e.root, "main.go#DBFD")); !os.IsNotExist(err) {
		t.Fatalf("a file named like the header was created: %v", err)
	}
	if got := e.cat("main.go"); got != "package main\n" {
		t.Fatalf("main.go is %q", got)
	}
	// A file that really has such a name is written as usual, and so is a
	// new one when nothing is named like the part before the '#'.
	e.put("notes#BEEF", "x\n")
	for _, path := range []string{"notes#BEEF", "draft#C0DE", "main.go#later"} {
		if r := e.write(map[string]string{"path": path, "content": "y\n"}); !r.OK {
			t.Fatalf("%s: %+v", path, r.Error)
		}
		if got := e.cat(path); got != "y\n" {
			t.Fatalf("%s is %q", path, got)
		}
	}
}

// The refusal of content over the write limit gives advice that works:
// the content split into the files it names, each written whole,
// succeeds; so does the one write once the limit is raised as it says.
// Content that grows past the limit as it is encoded for its file
// (UTF-16, CRLF) is split by the same advice, sized in the content's
// own bytes.
func TestWriteOverTheLimitAdviceWorks(t *testing.T) {
	advice := regexp.MustCompile(`split the content into (\d+) or more files of at most (\d+) bytes each`)
	// follow writes the parts of content to name.1, name.2, ..., each
	// first put as seed (a file of the same encoding and line endings)
	// unless seed is "".
	follow := func(t *testing.T, e *prodEnv, msg, content, name, seed string) {
		t.Helper()
		m := advice.FindStringSubmatch(msg)
		if m == nil || strings.Contains(msg, "edit (PUT") {
			t.Fatalf("no advice to split the content: %s", msg)
		}
		files, _ := strconv.Atoi(m[1])
		per, _ := strconv.Atoi(m[2])
		var parts []string
		for rest := content; rest != ""; {
			cut := strings.LastIndexByte(rest[:min(per, len(rest))], '\n') + 1
			if len(rest) <= per {
				cut = len(rest)
			}
			if cut == 0 {
				t.Fatalf("a line of the content is longer than %d bytes", per)
			}
			parts = append(parts, rest[:cut])
			rest = rest[cut:]
		}
		if len(parts) < files {
			t.Errorf("the content fits in %d files, the refusal says %d or more", len(parts), files)
		}
		for i, part := range parts {
			p := fmt.Sprintf("%s.%d", name, i+1)
			if seed != "" {
				e.put(p, seed)
			}
			e.write(map[string]any{"path": p, "content": part})
			if got := e.cat(p); len(got) > int(e.lim.MaxWriteBytes) {
				t.Errorf("%s is %d bytes, over the limit", p, len(got))
			}
		}
	}
	content := strings.Repeat("0123456789abcdefghijklmnopqrstuvwxyz\n", 70) // 2590 bytes
	lim := config.DefaultLimits()
	lim.MaxWriteBytes = 1000
	e := newProdEnv(t, lim)
	msg := e.failure("write", map[string]any{"path": "big.txt", "content": content}, wire.ToolFileTooLarge)
	follow(t, e, msg, content, "big.txt", "")
	if !strings.Contains(msg, "limits.maxWriteBytes") {
		t.Errorf("the refusal does not name the limit's setting: %s", msg)
	}
	lim.MaxWriteBytes = int64(len(content))
	newProdEnv(t, lim).write(map[string]any{"path": "big.txt", "content": content})

	lim.MaxWriteBytes = 1000
	e = newProdEnv(t, lim)
	e.put("crlf.txt", "a\r\nb\r\n")
	short := strings.Repeat("0123456789abcdefghijklmnopqrstuvwxyz\n", 26) // 962 bytes, 988 with CRLF
	e.write(map[string]any{"path": "crlf.txt", "content": short})
	long := short + strings.Repeat("z\n", 10) // 982 bytes, 1018 with CRLF
	msg = e.failure("write", map[string]any{"path": "crlf.txt", "content": long}, wire.ToolFileTooLarge)
	follow(t, e, msg, long, "crlf.txt", "a\r\nb\r\n")

	e, _ = newEncodedEnv(t, nil)
	e.lim.MaxWriteBytes = 1000
	e.x = NewExecutor(Options{Sessions: e.m, Limits: e.lim, Tools: Builtin()})
	wide := encodeAs(t, textenc.UTF16LE, true, "a\r\nb\r\n")
	e.put("wide.txt", wide)
	long = strings.Repeat("wörld\n", 100) // 700 bytes, 1402 in UTF-16LE with CRLF and its mark
	msg = e.failure("write", map[string]any{"path": "wide.txt", "content": long}, wire.ToolFileTooLarge)
	follow(t, e, msg, long, "wide.txt", wide)
}
