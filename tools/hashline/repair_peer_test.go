package hashline

import (
	"errors"
	"testing"
)

// Peer lesson 4: the reference's automatic repair at range edges
// duplicated or dropped lines without a word, ten and more times in one
// session. Here every way a repair can duplicate or drop a line at a range
// edge either does not happen (the edit applies as written), happens with
// a warning naming the row (checked against the splice oracle), or is
// refused.
func TestPeerLessonRepairNeverSilent(t *testing.T) {
	const (
		asWritten = "as written"
		warned    = "warned"
		refused   = "refused"
	)
	tests := []struct {
		name, path, input, ops string
		want                   string
		repairs                int // warned: how many rows changed
	}{
		// Lines a repair could drop.
		{"a restated statement is dropped, and says so", "f.ts",
			"foo();\nold();\nbar();\n", "PUT 2.=2:\n+fresh();\n+bar();", warned, 1},
		{"a body row equal to the range's own row is not dropped", "f.ts",
			"foo();\nbar();\nbar();\nbaz();\n", "PUT 2.=2:\n+qux();\n+bar();", asWritten, 0},
		{"a closer the file needs twice is not dropped", "f.ts",
			"function f() {\na();\n}\n", "PUT 2.=2:\n+if (x) {\n+a();\n+}", asWritten, 0},
		{"a body of restatements only is refused, not emptied", "f.ts",
			"a();\nold();\nc();\n", "PUT 2.=2:\n+a();\n+c();", refused, 0},
		{"a restated annotation that is the whole body is refused (the #[napi] incident)", "f.rs",
			"/// Old doc.\n#[napi]\npub fn f() {}\n", "PUT 1.=1:\n+#[napi]", refused, 0},
		{"a restatement that is the only change is refused", "f.ts",
			"a = 1;\nb = 2;\nc = 3;\n", "PUT 1.=1:\n+a = 1;\n+b = 2;", refused, 0},
		{"two restated rows below the range are not one restatement (the Root.tsx incident)", "f.tsx",
			"const C = () => (\n\t<>\n\t\t<A />\n\t</>\n);\n", "PUT 3.=3:\n+\t\t<B />\n+\t</>\n+);", asWritten, 0},
		// Lines a repair could duplicate.
		{"a swallowed closer is kept, and says so", "f.ts",
			"const h = {\n\ta() {\n\t\treturn 1;\n\t},\n};\n", "PUT 5.=5:\n+\tb() {\n+\t\treturn 2;\n+\t},", warned, 1},
		{"a closer the body already restates is not kept again", "f.ts",
			"class Foo {\n\tok();\n\t}\n}\n", "PUT 1.=4:\n+class Foo {\n+\tok();\n+}", asWritten, 0},
		{"no closer is kept in a file that did not parse", "f.ts",
			"\told();\n}\n", "PUT <1:\n+if (a) {\nPUT 1.=2:\n+\tfresh();", asWritten, 0},
		{"no closer is kept without a grammar", "f.txt",
			"const h = {\n\ta() {\n\t\treturn 1;\n\t},\n};\n", "PUT 5.=5:\n+\tb() {\n+\t\treturn 2;\n+\t},", asWritten, 0},
		// Several slips in one call: each is its own warning.
		{"every repair of a call is reported", "f.ts",
			"on(() => {\n\tfoo();\n});\nconst c = {\n\ta: 1,\n};\nlet z = 0;\n",
			"PUT 2.=2:\n+\tbar();\n+});\nPUT 6.=6:\n+\tb: 2,\nPUT 7.=7:\n+let z = 1;", warned, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines, _ := splitText(tt.input)
			acts, err := checkRepair(t, lines, tt.ops, treeSitter(t, tt.path, tt.input))
			got := asWritten
			switch {
			case errors.Is(err, ErrRepairAmbiguous):
				got = refused
			case len(acts) > 0:
				got = warned
			}
			if got != tt.want || len(acts) != tt.repairs {
				t.Fatalf("outcome %s with repairs %+v; want %s with %d", got, acts, tt.want, tt.repairs)
			}
			// The public form: as many warnings as repairs.
			o := runRepair(t, tt.input, tt.ops, Env{}, treeSitter(t, tt.path, tt.input))
			if len(o.warns) != tt.repairs || (tt.want == refused) != (o.err != nil) {
				t.Errorf("Repair gave warnings %q and error %v", o.warns, o.err)
			}
			if tt.want == asWritten && o.got != joinText(spliceOracle(lines, mustParse(t, tt.ops), nil), true) {
				t.Errorf("applied %q, which is not the edit as written", o.got)
			}
		})
	}
}
