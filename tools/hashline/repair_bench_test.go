package hashline

import (
	"fmt"
	"strings"
	"testing"
)

// benchTS is a TypeScript file of n functions, 5 lines each.
func benchTS(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "function f%d(a: number): number {\n\tconst x = a + %d;\n\tlog(x);\n\treturn x;\n}\n", i, i)
	}
	return b.String()
}

func benchRepair(b *testing.B, n int, ops string) {
	text := benchTS(n)
	lines, _ := splitText(text)
	syn := treeSitter(b, "bench.ts", text)
	ir, err := Lower(mustParseB(b, ops), len(lines), Limits{})
	if err == nil {
		ir, err = Expand(ir, lines, nil)
	}
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for b.Loop() {
		if _, _, err := Repair(lines, ir, syn); err != nil {
			b.Fatal(err)
		}
	}
}

func mustParseB(b *testing.B, ops string) *Patch {
	p, err := Parse(ops, Limits{})
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// No restatement and no boundary row in the range: no parse at all.
func BenchmarkRepairNothingToDo(b *testing.B) {
	benchRepair(b, 1000, "PUT 2502.=2502:\n+\tconst x = a + 1;")
}

// A restated neighbour: one parse of the result.
func BenchmarkRepairEcho(b *testing.B) {
	benchRepair(b, 1000, "PUT 2502.=2502:\n+\tconst x = a + 1;\n+\tlog(x);")
}

// A swallowed closer: the result, the original, the original without the
// row, and the candidate are parsed (four parses of a 5,000-line file).
func BenchmarkRepairKeptCloser(b *testing.B) {
	benchRepair(b, 1000, "PUT 2504.=2505:\n+\treturn x + 1;")
}
