package parsepool

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/typescript/typescript"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/internal/testenv"
	"github.com/hostd-dev/hostd/tools/blocks"
	"github.com/hostd-dev/hostd/workspace"
)

// The benchmark file and its reference, as tools/blocks' benchmarks have
// them (bench_test.go there), so BenchmarkWorkers measures the workers on
// the same text against the same full parse.

// defaultLimit is the default parse limit.
var defaultLimit = config.DefaultLimits().MaxBlockParseBytes

// benchLines is the size of the file the benchmarks edit.
const benchLines = 5000

// benchSource is a TypeScript file of at least benchLines lines: the real
// corpus files concatenated when the corpus is there, generated code
// otherwise. It returns the text and a line that opens a top-level
// function near the middle.
func benchSource(b testing.TB) (string, int) {
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

// fullParse5000 is the reference: one parse of text from scratch.
func fullParse5000(b *testing.B, text string) func() {
	src := []byte(text)
	lang := typescript.GetLanguage()
	return func() {
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

// newTrees is a tree cache of the default bound, closed after b.
func newTrees(b *testing.B) *blocks.Trees {
	trees, err := blocks.NewTrees(config.DefaultLimits().MaxParseTreeBytes)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(trees.Close)
	return trees
}
