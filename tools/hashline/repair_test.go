package hashline

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/tools/blocks"
)

// Boundary repair, edit-contract §8.4, rule by rule. Cases name a file so
// the real tree-sitter checker picks the grammar; ".txt" has none.

// treeSitter is the checker the tool uses, for a file name and its text.
func treeSitter(t testing.TB, path, text string) Syntax {
	t.Helper()
	s, err := blocks.NewSyntax(path, text, config.DefaultLimits().MaxBlockParseBytes)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// countingSyntax counts the checks a call spends.
type countingSyntax struct {
	Syntax
	n int
}

func (c *countingSyntax) Check(text string) (bool, bool) {
	c.n++
	return c.Syntax.Check(text)
}

// Release passes repair's release on, so a tree the checker keeps
// between checks is freed where the daemon frees it.
func (c *countingSyntax) Release() { release(c.Syntax) }

// setSyntax is a grammar under which exactly the listed texts parse, for
// rules that need a text to parse or not regardless of any real language.
type setSyntax map[string]bool

func (s setSyntax) Check(text string) (bool, bool) { return true, s[text] }

// repairOutcome runs the whole chain and also checks what every success
// must satisfy: the repaired IR passes Validate.
type repairOutcome struct {
	got   string
	warns []string
	err   error
}

func runRepair(t *testing.T, input, ops string, env Env, syn Syntax) repairOutcome {
	t.Helper()
	lines, trailing := splitText(input)
	p, err := Parse(ops, env.Limits)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	ir, err := Lower(p, len(lines), env.Limits)
	if err == nil {
		ir, err = ResolveBlocks(ir, env.Resolver)
	}
	if err == nil {
		ir, err = Expand(ir, lines, env.Registers)
	}
	if err == nil {
		err = Validate(ir)
	}
	if err != nil {
		t.Fatalf("before repair: %v", err)
	}
	out, warns, err := Repair(lines, ir, syn)
	if err != nil {
		return repairOutcome{err: err}
	}
	if err := Validate(out); err != nil {
		t.Fatalf("the repaired IR fails Validate: %v", err)
	}
	res, err := Apply(lines, out)
	if err != nil {
		return repairOutcome{warns: warns, err: err}
	}
	return repairOutcome{got: joinText(res.Lines, trailing), warns: warns}
}

type repairCase struct {
	name        string
	path        string // picks the grammar; "" means no Syntax at all
	input, ops  string
	want        string   // the new text, when the edit applies
	code        string   // the error code, when it does not
	warnings    []string // one fragment per expected warning, in order
	regs        map[string][]string
	useResolver bool
}

// run runs the case twice, with its checks parsed from scratch and
// through a tree cache (parsed incrementally, as the daemon parses them):
// both must give the case's answer.
func (tc repairCase) run(t *testing.T) {
	t.Helper()
	var syn Syntax
	if tc.path != "" {
		syn = treeSitter(t, tc.path, tc.input)
	}
	tc.runWith(t, syn)
	if tc.path != "" {
		tc.runWith(t, cachedTreeSitter(t, tc.path, tc.input))
	}
}

// cachedTreeSitter is treeSitter with its checks served by a tree cache
// of its own.
func cachedTreeSitter(t testing.TB, path, text string) Syntax {
	t.Helper()
	lim := config.DefaultLimits()
	trees, err := blocks.NewTrees(lim.MaxParseTreeBytes)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(trees.Close)
	s, err := trees.NewSyntax(context.Background(), path, text, lim.MaxBlockParseBytes)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (tc repairCase) runWith(t *testing.T, syn Syntax) {
	t.Helper()
	env := Env{}
	if tc.regs != nil {
		r := newMemRegisters()
		for k, v := range tc.regs {
			r.m[k] = v
		}
		env.Registers = r
	}
	if tc.useResolver {
		r, err := blocks.NewResolver(tc.path, tc.input, config.DefaultLimits().MaxBlockParseBytes)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		env.Resolver = r
	}
	o := runRepair(t, tc.input, tc.ops, env, syn)
	if tc.code != "" {
		var e *Error
		if !errors.As(o.err, &e) || e.Code != tc.code {
			t.Fatalf("want %s, got %q, %v", tc.code, o.got, o.err)
		}
		if !errors.Is(o.err, sentinels[tc.code]) {
			t.Errorf("%v does not unwrap to its sentinel", o.err)
		}
		return
	}
	if o.err != nil {
		t.Fatalf("unexpected error: %v", o.err)
	}
	if o.got != tc.want {
		t.Errorf("result:\n%s\nwant:\n%s", o.got, tc.want)
	}
	if len(o.warns) != len(tc.warnings) {
		t.Fatalf("warnings %q, want %d matching %q", o.warns, len(tc.warnings), tc.warnings)
	}
	for i, frag := range tc.warnings {
		if !strings.Contains(o.warns[i], frag) {
			t.Errorf("warning %d %q does not contain %q", i, o.warns[i], frag)
		}
	}
}

func TestRepairExactRestatement(t *testing.T) {
	for _, tc := range []repairCase{
		{name: "a last row restating the line below is dropped", input: "a\nb\nc\n", ops: "PUT 2.=2:\n+B\n+c",
			want: "a\nB\nc\n", warnings: []string{`boundary repair on "PUT 2.=2:" (ops line 1): dropped body row 2 "c", an exact restatement of line 3 just below`}},
		{name: "a first row restating the line above is dropped", input: "a\nb\nc\n", ops: "PUT 2.=2:\n+a\n+B",
			want: "a\nB\nc\n", warnings: []string{`dropped body row 1 "a", an exact restatement of line 1 just above`}},
		{name: "both ends", input: "a\nb\nc\n", ops: "PUT 2.=2:\n+a\n+B\n+c",
			want: "a\nB\nc\n", warnings: []string{`row 1 "a"`, `row 3 "c"`}},
		{name: "the same without a grammar for the file type", path: "notes.txt", input: "a\nb\nc\n", ops: "PUT 2.=2:\n+a\n+B\n+c",
			want: "a\nB\nc\n", warnings: []string{`row 1 "a"`, `row 3 "c"`}},
		{name: "equality is exact: other indentation is new content", input: "x\n  y\nz\n", ops: "PUT 1.=1:\n+X\n+y",
			want: "X\ny\n  y\nz\n"},
		{name: "equality is exact: a trailing blank is new content", input: "x\ny\nz\n", ops: "PUT 1.=1:\n+X\n+y ",
			want: "X\ny \ny\nz\n"},
		{name: "only the one line immediately outside counts", input: "a\nb\nc\nd\n", ops: "PUT 2.=2:\n+B\n+d",
			want: "a\nB\nd\nc\nd\n"},
		{name: "a row equal to the range's own row is its final text", input: "foo\nbar\nbar\nbaz\n", ops: "PUT 2.=2:\n+qux\n+bar",
			want: "foo\nqux\nbar\nbar\nbaz\n"},
		{name: "a neighbour another op replaces is not restated", input: "a\nb\nc\nd\n", ops: "PUT 2.=2:\n+B\n+c\nPUT 3.=3:\n+C",
			want: "a\nB\nc\nC\nd\n"},
		{name: "a neighbour with an insert in between is not next to the body", input: "a\nb\nc\n", ops: "PUT >1:\n+new\nPUT 2.=2:\n+a\n+B",
			want: "a\nnew\na\nB\nc\n"},
		{name: "the same below: an insert between the body and the line below", input: "a\nb\nc\n", ops: "PUT 2.=2:\n+B\n+c\nPUT <3:\n+new",
			want: "a\nB\nc\nnew\nc\n"},
		{name: "a gap insert is not a range", input: "a\nb\nc\n", ops: "PUT >1:\n+a\n+x",
			want: "a\na\nx\nb\nc\n"},
		{name: "a span paste is captured content, not an authored body", input: "a\nb\nc\n", ops: "PUT 2.=2 @r",
			regs: map[string][]string{"r": {"a", "B"}}, want: "a\na\nB\nc\n"},
		{name: "a resolved PUT N*: is a replacement", path: "f.ts", useResolver: true,
			input: "f();\nfunction g() {\n  a();\n}\nh();\n", ops: "PUT 2*:\n+f();\n+function g() {\n+  b();\n+}",
			want: "f();\nfunction g() {\n  b();\n}\nh();\n", warnings: []string{`"PUT 2*:" (ops line 1): dropped body row 1 "f();"`}},
		{name: "a body made only of restatements is refused", input: "a\nold\nc\n", ops: "PUT 2.=2:\n+a\n+c",
			code: CodeRepairAmbiguous},
		{name: "one row restating both neighbours is refused", input: "x\nold\nx\n", ops: "PUT 2.=2:\n+x",
			code: CodeRepairAmbiguous},
		{name: "a restatement that is the only change is refused", input: "a = 1;\nb = 2;\n", ops: "PUT 1.=1:\n+a = 1;\n+b = 2;",
			code: CodeRepairAmbiguous},
		{name: "a removal that would break a parsing result is not made", path: "f.ts",
			input: "function f() {\na();\n}\n", ops: "PUT 2.=2:\n+if (x) {\n+a();\n+}",
			want: "function f() {\nif (x) {\na();\n}\n}\n"},
		{name: "without a grammar the same removal is made", path: "f.txt",
			input: "function f() {\na();\n}\n", ops: "PUT 2.=2:\n+if (x) {\n+a();\n+}",
			want: "function f() {\nif (x) {\na();\n}\n", warnings: []string{`row 3 "}"`}},
		{name: "a removal is made when neither text parses", path: "f.ts",
			input: "function f() {\na();\n}\n", ops: "PUT 2.=2:\n+if (x) {\n+if (y) {\n+a();\n+}",
			want: "function f() {\nif (x) {\nif (y) {\na();\n}\n", warnings: []string{`row 4 "}"`}},
	} {
		t.Run(tc.name, tc.run)
	}
}

func TestRepairRetention(t *testing.T) {
	for _, tc := range []repairCase{
		{name: "a swallowed closer is kept after the body", path: "f.ts",
			input: "const handlers = {\n\ta() {\n\t\treturn 1;\n\t},\n};\n", ops: "PUT 5.=5:\n+\tb() {\n+\t\treturn 2;\n+\t},",
			want:     "const handlers = {\n\ta() {\n\t\treturn 1;\n\t},\n\tb() {\n\t\treturn 2;\n\t},\n};\n",
			warnings: []string{`boundary repair on "PUT 5.=5:" (ops line 1): kept line 5 "};" after the body although the range covers it`}},
		{name: "a swallowed comment opener is kept before the body", path: "f.ts",
			input: "class C {\n\t/**\n\t * Old summary.\n\t */\n\tmethod() {}\n}\n", ops: "PUT 2.=4:\n+\t * New summary.\n+\t */",
			want:     "class C {\n\t/**\n\t * New summary.\n\t */\n\tmethod() {}\n}\n",
			warnings: []string{`kept line 2 "\t/**" before the body`}},
		{name: "a swallowed closer is kept before a body at its sibling depth", path: "f.rs",
			input: "fn f() {\n\tif a {\n\t\treturn;\n\t}\n\tlet lead = old1();\n}\n", ops: "PUT 4.=5:\n+\tlet lead = new1();",
			want:     "fn f() {\n\tif a {\n\t\treturn;\n\t}\n\tlet lead = new1();\n}\n",
			warnings: []string{`kept line 4 "\t}" before the body`}},
		{name: "a dropped restatement and a kept closer in one call", path: "f.ts",
			input: "on(() => {\n\tfoo();\n});\n\nconst config = {\n\ta: 1,\n};\n",
			ops:   "PUT 2.=2:\n+\tsetup();\n+\tfoo();\n+});\nPUT 7.=7:\n+\tb: 2,",
			want:  "on(() => {\n\tsetup();\n\tfoo();\n});\n\nconst config = {\n\ta: 1,\n\tb: 2,\n};\n",
			warnings: []string{`"PUT 2.=2:" (ops line 1): dropped body row 3 "});"`,
				`"PUT 7.=7:" (ops line 5): kept line 7 "};" after the body`}},
		{name: "two swallowed closers are kept together when neither alone parses", path: "f.ts",
			input: "function f() {\n  a();\n}\nfunction g() {\n  b();\n}\n", ops: "PUT 3.=3:\n+  a2();\nPUT 6.=6:\n+  b2();",
			want:     "function f() {\n  a();\n  a2();\n}\nfunction g() {\n  b();\n  b2();\n}\n",
			warnings: []string{`kept line 3 "}"`, `kept line 6 "}"`}},
		{name: "the effective-last row skips trailing blank rows of the range", path: "f.ts",
			input: "if (a) {\n  x();\n}\n\n\nafter();\n", ops: "PUT 3.=5:\n+  y();",
			want:     "if (a) {\n  x();\n  y();\n}\nafter();\n",
			warnings: []string{`kept line 3 "}" after the body`}},
		{name: "refused: the original did not parse", path: "f.ts",
			input: "if (a) {\n\told();\n}\n}\n", ops: "PUT 2.=3:\n+\tfresh();\nPUT 4.=4:\n+after();",
			want: "if (a) {\n\tfresh();\nafter();\n"},
		{name: "a body indented inside the block keeps the closer after it", path: "f.ts",
			input: "if (!global) {\n    setDone();\n    return;\n}\nafter();\n", ops: "PUT 4.=4:\n+    setIdent();",
			want: "if (!global) {\n    setDone();\n    return;\n    setIdent();\n}\nafter();\n", warnings: []string{`kept line 4 "}" after the body`}},
		{name: "a body at the closer's own depth keeps the closer before it", path: "f.ts",
			input: "if (!global) {\n    setDone();\n    return;\n}\nafter();\n", ops: "PUT 4.=4:\n+setIdent();",
			want: "if (!global) {\n    setDone();\n    return;\n}\nsetIdent();\nafter();\n", warnings: []string{`kept line 4 "}" before the body`}},
		{name: "refused: a body shallower than the closer fits neither side", path: "f.ts",
			input: "function f() {\n  if (a) {\n    x();\n  }\n}\n", ops: "PUT 4.=4:\n+y();",
			want: "function f() {\n  if (a) {\n    x();\ny();\n}\n"},
		{name: "refused: the closer does not line up with its opener", path: "f.ts",
			input: "function f() {\n  if (a) {\n    x();\n }\n}\n", ops: "PUT 4.=4:\n+    y();",
			want: "function f() {\n  if (a) {\n    x();\n    y();\n}\n"},
		{name: "kept: the same closer lined up", path: "f.ts",
			input: "function f() {\n  if (a) {\n    x();\n  }\n}\n", ops: "PUT 4.=4:\n+    y();",
			want: "function f() {\n  if (a) {\n    x();\n    y();\n  }\n}\n", warnings: []string{`kept line 4 "  }"`}},
		{name: "refused: a row with code on it is never kept", path: "f.ts",
			input: "if (a) {\n  x();\n} else {\n  y();\n}\n", ops: "PUT 3.=3:\n+  z();",
			want: "if (a) {\n  x();\n  z();\n  y();\n}\n"},
		{name: "a closer the body restates is not kept again", path: "f.ts",
			input: "class Foo {\n\tok();\n\t}\n}\n", ops: "PUT 1.=4:\n+class Foo {\n+\tok();\n+}",
			want: "class Foo {\n\tok();\n}\n"},
		{name: "no grammar: nothing is kept", path: "notes.txt",
			input: "const handlers = {\n\ta() {\n\t\treturn 1;\n\t},\n};\n", ops: "PUT 5.=5:\n+\tb() {\n+\t\treturn 2;\n+\t},",
			want: "const handlers = {\n\ta() {\n\t\treturn 1;\n\t},\n\tb() {\n\t\treturn 2;\n\t},\n"},
		{name: "no Syntax at all: nothing is kept",
			input: "const handlers = {\n\ta() {\n\t\treturn 1;\n\t},\n};\n", ops: "PUT 5.=5:\n+\tb() {\n+\t\treturn 2;\n+\t},",
			want: "const handlers = {\n\ta() {\n\t\treturn 1;\n\t},\n\tb() {\n\t\treturn 2;\n\t},\n"},
	} {
		t.Run(tc.name, tc.run)
	}
}

// The parse conditions of retention, each on its own. Under setSyntax a
// text parses only when listed, so each case lists exactly what it needs.
func TestRepairRetentionParseConditions(t *testing.T) {
	input := "if (a) {\n  x();\n}\n"
	lines, _ := splitText(input)
	ops := "PUT 3.=3:\n+  y();"
	base := wholeText(lines)
	authored := "if (a) {\n  x();\n  y();\n"
	kept := "if (a) {\n  x();\n  y();\n}\n"
	withoutRow := "if (a) {\n  x();\n"
	all := setSyntax{base: true, kept: true}
	tests := []struct {
		name string
		syn  setSyntax
		want string
	}{
		{"every condition holds: kept", all, kept},
		{"the original does not parse: not kept", setSyntax{kept: true}, authored},
		{"deleting the row alone does not break the original: not kept", setSyntax{base: true, kept: true, withoutRow: true}, authored},
		{"the candidate does not parse: not kept", setSyntax{base: true}, authored},
		{"the authored result parses: no search", setSyntax{base: true, kept: true, authored: true}, authored},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := runRepair(t, input, ops, Env{}, tt.syn)
			if o.err != nil || o.got != tt.want {
				t.Fatalf("got %q, %v; want %q", o.got, o.err, tt.want)
			}
			if (o.got != authored) != (len(o.warns) == 1) {
				t.Errorf("warnings %q for result %q", o.warns, o.got)
			}
		})
	}
}

