package hashline

import "testing"

// Peer lesson 4: the reference's automatic repair at range edges
// duplicated or dropped lines without a word, ten and more times in one
// session. Here every way a repair can duplicate or drop a line at a range
// edge either does not happen (the edit applies as written) or is asked
// about, naming the row (checked against the splice oracle), with nothing
// written until the model says which it meant.
func TestPeerLessonRepairNeverSilent(t *testing.T) {
	const (
		asWritten = "as written"
		asks      = "asks"
	)
	tests := []struct {
		name, path, input, ops string
		want                   string
		repairs                int // asks: how many rows the proposed repair changes
	}{
		// Lines a repair could drop.
		{"a restated statement is asked about", "f.ts",
			"foo();\nold();\nbar();\n", "PUT 2.=2:\n+fresh();\n+bar();", asks, 1},
		{"a body row equal to the range's own row is not dropped", "f.ts",
			"foo();\nbar();\nbar();\nbaz();\n", "PUT 2.=2:\n+qux();\n+bar();", asWritten, 0},
		{"a closer the file needs twice is not dropped", "f.ts",
			"function f() {\na();\n}\n", "PUT 2.=2:\n+if (x) {\n+a();\n+}", asWritten, 0},
		{"a body of restatements only is asked about, not emptied", "f.ts",
			"a();\nold();\nc();\n", "PUT 2.=2:\n+a();\n+c();", asks, 0},
		{"a restated annotation that is the whole body is asked about (the #[napi] incident)", "f.rs",
			"/// Old doc.\n#[napi]\npub fn f() {}\n", "PUT 1.=1:\n+#[napi]", asks, 0},
		{"a restatement that is the only change is asked about", "f.ts",
			"a = 1;\nb = 2;\nc = 3;\n", "PUT 1.=1:\n+a = 1;\n+b = 2;", asks, 0},
		{"two restated rows below the range are not one restatement (the Root.tsx incident)", "f.tsx",
			"const C = () => (\n\t<>\n\t\t<A />\n\t</>\n);\n", "PUT 3.=3:\n+\t\t<B />\n+\t</>\n+);", asWritten, 0},
		// Lines a repair could duplicate.
		{"a swallowed closer is asked about", "f.ts",
			"const h = {\n\ta() {\n\t\treturn 1;\n\t},\n};\n", "PUT 5.=5:\n+\tb() {\n+\t\treturn 2;\n+\t},", asks, 1},
		{"a closer the body already restates is not kept again", "f.ts",
			"class Foo {\n\tok();\n\t}\n}\n", "PUT 1.=4:\n+class Foo {\n+\tok();\n+}", asWritten, 0},
		{"no closer is kept in a file that did not parse", "f.ts",
			"\told();\n}\n", "PUT <1:\n+if (a) {\nPUT 1.=2:\n+\tfresh();", asWritten, 0},
		{"no closer is kept without a grammar", "f.txt",
			"const h = {\n\ta() {\n\t\treturn 1;\n\t},\n};\n", "PUT 5.=5:\n+\tb() {\n+\t\treturn 2;\n+\t},", asWritten, 0},
		// Several slips in one call: one question names each.
		{"every repair of a call is asked about", "f.ts",
			"on(() => {\n\tfoo();\n});\nconst c = {\n\ta: 1,\n};\nlet z = 0;\n",
			"PUT 2.=2:\n+\tbar();\n+});\nPUT 6.=6:\n+\tb: 2,\nPUT 7.=7:\n+let z = 1;", asks, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines, _ := splitText(tt.input)
			acts, err := checkRepair(t, lines, tt.ops, treeSitter(t, tt.path, tt.input))
			got := asWritten
			if err != nil || len(acts) > 0 {
				got = asks
			}
			if got != tt.want || len(acts) != tt.repairs {
				t.Fatalf("outcome %s with repairs %+v; want %s with %d", got, acts, tt.want, tt.repairs)
			}
			// The public form: a question exactly when asked, and never a
			// warning beside an edit that landed as written.
			o := runRepair(t, tt.input, tt.ops, Env{}, treeSitter(t, tt.path, tt.input))
			if len(o.warns) != 0 || (tt.want == asks) != (o.q != nil) {
				t.Errorf("Repair gave warnings %q and error %v", o.warns, o.err)
			}
			if tt.want == asWritten && o.got != joinText(spliceOracle(lines, mustParse(t, tt.ops), nil), true) {
				t.Errorf("applied %q, which is not the edit as written", o.got)
			}
		})
	}
}
