package hashline

import (
	"errors"
	"fmt"
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

// Language passes the checker's answer on, so a wrapped checker for a
// file without a grammar still says so.
func (c *countingSyntax) Language() string {
	if l, ok := c.Syntax.(interface{ Language() string }); ok {
		return l.Language()
	}
	return "unnamed"
}

// Release passes repair's release on, so a tree the checker keeps
// between checks is freed where the daemon frees it.
func (c *countingSyntax) Release() { release(c.Syntax) }

// noGrammar is a checker for a file type without a grammar, as
// tree-sitter's is for a ".txt" file.
type noGrammar struct{}

func (noGrammar) Check(string) (bool, bool) { return false, false }
func (noGrammar) Language() string          { return "" }

// setSyntax is a grammar under which exactly the listed texts parse, for
// rules that need a text to parse or not regardless of any real language.
type setSyntax map[string]bool

func (s setSyntax) Check(text string) (bool, bool) { return true, s[text] }

func TestRepairExactRestatement(t *testing.T) {
	for _, tc := range []repairCase{
		{name: "a last row restating the line below is asked about", path: "notes.txt", input: "a\nb\nc\n", ops: "PUT 2.=2:\n+B\n+c",
			want: "a\nB\nc\n", asks: true, sent: "a\nB\nc\nc\n", warnings: []string{`ops line 1: "PUT 2.=2:": body row 2 "c" is the same text as line 3 just below the range`}},
		{name: "a first row restating the line above is asked about", path: "notes.txt", input: "a\nb\nc\n", ops: "PUT 2.=2:\n+a\n+B",
			want: "a\nB\nc\n", asks: true, sent: "a\na\nB\nc\n", warnings: []string{`body row 1 "a" is the same text as line 1 just above the range`}},
		{name: "both ends", path: "notes.txt", input: "a\nb\nc\n", ops: "PUT 2.=2:\n+a\n+B\n+c",
			want: "a\nB\nc\n", asks: true, sent: "a\na\nB\nc\nc\n", warnings: []string{`row 1 "a"`, `row 3 "c"`}},
		{name: "without a checker the rows are written as sent, and the warning numbers them in the result", input: "a\nb\nc\n", ops: "PUT 2.=2:\n+a\n+B\n+c",
			want: "a\na\nB\nc\nc\n", warnings: []string{`boundary repair could not run its syntax check (no syntax checker is available), so it judged nothing and the rows were written exactly as sent. ` +
				`Check what it would have asked about, numbered in the new version: body row 1 "a" of "PUT 2.=2:", now line 2, is the same text as the line just above it: if it was copied from there by mistake, remove it with CUT 2; ` +
				`body row 3 "c" of "PUT 2.=2:", now line 4, is the same text as the line just below it: if it was copied from there by mistake, remove it with CUT 4`}},
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
		{name: "a resolved PUT N*: is a replacement; its repaired form is a range", path: "f.ts", useResolver: true,
			input: "f();\nfunction g() {\n  a();\n}\nh();\n", ops: "PUT 2*:\n+f();\n+function g() {\n+  b();\n+}",
			want: "f();\nfunction g() {\n  b();\n}\nh();\n", asks: true, warnings: []string{`"PUT 2*:": body row 1 "f();"`}},
		{name: "a body made only of restatements is refused", input: "a\nold\nc\n", ops: "PUT 2.=2:\n+a\n+c",
			code: CodeRepairAmbiguous},
		{name: "one row restating both neighbours is refused", input: "x\nold\nx\n", ops: "PUT 2.=2:\n+x",
			code: CodeRepairAmbiguous},
		{name: "a restatement that is the only change is refused", input: "a = 1;\nb = 2;\n", ops: "PUT 1.=1:\n+a = 1;\n+b = 2;",
			code: CodeRepairAmbiguous},
		{name: "a removal that would break a parsing result is not made", path: "f.ts",
			input: "function f() {\na();\n}\n", ops: "PUT 2.=2:\n+if (x) {\n+a();\n+}",
			want: "function f() {\nif (x) {\na();\n}\n}\n"},
		{name: "without a grammar the same removal is asked about", path: "f.txt",
			input: "function f() {\na();\n}\n", ops: "PUT 2.=2:\n+if (x) {\n+a();\n+}",
			want: "function f() {\nif (x) {\na();\n}\n", asks: true, sent: "function f() {\nif (x) {\na();\n}\n}\n", warnings: []string{`row 3 "}"`}},
		{name: "a removal is asked about when neither text parses", path: "f.ts",
			input: "function f() {\na();\n}\n", ops: "PUT 2.=2:\n+if (x) {\n+if (y) {\n+a();\n+}",
			want: "function f() {\nif (x) {\nif (y) {\na();\n}\n", asks: true, warnings: []string{`row 4 "}"`}},
		{name: "a removal is asked about when both texts parse: a parse is no proof", path: "f.ts",
			input: "a();\nb();\nc();\n", ops: "PUT 2.=2:\n+B();\n+c();",
			want: "a();\nB();\nc();\n", asks: true, sent: "a();\nB();\nc();\nc();\n", warnings: []string{`body row 2 "c();" is the same text as line 3 just below the range`}},
	} {
		t.Run(tc.name, tc.run)
	}
}

func TestRepairRetention(t *testing.T) {
	for _, tc := range []repairCase{
		{name: "a swallowed closer is kept after the body", path: "f.ts",
			input: "const handlers = {\n\ta() {\n\t\treturn 1;\n\t},\n};\n", ops: "PUT 5.=5:\n+\tb() {\n+\t\treturn 2;\n+\t},",
			want: "const handlers = {\n\ta() {\n\t\treturn 1;\n\t},\n\tb() {\n\t\treturn 2;\n\t},\n};\n",
			asks: true, warnings: []string{`ops line 1: "PUT 5.=5:" deletes line 5 "};", and the result as sent does not parse; keeping that line after the body`}},
		{name: "a swallowed comment opener is kept before the body", path: "f.ts",
			input: "class C {\n\t/**\n\t * Old summary.\n\t */\n\tmethod() {}\n}\n", ops: "PUT 2.=4:\n+\t * New summary.\n+\t */",
			want: "class C {\n\t/**\n\t * New summary.\n\t */\n\tmethod() {}\n}\n",
			asks: true, warnings: []string{`deletes line 2 "\t/**", and the result as sent does not parse; keeping that line before the body`}},
		{name: "a swallowed closer is kept before a body at its sibling depth", path: "f.rs",
			input: "fn f() {\n\tif a {\n\t\treturn;\n\t}\n\tlet lead = old1();\n}\n", ops: "PUT 4.=5:\n+\tlet lead = new1();",
			want: "fn f() {\n\tif a {\n\t\treturn;\n\t}\n\tlet lead = new1();\n}\n",
			asks: true, warnings: []string{`deletes line 4 "\t}", and the result as sent does not parse; keeping that line before the body`}},
		{name: "a dropped restatement and a kept closer in one call", path: "f.ts",
			input: "on(() => {\n\tfoo();\n});\n\nconst config = {\n\ta: 1,\n};\n",
			ops:   "PUT 2.=2:\n+\tsetup();\n+\tfoo();\n+});\nPUT 7.=7:\n+\tb: 2,",
			want:  "on(() => {\n\tsetup();\n\tfoo();\n});\n\nconst config = {\n\ta: 1,\n\tb: 2,\n};\n",
			asks:  true, warnings: []string{`"PUT 2.=2:": body row 3 "});"`,
				`"PUT 7.=7:" deletes line 7 "};", and the result as sent does not parse; keeping that line after the body`}},
		{name: "two swallowed closers are kept together when neither alone parses", path: "f.ts",
			input: "function f() {\n  a();\n}\nfunction g() {\n  b();\n}\n", ops: "PUT 3.=3:\n+  a2();\nPUT 6.=6:\n+  b2();",
			want: "function f() {\n  a();\n  a2();\n}\nfunction g() {\n  b();\n  b2();\n}\n",
			asks: true, warnings: []string{`deletes line 3 "}"`, `deletes line 6 "}"`}},
		{name: "the effective-last row skips trailing blank rows of the range", path: "f.ts",
			input: "if (a) {\n  x();\n}\n\n\nafter();\n", ops: "PUT 3.=5:\n+  y();",
			want: "if (a) {\n  x();\n  y();\n}\nafter();\n",
			asks: true, warnings: []string{`deletes line 3 "}", and the result as sent does not parse; keeping that line after the body`}},
		{name: "refused: the original did not parse", path: "f.ts",
			input: "if (a) {\n\told();\n}\n}\n", ops: "PUT 2.=3:\n+\tfresh();\nPUT 4.=4:\n+after();",
			want: "if (a) {\n\tfresh();\nafter();\n"},
		{name: "a body indented inside the block keeps the closer after it", path: "f.ts",
			input: "if (!global) {\n    setDone();\n    return;\n}\nafter();\n", ops: "PUT 4.=4:\n+    setIdent();",
			want: "if (!global) {\n    setDone();\n    return;\n    setIdent();\n}\nafter();\n", asks: true, warnings: []string{`deletes line 4 "}", and the result as sent does not parse; keeping that line after the body`}},
		{name: "a body at the closer's own depth keeps the closer before it", path: "f.ts",
			input: "if (!global) {\n    setDone();\n    return;\n}\nafter();\n", ops: "PUT 4.=4:\n+setIdent();",
			want: "if (!global) {\n    setDone();\n    return;\n}\nsetIdent();\nafter();\n", asks: true, warnings: []string{`deletes line 4 "}", and the result as sent does not parse; keeping that line before the body`}},
		{name: "refused: a body shallower than the closer fits neither side", path: "f.ts",
			input: "function f() {\n  if (a) {\n    x();\n  }\n}\n", ops: "PUT 4.=4:\n+y();",
			want: "function f() {\n  if (a) {\n    x();\ny();\n}\n"},
		{name: "refused: the closer does not line up with its opener", path: "f.ts",
			input: "function f() {\n  if (a) {\n    x();\n }\n}\n", ops: "PUT 4.=4:\n+    y();",
			want: "function f() {\n  if (a) {\n    x();\n    y();\n}\n"},
		{name: "kept: the same closer lined up", path: "f.ts",
			input: "function f() {\n  if (a) {\n    x();\n  }\n}\n", ops: "PUT 4.=4:\n+    y();",
			want: "function f() {\n  if (a) {\n    x();\n    y();\n  }\n}\n", asks: true, warnings: []string{`deletes line 4 "  }"`}},
		{name: "refused: a row with code on it is never kept", path: "f.ts",
			input: "if (a) {\n  x();\n} else {\n  y();\n}\n", ops: "PUT 3.=3:\n+  z();",
			want: "if (a) {\n  x();\n  z();\n  y();\n}\n"},
		{name: "a closer the body restates is not kept again", path: "f.ts",
			input: "class Foo {\n\tok();\n\t}\n}\n", ops: "PUT 1.=4:\n+class Foo {\n+\tok();\n+}",
			want: "class Foo {\n\tok();\n}\n"},
		{name: "no grammar: nothing is kept", path: "notes.txt",
			input: "const handlers = {\n\ta() {\n\t\treturn 1;\n\t},\n};\n", ops: "PUT 5.=5:\n+\tb() {\n+\t\treturn 2;\n+\t},",
			want: "const handlers = {\n\ta() {\n\t\treturn 1;\n\t},\n\tb() {\n\t\treturn 2;\n\t},\n"},
		{name: "no Syntax at all: nothing is kept, and the warning names the line and the insert that puts it back",
			input: "const handlers = {\n\ta() {\n\t\treturn 1;\n\t},\n};\n", ops: "PUT 5.=5:\n+\tb() {\n+\t\treturn 2;\n+\t},",
			want:     "const handlers = {\n\ta() {\n\t\treturn 1;\n\t},\n\tb() {\n\t\treturn 2;\n\t},\n",
			warnings: []string{`"PUT 5.=5:" deleted line 5 "};", which opens or closes a construct: if it was meant to stay, put it back with PUT >7: and the row "};"`}},
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
		{"every condition holds: keeping it is asked about", all, kept},
		{"the original does not parse: not kept", setSyntax{kept: true}, authored},
		{"deleting the row alone does not break the original: not kept", setSyntax{base: true, kept: true, withoutRow: true}, authored},
		{"the candidate does not parse: not kept", setSyntax{base: true}, authored},
		{"the authored result parses: no search", setSyntax{base: true, kept: true, authored: true}, authored},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := runRepair(t, input, ops, Env{}, tt.syn)
			if o.err != nil && o.q == nil || o.got != tt.want {
				t.Fatalf("got %q, %v; want %q", o.got, o.err, tt.want)
			}
			if (o.got != authored) != (o.q != nil) || len(o.warns) > 0 {
				t.Errorf("asked %v, warnings %q, for result %q", o.q != nil, o.warns, o.got)
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
	for _, frag := range []string{"2 repairs of equal cost", `keeping line 3 "}" after the body of "PUT 3.=3:"`, `keeping line 6 "}" after the body of "PUT 6.=6:"`, "sent again unchanged", "nothing was written"} {
		if !strings.Contains(e.Message, frag) {
			t.Errorf("message %q lacks %q", e.Message, frag)
		}
	}
	if len(o.q.Repaired) != 2 || o.got != keepFirst {
		t.Errorf("repaired forms %q give %q first; want one per repair, the first keeping line 3", o.q.Repaired, o.got)
	}
	// Only one of them parses: no tie, and keeping that one is asked.
	delete(syn, keepSecond)
	o = runRepair(t, input, "PUT 3.=3:\n+  X();\nPUT 6.=6:\n+  Y();", Env{}, syn)
	if o.q == nil || len(o.q.Repaired) != 1 || o.got != keepFirst {
		t.Fatalf("got %q, %v; want the question whose repaired form gives %q", o.got, o.err, keepFirst)
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
	if len(o.warns) != 1 || !strings.Contains(o.warns[0], "could not run its syntax check (it reached its bound of 32 checks") {
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
	ir, err := lowerStep(mustParse(t, ops.String()), len(lines), Limits{})
	if err == nil {
		ir, err = expandLines(ir, lines, nil)
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
	if _, err := repairStep(Lines{"a"}, nil, ir, Env{}); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("got %v, want INVALID_ARGUMENT", err)
	}
}
