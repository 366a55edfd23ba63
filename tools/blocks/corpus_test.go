package blocks

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/internal/testenv"
	"github.com/hostd-dev/hostd/tools/hashline"
	"github.com/hostd-dev/hostd/workspace"
)

// corpusFiles are the corpus files that match pattern; under the race
// detector every fourth of them, since the tests that walk every line of
// every file took a minute of the race run and the plain run walks all.
func corpusFiles(t testing.TB, pattern string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(testenv.Corpus(t, ""), pattern))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus files match %s: %v", pattern, err)
	}
	if raceEnabled {
		var some []string
		for i := 0; i < len(files); i += 4 {
			some = append(some, files[i])
		}
		files = some
	}
	return files
}

func loadText(t testing.TB, path string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text, err := workspace.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	return text.Body
}

// parsesCleanly parses text with a fresh parser of the named grammar.
func parsesCleanly(t testing.TB, lang, text string) bool {
	t.Helper()
	p := sitter.NewParser()
	defer p.Close()
	p.SetLanguage(languages[lang].grammar())
	tree, err := p.ParseCtx(context.Background(), nil, []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	return !tree.RootNode().HasError()
}

// TestCorpusTopLevel runs block resolution over real TypeScript: every
// line that resolves to a top-level declaration must name a span that (1)
// a fresh resolver resolves the same way, (2) resolves to itself as a
// file of its own, (3) CUT N* removes leaving a file that still parses,
// and (4) PUT N*: with the block's own text is EDIT_NO_CHANGE.
func TestCorpusTopLevel(t *testing.T) {
	files := corpusFiles(t, "ts-edit-fixtures/fixtures/*/input/*.ts")
	limit := config.DefaultLimits().MaxBlockParseBytes
	var resolved, topLevel, unclean, failures int
	for _, path := range files {
		text := loadText(t, path)
		lines := workspace.Lines(text)
		r, err := NewResolver(path, text, limit)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := r.Resolve(1); errors.Is(err, ErrNotClean) {
			// The fixtures are valid TypeScript: a file the grammar
			// rejects loses every block op, which is worth knowing.
			unclean++
			t.Errorf("%s: %v", path, err)
			r.Close()
			continue
		}
		// One more resolver, built from scratch, must agree with the first.
		again, err := NewResolver(path, text, limit)
		if err != nil {
			t.Fatal(err)
		}
		for row := range lines {
			r.mu.Lock()
			sp, ue := r.resolveRow(row, false)
			top := ue == nil && sp.node != nil && sp.node.Parent() != nil && sp.node.Parent().Equal(r.root)
			r.mu.Unlock()
			if ue != nil {
				continue
			}
			resolved++
			if !top {
				continue
			}
			topLevel++
			fail := func(format string, args ...any) {
				failures++
				t.Errorf("%s line %d (span %d-%d): "+format, append([]any{filepath.Base(filepath.Dir(filepath.Dir(path))), row + 1, sp.start + 1, sp.end + 1}, args...)...)
			}
			if s, e, err := again.Resolve(row + 1); err != nil || s != sp.start+1 || e != sp.end+1 {
				fail("a fresh resolver gives %d-%d, %v", s, e, err)
			}
			block := workspace.Join(lines[sp.start:sp.end+1], true)
			alone, err := NewResolver(path, block, limit)
			if err != nil {
				t.Fatal(err)
			}
			if s, e, err := alone.Resolve(1); err != nil || s != 1 || e != sp.end-sp.start+1 {
				fail("the block's own text resolves to %d-%d, %v", s, e, err)
			}
			alone.Close()
			// Through the edit language, as the edit tool runs it.
			cut, err := hashline.Run(lines, fmt.Sprintf("CUT %d*", row+1), hashline.Env{Resolver: again})
			if err != nil {
				fail("CUT %d*: %v", row+1, err)
			} else if !parsesCleanly(t, "typescript", workspace.Join(cut.Lines, true)) {
				fail("CUT %d* leaves a file that does not parse", row+1)
			}
			var put strings.Builder
			fmt.Fprintf(&put, "PUT %d*:\n", row+1)
			for _, l := range lines[sp.start : sp.end+1] {
				put.WriteString("+" + l + "\n")
			}
			if _, err := hashline.Run(lines, put.String(), hashline.Env{Resolver: again}); !errors.Is(err, hashline.ErrNoChange) {
				fail("PUT %d*: with the block's own text: %v, want EDIT_NO_CHANGE", row+1, err)
			}
		}
		r.Close()
		again.Close()
	}
	t.Logf("%d files (%d not parsing cleanly), %d lines resolved, %d to top-level declarations, %d failures",
		len(files), unclean, resolved, topLevel, failures)
	if topLevel == 0 {
		t.Fatal("no line resolved to a top-level declaration")
	}
}
