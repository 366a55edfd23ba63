package hashline

import (
	"fmt"
	"strings"
	"testing"
)

// The benchmarks run the whole language (Run: parse to apply) on the
// shapes that will be compared with the reference implementation.

func benchLines(n int) []string {
	lines := make([]string, n)
	for i := range lines {
		lines[i] = fmt.Sprintf("\tvalue%d := compute(%d, \"line\") // %d", i, i*7, i)
	}
	return lines
}

// benchOps spreads k ops evenly over n lines, cycling through a two-line
// replacement, an insert after, a deletion and an insert before.
func benchOps(k, n int) string {
	var b strings.Builder
	step := n / k
	for i := 0; i < k; i++ {
		l := i*step + 1
		switch i % 4 {
		case 0:
			fmt.Fprintf(&b, "PUT %d.=%d:\n+\tvalue := replaced(%d)\n+\tuse(value)\n+\tcheck(value)\n", l, l+1, i)
		case 1:
			fmt.Fprintf(&b, "PUT >%d:\n+\tinserted(%d)\n", l, i)
		case 2:
			fmt.Fprintf(&b, "CUT %d.=%d\n", l, l)
		case 3:
			fmt.Fprintf(&b, "PUT <%d:\n+\t// note %d\n+\tbefore(%d)\n", l+1, i, i)
		}
	}
	return b.String()
}

func benchRun(b *testing.B, lines []string, ops string) {
	b.Helper()
	if _, err := Run(lines, ops, Env{}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(ops)))
	for b.Loop() {
		if _, err := Run(lines, ops, Env{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseApply50Ops10kLines(b *testing.B) {
	benchRun(b, benchLines(10000), benchOps(50, 10000))
}

func BenchmarkParseApplySingleOp5kLines(b *testing.B) {
	benchRun(b, benchLines(5000), "PUT 2500.=2501:\n+\tvalue := replaced()\n+\tuse(value)\n")
}

func BenchmarkParseApply50Ops5kLines(b *testing.B) {
	benchRun(b, benchLines(5000), benchOps(50, 5000))
}

func BenchmarkParse50Ops(b *testing.B) {
	ops := benchOps(50, 10000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(ops, Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}