func TestRepairTieIsAmbiguous(t *testing.T) {
	// Two ops each swallowed a closer; either one kept makes the text
	// parse, and the two results differ. Ranking them would be a guess.
	input := "if (a) {\n  x();\n}\nif (b) {\n  y();\n}\n"
	lines, _ := splitText(input)
	keepFirst := "if (a) {\n  x();\n  X();\n}\nif (b) {\n  y();\n  Y();\n"
	keepSecond := "if (a) {\n  x();\n  X();\nif (b) {\n  y();\n  Y();\n}\n"
	syn := setSyntax{wholeText(lines): true, keepFirst: true, keepSecond: true}
	o := runRepair(t, input, "PUT 3.=3:\n+  X();\nPUT 6.=6:\n+  Y();", Env{}, syn)
	var e *Error
	if !errors.As(o.err, &e) || e.Code != CodeRepairAmbiguous {
		t.Fatalf("want EDIT_REPAIR_AMBIGUOUS, got %q, %v", o.got, o.err)
	}
	for _, frag := range []string{"2 repairs of equal cost", `keeping line 3 "}" after the body of "PUT 3.=3:"`, `keeping line 6 "}" after the body of "PUT 6.=6:"`, "covering exactly the lines that change", "nothing was written"} {
		if !strings.Contains(e.Message, frag) {
			t.Errorf("message %q lacks %q", e.Message, frag)
		}
	}
	// Only one of them parses: no tie, that one is kept.
	delete(syn, keepSecond)
	o = runRepair(t, input, "PUT 3.=3:\n+  X();\nPUT 6.=6:\n+  Y();", Env{}, syn)
	if o.err != nil || o.got != keepFirst {
		t.Fatalf("got %q, %v; want %q", o.got, o.err, keepFirst)
	}
}

