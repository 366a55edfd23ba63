package tools

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/internal/testenv"
	"github.com/hostd-dev/hostd/tools/langserver"
)

// BenchmarkEditDiagnostics times an edit of a Go and a TypeScript file
// (a line changed back and forth, both versions clean) with its language
// server warm, beside the same edit with language servers off: what the
// diagnostics add to an edit. Each iteration is one edit; the quantiles
// are reported as p50-ms and p99-ms.
func BenchmarkEditDiagnostics(b *testing.B) {
	files := []struct{ server, name, head, body, line string }{
		{"gopls", "a.go", "package a\n\n", "func f%d(x int) int {\n\treturn x + %d\n}\n\n", "\treturn x + %d"},
		{"typescript-language-server", "a.ts", "", "export function f%d(x: number): number {\n  return x + %d;\n}\n\n", "  return x + %d;"},
	}
	for _, f := range files {
		for _, on := range []bool{false, true} {
			name := f.name + "/off"
			if on {
				name = f.name + "/" + f.server
			}
			b.Run(name, func(b *testing.B) {
				if on {
					testenv.LanguageServer(b, f.server)
				}
				e := newEditEnvLimits(b, config.DefaultLimits())
				if on {
					m := langserver.New(langserver.Options{})
					b.Cleanup(m.Close)
					e.x = NewExecutor(Options{Sessions: e.m, Limits: e.lim, Tools: Builtin(), Diagnostics: m, DiagnosticsWait: time.Minute})
				} else {
					e.x = NewExecutor(Options{Sessions: e.m, Limits: e.lim, Tools: Builtin()})
				}
				e.write("go.mod", "module example.com/a\n\ngo 1.22\n")
				var text strings.Builder
				text.WriteString(f.head)
				for i := range 100 {
					fmt.Fprintf(&text, f.body, i, i)
				}
				e.write(f.name, text.String())
				tag := e.showAll(f.name)
				line := strings.Count(f.head, "\n") + 2 // the first function's return
				edit := func(i int) {
					r := e.edit(f.name, tag, fmt.Sprintf("PUT %d:\n+"+f.line, line, i%7))
					if !r.OK || len(r.Diagnostics) > 0 || r.DiagnosticsPending {
						b.Fatalf("edit: %+v\n%s", r.Diagnostics, r.Content)
					}
					tag = r.Tag
				}
				for i := range 5 { // warm the server and the parse cache
					edit(i + 1)
				}
				times := make([]time.Duration, 0, b.N)
				b.ResetTimer()
				for i := 0; b.Loop(); i++ {
					start := time.Now()
					edit(i + 10)
					times = append(times, time.Since(start))
				}
				b.ReportMetric(float64(quantile(times, 0.5).Microseconds())/1000, "p50-ms")
				b.ReportMetric(float64(quantile(times, 0.99).Microseconds())/1000, "p99-ms")
			})
		}
	}
}
