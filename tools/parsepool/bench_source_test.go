package parsepool

import (
	"context"
	"path/filepath"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/typescript/typescript"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/internal/benchkit"
	"github.com/hostd-dev/hostd/internal/testenv"
	"github.com/hostd-dev/hostd/tools/blocks"
)

// The benchmark file and its reference, as tools/blocks' benchmarks have
// them (bench_test.go there), so BenchmarkWorkers measures the workers on
// the same text against the same full parse.

// defaultLimit is the default parse limit.
var defaultLimit = config.DefaultLimits().MaxBlockParseBytes

// benchLines is the size of the file the benchmarks edit.
const benchLines = 5000

// benchSource is a TypeScript file of at least benchLines lines
// (benchkit.TypeScriptFile): the real corpus files concatenated when the
// corpus is there, generated code otherwise, and a line that opens a
// top-level function near the middle.
func benchSource(b testing.TB) (string, int) {
	b.Helper()
	files, _ := filepath.Glob(filepath.Join(testenv.CorpusPath(b, "ts-edit-fixtures/fixtures"), "*/input/*.ts"))
	text, mid, err := benchkit.TypeScriptFile(files, benchLines)
	if err != nil {
		b.Fatal(err)
	}
	return text, mid
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
