package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/session"
	"github.com/hostd-dev/hostd/workspace"
)

// withOutline gives the env an executor serving read and edit with the
// grammars wired as cmd/hostd wires them.
func withOutline(e *editEnv) {
	e.x = NewExecutor(Options{Sessions: e.m, Limits: e.lim, Tools: Builtin(),
		Parser: parserParts{resolver: e.inProcess().Resolver, outline: e.inProcess().Outline}})
}

// read runs the read tool; a failure comes back as a wire.ReadResult holding
// only the failed Result.
func (e *editEnv) read(args map[string]any) *wire.ReadResult {
	e.t.Helper()
	raw, _ := json.Marshal(args)
	out, err := e.x.Execute(context.Background(), Request{SessionID: e.s.ID, Tool: "read", Args: raw})
	if err != nil {
		e.t.Fatal(err)
	}
	if r, ok := out.(*wire.ReadResult); ok {
		return r
	}
	return &wire.ReadResult{ToolResult: *out.Base()}
}

func (e *editEnv) outline(path string) *wire.ReadResult {
	e.t.Helper()
	return e.read(map[string]any{"path": path, "mode": "outline"})
}

// seenLines is the seen set the session holds for the head version of rel.
func (e *editEnv) seenLines(rel string) session.LineSet {
	e.t.Helper()
	p, err := e.s.State().Workspace.Resolve(rel, workspace.Read)
	if err != nil {
		e.t.Fatal(err)
	}
	v, ok := e.s.State().Store.Head(p.Abs)
	if !ok {
		e.t.Fatalf("nothing recorded for %s", rel)
	}
	return v.Seen
}

const outlineTS = `import { a } from './a';

export interface Opts {
  verbose?: boolean;
}

export class Cart {
  private items: string[] = [];

  add(item: string): void {
    this.items.push(item);
  }

  total(): number {
    return this.items.length;
  }
}
`

func TestReadOutline(t *testing.T) {
	e := newEditEnv(t)
	withOutline(e)
	e.write("src/cart.ts", outlineTS)
	r := e.outline("src/cart.ts")
	if !r.OK {
		t.Fatalf("outline failed: %s", r.Content)
	}
	plain := e.read(map[string]any{"path": "src/cart.ts", "limit": 1})
	want := "[src/cart.ts#" + plain.Tag + "]\n" +
		"3:export interface Opts {  …5\n" +
		"4:  verbose?: boolean;\n" +
		"7:export class Cart {  …17\n" +
		"8:  private items: string[] = [];\n" +
		"10:  add(item: string): void {  …12\n" +
		"14:  total(): number {  …16\n" +
		"(outline: 6 rows of 17 lines)"
	if r.Content != want {
		t.Fatalf("content:\n%s\nwant:\n%s", r.Content, want)
	}
	if r.Tag != plain.Tag || r.Mode != "outline" || r.LineCount != 6 || r.TotalLines != 17 || r.Truncated {
		t.Fatalf("result %+v", r)
	}
}

// TestReadOutlineSeenSet: the rows displayed are seen, nothing else: an
// edit on a row applies, an edit inside a block the outline only spanned
// is refused until that block is read, and the block read keeps the tag.
func TestReadOutlineSeenSet(t *testing.T) {
	e := newEditEnv(t)
	withOutline(e)
	e.write("cart.ts", outlineTS)
	r := e.outline("cart.ts")
	seen := e.seenLines("cart.ts")
	if got := fmt.Sprint(seen.Ranges()); got != "[{3 4} {7 8} {10 10} {14 14}]" {
		t.Fatalf("seen after the outline %s, want exactly the rows 3, 4, 7, 8, 10, 14", got)
	}
	wantCode(t, e.edit("cart.ts", r.Tag, "PUT 11.=11:\n+    this.items.unshift(item);"), wire.ToolLinesUnseen)
	wantFile(t, e, "cart.ts", outlineTS)

	// The block read of row 10 (…10-12) fuses into the same tag.
	b := e.read(map[string]any{"path": "cart.ts", "offset": 10, "limit": 3})
	if b.Tag != r.Tag {
		t.Fatalf("block read tag %s, outline tag %s", b.Tag, r.Tag)
	}
	wantOK(t, e.edit("cart.ts", r.Tag, "PUT 11.=11:\n+    this.items.unshift(item);"))
	wantFile(t, e, "cart.ts", strings.Replace(outlineTS, "push", "unshift", 1))
}

