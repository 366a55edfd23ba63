package hashline

import (
	"fmt"
	"testing"

	"github.com/hostd-dev/hostd/internal/benchkit"
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
	benchRun(b, benchLines(10000), benchkit.SpreadOps(50, 10000))
}

func BenchmarkParseApplySingleOp5kLines(b *testing.B) {
	benchRun(b, benchLines(5000), "PUT 2500.=2501:\n+\tvalue := replaced()\n+\tuse(value)\n")
}

func BenchmarkParseApply50Ops5kLines(b *testing.B) {
	benchRun(b, benchLines(5000), benchkit.SpreadOps(50, 5000))
}

func BenchmarkParse50Ops(b *testing.B) {
	ops := benchkit.SpreadOps(50, 10000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(ops, Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}
