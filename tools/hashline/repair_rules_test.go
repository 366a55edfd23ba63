package hashline

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// The row rules of boundary repair (§8.4), each on its own: which rows
// are structure, how indentation and brackets decide a candidate, blank
// rows, re-authored closers, and the checker's release.

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
	ir, err := lowerStep(p, len(lines), Limits{})
	if err == nil {
		ir, err = expandLines(ir, lines, nil)
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
			if o.err != nil && o.q == nil || o.got != tt.want {
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
			want: "class C {\n\t/**\n\t * New.\n\t */\n\tm() {}\n}\n", asks: true, warnings: []string{`deletes line 4 "\t */", and the result as sent does not parse; keeping that line after the body`}},
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
			want: "const a = 1;\nconst b = 20;\n\n\nconst c = 3;\n",
			asks: true, warnings: []string{`body row 1 "const a = 1;" is the same text as line 1 just above the range`}},
		{name: "still dropped: a non-blank last row restating the line below, with a blank row before it", path: "f.ts",
			input: "const a = 1;\n\nconst b = 2;\nconst c = 3;\n", ops: "PUT 2.=3:\n+\n+const b = 20;\n+const c = 3;",
			want: "const a = 1;\n\nconst b = 20;\nconst c = 3;\n",
			asks: true, warnings: []string{`body row 3 "const c = 3;" is the same text as line 4 just below the range`}},
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
			asks: true, warnings: []string{`deletes line 820 "  }", and the result as sent does not parse; keeping that line after the body`}},
		{name: "kept: the opener rewritten and its closer swallowed", path: "profile.ts",
			input: tsLoad,
			ops:   "PUT 818.=820:\n+  if (!res.ok || !body) {\n+    throw new ProfileError(id, res.status, body?.message);",
			want: strings.Replace(tsLoad, "  if (!res.ok) {\n    throw new ProfileError(id, res.status, body.message);\n",
				"  if (!res.ok || !body) {\n    throw new ProfileError(id, res.status, body?.message);\n", 1),
			asks: true, warnings: []string{`deletes line 820 "  }", and the result as sent does not parse; keeping that line after the body`}},
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
		{"a closer asked about", "PUT 3.=3:\n+  X();\nPUT 6.=6:\n+  Y();", []string{wholeText(lines), keepFirst}, true},
		{"a tie asked about", "PUT 3.=3:\n+  X();\nPUT 6.=6:\n+  Y();", []string{wholeText(lines), keepFirst, keepSecond}, true},
		{"nothing to check", "PUT 2.=2:\n+  z();", nil, false},
	} {
		syn := &releasingSyntax{setSyntax: setSyntax{}}
		for _, p := range tc.parse {
			syn.setSyntax[p] = true
		}
		p, ir, ok := validIR(lines, tc.ops)
		if !ok {
			t.Fatalf("%s: %q does not plan", tc.name, tc.ops)
		}
		if _, err := repairStep(Lines(lines), p, ir, Env{Syntax: syn}); (err != nil) != tc.err {
			t.Errorf("%s: got %v", tc.name, err)
		}
		if syn.released != 1 || syn.late != 0 {
			t.Errorf("%s: released %d times, %d checks after it; want once, after the last check", tc.name, syn.released, syn.late)
		}
	}
}