// TestReadOutlineOfABlock: the outline of a block's own span lists what
// is inside it (its multi-line statements, nested declarations and switch
// cases), and again only those rows become seen.
func TestReadOutlineOfABlock(t *testing.T) {
	e := newEditEnv(t)
	withOutline(e)
	src := `export function run(kind: string) {
  const a = 1;
  if (kind === 'x') {
    return a;
  }
  switch (kind) {
    case 'y':
      return 2;
    case 'z': return 3;
  }
  function inner() {
    return 4;
  }
  return inner();
}
`
	e.write("run.ts", src)
	top := e.outline("run.ts")
	if !strings.Contains(top.Content, "\n1:export function run(kind: string) {  …15\n(") {
		t.Fatalf("file outline:\n%s", top.Content)
	}
	in := e.read(map[string]any{"path": "run.ts", "mode": "outline", "offset": 1, "limit": 15})
	want := "[run.ts#" + top.Tag + "]\n" +
		"3:  if (kind === 'x') {  …5\n" +
		"6:  switch (kind) {  …10\n" +
		"11:  function inner() {  …13\n" +
		"(outline: 3 rows of lines 1-15)"
	if in.Content != want || in.Tag != top.Tag || in.Offset != 1 {
		t.Fatalf("block outline:\n%s\nwant:\n%s", in.Content, want)
	}
	cases := e.read(map[string]any{"path": "run.ts", "mode": "outline", "offset": 6, "limit": 5})
	if !strings.Contains(cases.Content, "]\n7:    case 'y':  …8\n(") {
		t.Fatalf("switch outline:\n%s", cases.Content)
	}
	if got := fmt.Sprint(e.seenLines("run.ts").Ranges()); got != "[{1 1} {3 3} {6 7} {11 11}]" {
		t.Fatalf("seen %s, want the rows 1, 3, 6, 7, 11", got)
	}
}

func TestReadOutlinePython(t *testing.T) {
	e := newEditEnv(t)
	withOutline(e)
	e.write("m.py", "import os\n\n\nclass A:\n    @property\n    def x(self):\n        return 1\n\n\ndef main():\n    pass\n")
	r := e.outline("m.py")
	want := "4:class A:  …7\n6:    def x(self):  …5-7\n10:def main():  …11\n"
	if !strings.Contains(r.Content+"\n", "]\n"+want) {
		t.Fatalf("content:\n%s\nwant rows:\n%s", r.Content, want)
	}
	// A decorated member's row is its def line; its decorator line was not
	// shown, so it is not seen.
	if s := e.seenLines("m.py"); s.Contains(5) || !s.Contains(6) {
		t.Fatalf("seen %v", s.Ranges())
	}
}

func TestReadOutlineMarkdown(t *testing.T) {
	e := newEditEnv(t)
	withOutline(e)
	e.write("README.md", "# Tool\n\nIntro.\n\n## Install\n\nRun.\n\n## Use\n\nCall.\n")
	r := e.outline("README.md")
	want := "\n1:# Tool  …11\n5:## Install  …7\n9:## Use  …11\n"
	if !strings.Contains(r.Content, want) {
		t.Fatalf("content:\n%s\nwant rows:%s", r.Content, want)
	}
}

// TestReadOutlineCRLFAndBOM: the outline of a CRLF file with a BOM shows
// the lines without \r or BOM and mints the tag a plain read mints.
func TestReadOutlineCRLFAndBOM(t *testing.T) {
	e := newEditEnv(t)
	withOutline(e)
	text := "\ufeff" + strings.ReplaceAll(outlineTS, "\n", "\r\n")
	e.write("cart.ts", text)
	r := e.outline("cart.ts")
	if strings.ContainsAny(r.Content, "\r\ufeff") {
		t.Fatalf("content holds a CR or the BOM: %q", r.Content)
	}
	if !strings.Contains(r.Content, "\n3:export interface Opts {  …5\n") {
		t.Fatalf("content:\n%s", r.Content)
	}
	plain := e.read(map[string]any{"path": "cart.ts", "offset": 10, "limit": 3})
	if plain.Tag != r.Tag {
		t.Fatalf("outline tag %s, read tag %s", r.Tag, plain.Tag)
	}
	wantOK(t, e.edit("cart.ts", r.Tag, "PUT 11.=11:\n+    this.items.unshift(item);"))
	wantFile(t, e, "cart.ts", strings.Replace(text, "push", "unshift", 1))
}

// TestReadOutlineBounded: a file of many declarations shows at most the
// row limit and says where to go on; a declaration line longer than a row
// is clipped, marked, and not seen.
func TestReadOutlineBounded(t *testing.T) {
	lim := config.DefaultLimits()
	lim.DefaultReadLimit = 50
	e := newEditEnvLimits(t, lim)
	withOutline(e)
	var b strings.Builder
	long := "export function " + strings.Repeat("x", 1000) + "() {}\n"
	b.WriteString(long)
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&b, "function f%d() {\n  return %d;\n}\n", i, i)
	}
	e.write("big.ts", b.String())
	r := e.outline("big.ts")
	if !r.OK || r.LineCount != 50 || !r.Truncated {
		t.Fatalf("ok %v rows %d truncated %v", r.OK, r.LineCount, r.Truncated)
	}
	rows := strings.Split(r.Content, "\n")
	if len(rows) != 52 || !strings.HasPrefix(rows[1], "1:export function xxx") || !strings.HasSuffix(rows[1], "xxx …[clipped]") {
		t.Fatalf("%d rows; first %q", len(rows), rows[1][:min(len(rows[1]), 80)])
	}
	if len(rows[1]) > maxOutlineRowChars+40 {
		t.Fatalf("clipped row has %d bytes", len(rows[1]))
	}
	last := rows[len(rows)-1]
	if last != "(outline: 50 of 5001 rows of 15001 lines, stopped at the row limit; outline on with offset=149)" {
		t.Fatalf("notice %q", last)
	}
	seen := e.seenLines("big.ts")
	if seen.Contains(1) || !seen.Contains(2) || seen.Contains(3) || seen.Len() != 49 {
		t.Fatalf("seen %v (%d lines)", seen.Ranges()[:3], seen.Len())
	}
	next := e.read(map[string]any{"path": "big.ts", "mode": "outline", "offset": 149})
	if !strings.HasPrefix(strings.SplitN(next.Content, "\n", 3)[1], "149:function f49() {") {
		t.Fatalf("next page starts %q", strings.SplitN(next.Content, "\n", 3)[1])
	}
	if next.Tag != r.Tag || e.seenLines("big.ts").Len() != 99 {
		t.Fatalf("pages do not fuse: tags %s %s, seen %d", r.Tag, next.Tag, e.seenLines("big.ts").Len())
	}
}

