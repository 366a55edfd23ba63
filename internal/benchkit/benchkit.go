// Package benchkit holds what the project's benchmarks share: the edit
// workload cmd/hostbench and the tools benchmarks both time, and the loop
// that times a case against a reference in the same iterations. It is for
// benchmarks and tests only.
package benchkit

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// SpreadOps spreads k ops evenly over n lines, cycling through a two-line
// replacement, an insert after a line, a one-line cut and an insert before
// a line: the shapes a model's multi-op edit is made of. The syntax is
// common to hostd and the reference implementation.
func SpreadOps(k, n int) string {
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

// RatioLoop runs op and ref alternately, each first in turn, so both see
// the same load on a shared machine, and reports their times per
// iteration (case-ns/op, parse-ns/op) and op's time over ref's (x-parse).
func RatioLoop(b *testing.B, ref, op func()) {
	var refTime, opTime time.Duration
	n := 0
	for b.Loop() {
		first, second := ref, op
		if n%2 == 1 {
			first, second = op, ref
		}
		t0 := time.Now()
		first()
		t1 := time.Now()
		second()
		t2 := time.Now()
		if n%2 == 0 {
			refTime, opTime = refTime+t1.Sub(t0), opTime+t2.Sub(t1)
		} else {
			opTime, refTime = opTime+t1.Sub(t0), refTime+t2.Sub(t1)
		}
		n++
	}
	b.ReportMetric(float64(opTime.Nanoseconds())/float64(n), "case-ns/op")
	b.ReportMetric(float64(refTime.Nanoseconds())/float64(n), "parse-ns/op")
	b.ReportMetric(float64(opTime)/float64(refTime), "x-parse")
}