func TestRepairBudget(t *testing.T) {
	// Forty ops each swallowed a closer; every single deletion breaks the
	// original, but no candidate parses, so the search would try them all.
	var in, ops strings.Builder
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&in, "if (a%d) {\n  x();\n}\n", i)
		fmt.Fprintf(&ops, "PUT %d.=%d:\n+  y();\n", 3*i+3, 3*i+3)
	}
	lines, _ := splitText(in.String())
	syn := &countingSyntax{Syntax: setSyntax{wholeText(lines): true}}
	o := runRepair(t, in.String(), ops.String(), Env{}, syn)
	if o.err != nil {
		t.Fatal(o.err)
	}
	if syn.n > maxRepairChecks {
		t.Errorf("%d syntax checks, over the bound of %d", syn.n, maxRepairChecks)
	}
	if len(o.warns) != 1 || !strings.Contains(o.warns[0], "boundary repair stopped at its bound (32 syntax checks") {
		t.Errorf("warnings %q, want the one saying the search stopped", o.warns)
	}
	if strings.Count(o.got, "}") != 0 {
		t.Errorf("a search cut short kept rows:\n%s", o.got)
	}
}

func TestRepairParseBytesBound(t *testing.T) {
	// The same search as TestRepairBudget on a 1.5 MiB file: the bytes
	// run out before the count does.
	pad := "// " + strings.Repeat("x", 39<<10) + "\n"
	var in, ops strings.Builder
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&in, "%sif (a%d) {\n  x();\n}\n", pad, i)
		fmt.Fprintf(&ops, "PUT %d.=%d:\n+  y();\n", 4*i+4, 4*i+4)
	}
	lines, _ := splitText(in.String())
	syn := &countingSyntax{Syntax: setSyntax{wholeText(lines): true}}
	o := runRepair(t, in.String(), ops.String(), Env{}, syn)
	if o.err != nil {
		t.Fatal(o.err)
	}
	if max := maxRepairParseBytes / len(in.String()); syn.n > max || syn.n >= maxRepairChecks {
		t.Errorf("%d syntax checks of a %d-byte text; the byte bound allows %d", syn.n, len(in.String()), max)
	}
	if len(o.warns) != 1 || !strings.Contains(o.warns[0], "24 MiB parsed") {
		t.Errorf("warnings %q, want the one saying the search stopped", o.warns)
	}
}