func TestReadOutlineRefusals(t *testing.T) {
	lim := config.DefaultLimits()
	lim.MaxBlockParseBytes = 1 << 10
	e := newEditEnvLimits(t, lim)
	withOutline(e)
	e.write("notes.txt", "plain\n")
	e.write("big.ts", strings.Repeat("const a = 1;\n", 200))
	e.write("broken.ts", "function f( {\n")
	cases := []struct {
		args map[string]any
		says string
	}{
		{map[string]any{"path": "notes.txt", "mode": "outline"}, `no outline for ".txt" files`},
		{map[string]any{"path": "big.ts", "mode": "outline"}, "over the 1024 bytes an outline parses"},
		{map[string]any{"path": "broken.ts", "mode": "outline"}, "does not parse cleanly"},
		{map[string]any{"path": "broken.ts", "mode": "outline", "limit": 0}, "limit 0 must be at least 1"},
		{map[string]any{"path": "big.ts", "mode": "tree"}, `mode "tree" is not a read mode`},
	}
	for _, c := range cases {
		r := e.read(c.args)
		if r.OK || r.Error == nil || r.Error.Code != wire.ToolInvalidArgument || !strings.Contains(r.Error.Message, c.says) {
			t.Errorf("%v: %+v", c.args, r.ToolResult)
			continue
		}
		if !strings.Contains(r.Error.Message, "without mode") && !strings.Contains(r.Error.Message, "omit") && !strings.Contains(r.Error.Message, "drop") {
			t.Errorf("%v: the message %q names no next step", c.args, r.Error.Message)
		}
	}
	e.write("empty.ts", "")
	if r := e.read(map[string]any{"path": "empty.ts", "mode": "outline"}); !r.OK || r.Notice != "the file is empty: 0 lines" || r.Content != "[empty.ts#"+r.Tag+"]\n(the file is empty: 0 lines)" {
		t.Errorf("empty file: %+v", r)
	}
	e.write("one.ts", "const a = 1;\n")
	if r := e.read(map[string]any{"path": "one.ts", "mode": "outline", "offset": 9}); !r.OK || r.Notice != "offset 9 is past the end: the file has 1 lines; outline with an offset from 1 to 1" {
		t.Errorf("past the end: %+v", r)
	}
	// Without grammars (a build that wires none), outline says so.
	e.x = NewExecutor(Options{Sessions: e.m, Limits: lim, Tools: Builtin()})
	if r := e.read(map[string]any{"path": "broken.ts", "mode": "outline"}); r.OK || !strings.Contains(r.Error.Message, "no grammars") {
		t.Fatalf("%+v", r.ToolResult)
	}
}

// TestReadOutlineConcurrent: outline reads and block reads of one file
// from many goroutines of one session record into one version, whose seen
// set ends as the union of what they displayed (run with -race).
func TestReadOutlineConcurrent(t *testing.T) {
	e := newEditEnv(t)
	withOutline(e)
	e.write("cart.ts", outlineTS)
	done := make(chan string, 16)
	for i := 0; i < 16; i++ {
		go func() {
			args := map[string]any{"path": "cart.ts", "mode": "outline"}
			if i%2 == 1 {
				args = map[string]any{"path": "cart.ts", "offset": 10, "limit": 3}
			}
			raw, _ := json.Marshal(args)
			out, err := e.x.Execute(context.Background(), Request{SessionID: e.s.ID, Tool: "read", Args: raw})
			if err != nil || !out.Base().OK {
				done <- "failed"
				return
			}
			done <- out.(*wire.ReadResult).Tag
		}()
	}
	tags := map[string]bool{}
	for i := 0; i < 16; i++ {
		tags[<-done] = true
	}
	if len(tags) != 1 || tags["failed"] {
		t.Fatalf("tags %v", tags)
	}
	if got := fmt.Sprint(e.seenLines("cart.ts").Ranges()); got != "[{3 4} {7 8} {10 12} {14 14}]" {
		t.Fatalf("seen %s", got)
	}
}
