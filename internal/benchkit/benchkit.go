// Package benchkit holds what the project's benchmarks share: the edit
// workload cmd/hostbench and the tools benchmarks both time, the loop that
// times a case against a reference in the same iterations, and the large
// TypeScript file the parse benchmarks edit. It is for benchmarks and
// tests only.
package benchkit

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/workspace"
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

// TypeScriptFile is a TypeScript file of at least lines lines for the
// parse benchmarks: the files of corpus (the shared corpus's real
// TypeScript, each decoded as hostd reads it, a #! line dropped)
// concatenated over and over, or generated functions when corpus is
// empty. It returns the text and the 1-based line of a top-level
// function near its middle, where the benchmarks edit.
func TypeScriptFile(corpus []string, lines int) (text string, mid int, err error) {
	var sb strings.Builder
	n := 0
	if len(corpus) > 0 {
		for n < lines {
			for _, path := range corpus {
				raw, err := os.ReadFile(path)
				if err != nil {
					return "", 0, err
				}
				t, err := workspace.Decode(raw)
				if err != nil {
					return "", 0, fmt.Errorf("%s: %w", path, err)
				}
				body := t.Body
				if strings.HasPrefix(body, "#!") {
					// A #! line is valid only at the top of a file.
					_, body, _ = strings.Cut(body, "\n")
				}
				body = strings.TrimRight(body, "\n") + "\n\n"
				sb.WriteString(body)
				n += strings.Count(body, "\n")
				if n >= lines {
					break
				}
			}
		}
	} else {
		for i := 0; n < lines; i++ {
			fmt.Fprintf(&sb, "export function handler%d(input: Request, retries = %d): Promise<Response> {\n", i, i%5)
			fmt.Fprintf(&sb, "  const url = new URL(input.url);\n  if (url.pathname.startsWith(\"/api/%d\")) {\n", i)
			sb.WriteString("    return fetch(url, { method: \"POST\", body: JSON.stringify({ retries }) });\n  }\n")
			sb.WriteString("  return Promise.resolve(new Response(null, { status: 404 }));\n}\n\n")
			n += 8
		}
	}
	text = sb.String()
	all := workspace.Lines(text)
	for i := len(all) / 2; i < len(all); i++ {
		if strings.HasPrefix(all[i], "export function ") || strings.HasPrefix(all[i], "function ") {
			return text, i + 1, nil
		}
	}
	return "", 0, errors.New("no top-level function in the second half of the benchmark file")
}