func TestRepairCandidateBound(t *testing.T) {
	// 150 ops whose kept closer would not line up with its opener: no
	// candidate reaches a syntax check, but building them is bounded too.
	var in, ops strings.Builder
	for i := 0; i < 150; i++ {
		fmt.Fprintf(&in, "f {\n    x\n }\n")
		fmt.Fprintf(&ops, "PUT %d.=%d:\n+    y\n", 3*i+3, 3*i+3)
	}
	syn := &countingSyntax{Syntax: balanceSyntax{}}
	o := runRepair(t, in.String(), ops.String(), Env{}, syn)
	if o.err != nil {
		t.Fatal(o.err)
	}
	if len(o.warns) != 1 || !strings.Contains(o.warns[0], "128 candidates") || syn.n != 2 {
		t.Errorf("warnings %q after %d checks; want the bound's warning after checking the result and the original", o.warns, syn.n)
	}
	lines, _ := splitText(in.String())
	ir, err := Lower(mustParse(t, ops.String()), len(lines), Limits{})
	if err == nil {
		ir, err = Expand(ir, lines, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	s := &search{text: Lines(lines), ir: ir, syn: balanceSyntax{}}
	if _, _, _, err := s.run(); err != nil || s.built > maxRepairCandidates {
		t.Errorf("built %d candidates (%v), over the bound of %d", s.built, err, maxRepairCandidates)
	}
}

func TestRepairSpendsNoCheckWithoutCandidates(t *testing.T) {
	syn := &countingSyntax{Syntax: treeSitter(t, "f.ts", "")}
	o := runRepair(t, "a();\nb();\nc();\n", "PUT 2.=2:\n+B();", Env{}, syn)
	if o.err != nil || o.got != "a();\nB();\nc();\n" || syn.n != 0 {
		t.Errorf("got %q, %v after %d checks; want no check for an edit with no restatement and no boundary row", o.got, o.err, syn.n)
	}
}

func TestRepairRejectsAForeignText(t *testing.T) {
	ir := IR{NumLines: 3}
	if _, _, err := Repair([]string{"a"}, ir, nil); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("got %v, want INVALID_ARGUMENT", err)
	}
}

func TestBoundaryRow(t *testing.T) {
	tests := []struct {
		row  string
		ok   bool
		want shape
	}{
		{"}", true, shape{closesFirst: true, onlyClosers: true}},
		{"\t});", true, shape{closesFirst: true, onlyClosers: true}},
		{"  */", true, shape{closesFirst: true, onlyClosers: true}},
		{"</div>", true, shape{closesFirst: true, onlyClosers: true}},
		{"</>", true, shape{closesFirst: true, onlyClosers: true}},
		{"fi", true, shape{closesFirst: true, onlyClosers: true}},
		{"done;", true, shape{closesFirst: true, onlyClosers: true}},
		{"/**", true, shape{opensLast: true, onlyOpeners: true}},
		{"{", true, shape{opensLast: true, onlyOpeners: true}},
		{"<section>", true, shape{opensLast: true, onlyOpeners: true}},
		{"}, {", true, shape{closesFirst: true, opensLast: true}},
		{"{}", false, shape{}},
		{"()", false, shape{}},
		{";", false, shape{}},
		{"", false, shape{}},
		{"} else {", false, shape{}},
		{"<div class=\"x\">", false, shape{}},
		{"finally", false, shape{}},
		{"x();", false, shape{}},
	}
	for _, tt := range tests {
		got, ok := boundaryRow(tt.row)
		if ok != tt.ok || ok && got != tt.want {
			t.Errorf("boundaryRow(%q) = %+v, %v; want %+v, %v", tt.row, got, ok, tt.want, tt.ok)
		}
	}
}

func TestEndsOpen(t *testing.T) {
	for row, want := range map[string]bool{
		"if (a) {": true, "foo(": true, "x = [": true, "/**": true, "<section className=\"outer\">": true, "<>": true,
		"if [ -n \"$x\" ]; then": true, "for f in *; do": true, "case $x in": true,
		"x();": false, "a => b": false, "<Foo />": false, "a > b": false, "}": false, "": false, "echo in": false,
	} {
		if got := endsOpen(row); got != want {
			t.Errorf("endsOpen(%q) = %v, want %v", row, got, want)
		}
	}
}

func TestResultIndex(t *testing.T) {
	// The kept line's position must be where Apply puts it, whatever the
	// other ops do above it.
	lines := []string{"a", "b", "c", "d", "e"}
	p, err := Parse("PUT <1:\n+h\nCUT 2.=2\nPUT 3.=3:\n+x\n+y", Limits{})
	if err != nil {
		t.Fatal(err)
	}
	ir, err := Lower(p, len(lines), Limits{})
	if err == nil {
		ir, err = Expand(ir, lines, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	res, err := Apply(lines, ir)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []int{1, 4, 5} {
		if i := resultIndex(ir, l); res.Lines[i] != lines[l-1] {
			t.Errorf("resultIndex(%d) = %d, which holds %q in %q", l, i, res.Lines[i], res.Lines)
		}
	}
	if !slices.Equal(res.Lines, []string{"h", "a", "x", "y", "d", "e"}) {
		t.Fatalf("apply gave %q", res.Lines)
	}
}

// The indentation evidence of retention, rule by rule. Under the bracket
// grammar every balanced text parses and every bracket row is essential,
// so only the row rules decide.
func TestRepairIndentationEvidence(t *testing.T) {
	tests := []struct {
		name, input, ops, want string
	}{
		{"a closer is kept after a body indented inside it",
			"f {\n  x\n}\n", "PUT 3.=3:\n+  y", "f {\n  x\n  y\n}\n"},
		{"a closer is kept before a body at its own depth",
			"f {\n  x\n}\n", "PUT 3.=3:\n+y", "f {\n  x\n}\ny\n"},
		{"a closer fits neither side of a body shallower than it",
			"f {\n  g {\n    x\n  }\n}\n", "PUT 4.=4:\n+y", "f {\n  g {\n    x\ny\n}\n"},
		{"tabs and spaces that do not nest are no evidence",
			"f {\n\tg {\n\t\tx\n\t}\n}\n", "PUT 4.=4:\n+    y", "f {\n\tg {\n\t\tx\n    y\n}\n"},
		{"a body ending at the closer's depth is not inside it",
			"if (a) {\n  x\n}\n", "PUT 2.=3:\n+  x2\n+}\n+if (b) {", "if (a) {\n  x2\n}\nif (b) {\n"},
		{"an opener is kept before a body indented inside it",
			"a\n{\n  x\n}\n", "PUT 2.=3:\n+  y", "a\n{\n  y\n}\n"},
		{"an opener is not kept before a body at its own depth",
			"a\n{\n  x\n}\n", "PUT 2.=3:\n+y", "a\ny\n}\n"},
		{"a pure opener is kept after a body at its own depth",
			"a\nb\n{\n  x\n}\n", "PUT 2.=3:\n+c", "a\nc\n{\n  x\n}\n"},
		{"a pure opener is not kept after a body at another depth",
			"a\nb\n{\n  x\n}\n", "PUT 2.=3:\n+  c", "a\n  c\n  x\n}\n"},
		{"a kept row may not repeat the body row beside it",
			"f {\n  g {\n    x\n  }\n  y\n}\n", "PUT 4.=5:\n+  }\n+  h {\n+  z", "f {\n  g {\n    x\n  }\n  h {\n  z\n}\n"},
		{"keeping the row may not put two inserts at one gap",
			"if (a) {\n  x\n}\nafter\n", "PUT >2:\n+  w\nPUT 3.=3:\n+  y", "if (a) {\n  x\n  w\n  y\nafter\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := runRepair(t, tt.input, tt.ops, Env{}, balanceSyntax{})
			if o.err != nil || o.got != tt.want {
				t.Fatalf("got %q, %v\nwant %q", o.got, o.err, tt.want)
			}
			lines, _ := splitText(tt.input)
			checkRepair(t, lines, tt.ops, balanceSyntax{})
		})
	}
}

func TestRepairCommentFences(t *testing.T) {
	for _, tc := range []repairCase{
		{name: "a swallowed comment closer is kept after comment rows at its depth", path: "f.ts",
			input: "class C {\n\t/**\n\t * Old.\n\t */\n\tm() {}\n}\n", ops: "PUT 3.=4:\n+\t * New.",
			want: "class C {\n\t/**\n\t * New.\n\t */\n\tm() {}\n}\n", warnings: []string{`kept line 4 "\t */" after the body`}},
		{name: "refused: the comment's opener is not aligned with its closer", path: "f.ts",
			input: "class C {\n/**\n\t * Old.\n\t */\n\tm() {}\n}\n", ops: "PUT 3.=4:\n+\t * New.",
			want: "class C {\n/**\n\t * New.\n\tm() {}\n}\n"},
	} {
		t.Run(tc.name, tc.run)
	}
}

// numbered returns n filler lines "// line i", so a case can sit at the
// line numbers of the edit it was taken from.
func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "// line %d\n", i)
	}
	return b.String()
}

