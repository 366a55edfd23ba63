package blocks

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/internal/testenv"
	"github.com/hostd-dev/hostd/workspace"
)

// benchLines is the size of the file the benchmarks edit.
const benchLines = 5000

// benchSource is a TypeScript file of at least benchLines lines: the real
// corpus files concatenated when the corpus is there, generated code
// otherwise. It returns the text and a line that opens a top-level
// function near the middle.
func benchSource(b *testing.B) (string, int) {
	b.Helper()
	var sb strings.Builder
	lines := 0
	if files, _ := filepath.Glob(filepath.Join(testenv.CorpusPath(b, "ts-edit-fixtures/fixtures"), "*/input/*.ts")); len(files) > 0 {
		for lines < benchLines {
			for _, path := range files {
				raw, err := os.ReadFile(path)
				if err != nil {
					b.Fatal(err)
				}
				text, err := workspace.Decode(raw)
				if err != nil {
					b.Fatal(err)
				}
				body := text.Body
				if strings.HasPrefix(body, "#!") {
					// A #! line is valid only at the top of a file.
					_, body, _ = strings.Cut(body, "\n")
				}
				body = strings.TrimRight(body, "\n") + "\n\n"
				sb.WriteString(body)
				lines += strings.Count(body, "\n")
				if lines >= benchLines {
					break
				}
			}
		}
	} else {
		for i := 0; lines < benchLines; i++ {
			fmt.Fprintf(&sb, "export function handler%d(input: Request, retries = %d): Promise<Response> {\n", i, i%5)
			fmt.Fprintf(&sb, "  const url = new URL(input.url);\n  if (url.pathname.startsWith(\"/api/%d\")) {\n", i)
			sb.WriteString("    return fetch(url, { method: \"POST\", body: JSON.stringify({ retries }) });\n  }\n")
			sb.WriteString("  return Promise.resolve(new Response(null, { status: 404 }));\n}\n\n")
			lines += 8
		}
	}
	text := sb.String()
	// A line opening a top-level function near the middle.
	all := workspace.Lines(text)
	for i := len(all) / 2; i < len(all); i++ {
		if strings.HasPrefix(all[i], "export function ") || strings.HasPrefix(all[i], "function ") {
			return text, i + 1
		}
	}
	b.Fatal("no top-level function in the benchmark file")
	return "", 0
}

// BenchmarkParse5000 is the baseline: one tree-sitter parse of the file.
func BenchmarkParse5000(b *testing.B) {
	text, _ := benchSource(b)
	src := []byte(text)
	lang := languages["typescript"].grammar()
	b.SetBytes(int64(len(src)))
	b.ResetTimer()
	for b.Loop() {
		p := sitter.NewParser()
		p.SetLanguage(lang)
		tree, err := p.ParseCtx(context.Background(), nil, src)
		if err != nil || tree.RootNode().HasError() {
			b.Fatalf("parse: %v", err)
		}
		tree.Close()
		p.Close()
	}
}

// BenchmarkBlockOp5000 is what one block op costs on the same file: build
// a resolver, resolve one line, release it. The contract's budget is 1.2x
// BenchmarkParse5000.
func BenchmarkBlockOp5000(b *testing.B) {
	text, line := benchSource(b)
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for b.Loop() {
		r, err := NewResolver("bench.ts", text, defaultLimit)
		if err != nil {
			b.Fatal(err)
		}
		if s, e, err := r.Resolve(line); err != nil || s != line || e <= s {
			b.Fatalf("line %d: %d-%d, %v", line, s, e, err)
		}
		r.Close()
	}
}

// BenchmarkBlockOps20x5000 is one call carrying 20 block ops: the text is
// still parsed once.
func BenchmarkBlockOps20x5000(b *testing.B) {
	text, line := benchSource(b)
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for b.Loop() {
		r, err := NewResolver("bench.ts", text, defaultLimit)
		if err != nil {
			b.Fatal(err)
		}
		for i := 0; i < 20; i++ {
			r.Resolve(line + i)
		}
		r.Close()
	}
}

// brokenSource is size bytes of code-like text that parses in no grammar,
// the input whose error recovery used to hold an edit call for seconds.
func brokenSource(size int) string {
	rng := rand.New(rand.NewPCG(uint64(size), 7))
	const alphabet = "abcdefgh  ()[]{}:;,.=+-*/'\"#<>!&|"
	var sb strings.Builder
	for sb.Len() < size {
		for range 20 + rng.IntN(80) {
			sb.WriteByte(alphabet[rng.IntN(len(alphabet))])
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}

// BenchmarkCheckBroken is one syntax check of a large file that does not
// parse: within an edit call's parse time (the default 500 ms) and, for
// comparison, bounded only by the per-parse backstop.
func BenchmarkCheckBroken(b *testing.B) {
	budget := config.DefaultLimits().ParseBudget()
	for _, tc := range []struct {
		name, path string
		size       int
	}{
		{"python-400KiB", "bench.py", 400 << 10},
		{"typescript-1MiB", "bench.ts", 1 << 20},
	} {
		text := brokenSource(tc.size)
		for _, bounded := range []bool{true, false} {
			name := tc.name + "/call-budget"
			if !bounded {
				name = tc.name + "/backstop-only"
			}
			b.Run(name, func(b *testing.B) {
				b.SetBytes(int64(len(text)))
				for b.Loop() {
					ctx, cancel := context.Background(), context.CancelFunc(func() {})
					if bounded {
						ctx, cancel = context.WithTimeout(ctx, budget)
					}
					s, err := NewSyntaxContext(ctx, tc.path, text, defaultLimit)
					if err != nil {
						b.Fatal(err)
					}
					if _, clean := s.Check(text); clean {
						b.Fatal("the broken text parsed cleanly")
					}
					cancel()
				}
			})
		}
	}
}