// A blank body row restates nothing (edit-contract §8.4): adding a blank
// line next to a blank line is ordinary. The shapes are those of real
// edits that repair changed or refused (issue 17: 15 of 2,412 replayed).
func TestRepairBlankRowsAreNotRestatements(t *testing.T) {
	goHead := "package api\n\n" + numbered(10) + "\n"
	for _, tc := range []repairCase{
		{name: "a blank line added before a doc comment, after a blank line (PUT 14.=14:)", path: "api.go",
			input: goHead + "// Deprecated: use Configure.\n" + "type HandlerWithErrorConfigurer func(*HandlerWithError)\n",
			ops:   "PUT 14.=14:\n+\n+// HandlerWithErrorConfigurer is a function that configures a HandlerWithError.",
			want: goHead + "\n// HandlerWithErrorConfigurer is a function that configures a HandlerWithError.\n" +
				"type HandlerWithErrorConfigurer func(*HandlerWithError)\n"},
		{name: "the same under a grammar", path: "api.ts",
			input: goHead + "// Deprecated: use configure.\n" + "export type Configurer = (h: Handler) => void;\n",
			ops:   "PUT 14.=14:\n+\n+// Configurer configures a handler.",
			want:  goHead + "\n// Configurer configures a handler.\n" + "export type Configurer = (h: Handler) => void;\n"},
		{name: "a heading and a blank row in a README, before a blank line (PUT 1.=1:)", path: "README.md",
			input: "# hostd\n\nA daemon.\n", ops: "PUT 1.=1:\n+# hostd\n+",
			want: "# hostd\n\n\nA daemon.\n"},
		{name: "two lines become one blank line before a blank line (PUT 50.=51:)", path: "mod.py",
			input: numbered(47) + "def f():\n    pass\nDEBUG = True\nVERBOSE = False\n\n\ndef g():\n    pass\n",
			ops:   "PUT 50.=51:\n+",
			want:  numbered(47) + "def f():\n    pass\n\n\n\ndef g():\n    pass\n"},
		{name: "the same without a grammar", input: numbered(49) + "a\nb\n\nc\n", ops: "PUT 50.=51:\n+",
			want: numbered(49) + "\n\nc\n"},
		{name: "a whitespace-only row beside a whitespace-only line", input: "a\n    \nb\nc\n", ops: "PUT 3.=3:\n+    \n+B",
			want: "a\n    \n    \nB\nc\n"},
		{name: "a blank row as the only change beside a blank line", input: "a\n\nb\n", ops: "PUT 3.=3:\n+\n+b",
			want: "a\n\n\nb\n"},
		{name: "still dropped: a non-blank first row restating the line above, with a blank row after it", path: "f.ts",
			input: "const a = 1;\nconst b = 2;\n\nconst c = 3;\n", ops: "PUT 2.=2:\n+const a = 1;\n+const b = 20;\n+",
			want:     "const a = 1;\nconst b = 20;\n\n\nconst c = 3;\n",
			warnings: []string{`dropped body row 1 "const a = 1;", an exact restatement of line 1 just above`}},
		{name: "still dropped: a non-blank last row restating the line below, with a blank row before it", path: "f.ts",
			input: "const a = 1;\n\nconst b = 2;\nconst c = 3;\n", ops: "PUT 2.=3:\n+\n+const b = 20;\n+const c = 3;",
			want:     "const a = 1;\n\nconst b = 20;\nconst c = 3;\n",
			warnings: []string{`dropped body row 3 "const c = 3;", an exact restatement of line 4 just below`}},
	} {
		t.Run(tc.name, tc.run)
	}
}

// tsLoad is a TypeScript function whose if-block sits at lines 818-820,
// the range of the chained edit the replay of issue 17 saw land wrong.
var tsLoad = numbered(814) +
	"export async function loadProfile(id: string): Promise<Profile> {\n" +
	"  const res = await fetch(`/api/profiles/${id}`);\n" +
	"  const body = await res.json();\n" +
	"  if (!res.ok) {\n" +
	"    throw new ProfileError(id, res.status, body.message);\n" +
	"  }\n" +
	"  return parseProfile(body);\n" +
	"}\n"

// Retention keeps a swallowed closer only when the body did not
// re-author the construct it closes (edit-contract §8.4).
func TestRepairRetentionNeedsAMissingCloser(t *testing.T) {
	for _, tc := range []repairCase{
		{name: "a body that opens try { around the whole if-block keeps nothing (PUT 818.=820:)", path: "profile.ts",
			input: tsLoad,
			ops: "PUT 818.=820:\n+  try {\n+    if (!res.ok) {\n" +
				"+      throw new ProfileError(id, res.status, body.message);\n+    }",
			want: strings.Replace(tsLoad, "  if (!res.ok) {\n    throw new ProfileError(id, res.status, body.message);\n  }\n",
				"  try {\n    if (!res.ok) {\n      throw new ProfileError(id, res.status, body.message);\n    }\n", 1),
			warnings: []string{`boundary repair on "PUT 818.=820:" (ops line 1): the result does not parse, and line 820 "  }", which the range covers, was not kept: the body carries line 818 "if (!res.ok) {" again with its own closer, so what is left open is something the body opened, which a later edit may close. If line 820 was meant to stay, insert it after the body with PUT <822: and the row "  }", using the new tag`}},
		{name: "the same with the if-block's text changed is still re-authored only by its opener", path: "profile.ts",
			input: tsLoad,
			ops: "PUT 818.=820:\n+  try {\n+    if (!res.ok) {\n" +
				"+      throw new ProfileError(id, res.status, `${body.message}`);\n+    }",
			want: strings.Replace(tsLoad, "  if (!res.ok) {\n    throw new ProfileError(id, res.status, body.message);\n  }\n",
				"  try {\n    if (!res.ok) {\n      throw new ProfileError(id, res.status, `${body.message}`);\n    }\n", 1),
			warnings: []string{`line 820 "  }", which the range covers, was not kept`}},
		{name: "a re-authored closer at the end of the file: the way back is PUT >$:", path: "f.ts",
			input: "if (a) {\n  x();\n}\n", ops: "PUT 1.=3:\n+try {\n+  if (a) {\n+    x();\n+  }",
			want:     "try {\n  if (a) {\n    x();\n  }\n",
			warnings: []string{`insert it after the body with PUT >$: and the row "}"`}},
		{name: "a result that parses needs no note", path: "f.ts",
			input: "if (a) {\n  x();\n}\n", ops: "PUT 1.=3:\n+if (a) {\n+  y();\n+  }",
			want: "if (a) {\n  y();\n  }\n"},
		{name: "kept: a nested block added inside the opener the closer belongs to", path: "profile.ts",
			input: tsLoad,
			ops: "PUT 818.=820:\n+  if (!res.ok) {\n+    if (res.status === 404) {\n+      return null;\n+    }\n" +
				"+    throw new ProfileError(id, res.status, body.message);",
			want: strings.Replace(tsLoad, "  if (!res.ok) {\n    throw",
				"  if (!res.ok) {\n    if (res.status === 404) {\n      return null;\n    }\n    throw", 1),
			warnings: []string{`kept line 820 "  }" after the body`}},
		{name: "kept: the opener rewritten and its closer swallowed", path: "profile.ts",
			input: tsLoad,
			ops:   "PUT 818.=820:\n+  if (!res.ok || !body) {\n+    throw new ProfileError(id, res.status, body?.message);",
			want: strings.Replace(tsLoad, "  if (!res.ok) {\n    throw new ProfileError(id, res.status, body.message);\n",
				"  if (!res.ok || !body) {\n    throw new ProfileError(id, res.status, body?.message);\n", 1),
			warnings: []string{`kept line 820 "  }" after the body`}},
	} {
		t.Run(tc.name, tc.run)
	}
}

func TestRowBrackets(t *testing.T) {
	str := func(bs []bracket) string {
		var b strings.Builder
		for _, x := range bs {
			b.WriteByte(x.b)
		}
		return b.String()
	}
	for row, want := range map[string]string{
		"if (a) {":                   "(){",
		"  }, [":                     "}[",
		`x = "}" + '{' + ` + "`)`;":  "",
		`s = "a\"}"; f(`:             "(",
		"call(); // closes } later":  "()",
		"const u = `${id}`; g([":     "([",
		"r = a / b; h({":             "({",
		"const unterminated = \"{ (": "",
	} {
		if got := str(rowBrackets(row)); got != want {
			t.Errorf("rowBrackets(%q) = %q, want %q", row, got, want)
		}
	}
}

func TestReauthored(t *testing.T) {
	lines := []string{"f {", "  if (a) {", "    x();", "  }", "}"}
	tests := []struct {
		name string
		at   int
		body []string
		want bool
	}{
		{"the opener and its closer moved inside a new block", 4, []string{"  try {", "    if (a) {", "      x();", "    }"}, true},
		{"the opener kept but left open", 4, []string{"  if (a) {", "    if (b) {", "      x();", "    }"}, false},
		{"the opener rewritten", 4, []string{"  if (b) {", "    x();"}, false},
		{"the closer closes what opened above the range", 5, []string{"  y();"}, false},
		{"two rows read like the opener and one is closed: no evidence which one the closer belongs to", 4, []string{"  if (a) {", "    if (a) {", "      x();", "    }"}, true},
	}
	for _, tt := range tests {
		from := 2
		if tt.at == 5 {
			from = 5
		}
		if got := reauthored(Lines(lines), from, tt.at, tt.body); got != tt.want {
			t.Errorf("%s: reauthored = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// releasingSyntax is a setSyntax that counts the checks made after it
// was released, and the releases.
type releasingSyntax struct {
	setSyntax
	released, late int
}

func (r *releasingSyntax) Check(text string) (bool, bool) {
	if r.released > 0 {
		r.late++
	}
	return r.setSyntax.Check(text)
}

func (r *releasingSyntax) Release() { r.released++ }

// Repair releases a checker that keeps something between checks (a
// parse tree) once its search is done, whether it repaired, refused or
// had nothing to check, and checks nothing after that.
func TestRepairReleasesTheChecker(t *testing.T) {
	input := "if (a) {\n  x();\n}\nif (b) {\n  y();\n}\n"
	lines, _ := splitText(input)
	keepFirst := "if (a) {\n  x();\n  X();\n}\nif (b) {\n  y();\n  Y();\n"
	keepSecond := "if (a) {\n  x();\n  X();\nif (b) {\n  y();\n  Y();\n}\n"
	for _, tc := range []struct {
		name, ops string
		parse     []string
		err       bool
	}{
		{"a closer kept", "PUT 3.=3:\n+  X();\nPUT 6.=6:\n+  Y();", []string{wholeText(lines), keepFirst}, false},
		{"a tie refused", "PUT 3.=3:\n+  X();\nPUT 6.=6:\n+  Y();", []string{wholeText(lines), keepFirst, keepSecond}, true},
		{"nothing to check", "PUT 2.=2:\n+  z();", nil, false},
	} {
		syn := &releasingSyntax{setSyntax: setSyntax{}}
		for _, p := range tc.parse {
			syn.setSyntax[p] = true
		}
		o := runRepair(t, input, tc.ops, Env{}, syn)
		if (o.err != nil) != tc.err {
			t.Errorf("%s: got %q, %v", tc.name, o.got, o.err)
		}
		if syn.released != 1 || syn.late != 0 {
			t.Errorf("%s: released %d times, %d checks after it; want once, after the last check", tc.name, syn.released, syn.late)
		}
	}
}
