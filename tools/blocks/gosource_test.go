package blocks

import (
	"errors"
	"go/build"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/workspace"
)

// goSources are gofmt'ed files of the Go toolchain that runs the tests:
// real Go, always at hand where a test can run.
var goSources = []string{"strings/strings.go", "sort/sort.go", "go/ast/ast.go", "net/url/url.go", "encoding/json/decode.go"}

// TestGoSourcesOfTheToolchain resolves every line of real Go files. In
// gofmt'ed Go a top-level declaration that opens a brace at the end of its
// first line ends at the next line that is just "}" or ")": that is the
// oracle for every such line, and every comment line declines. Every
// other line satisfies checkLine.
func TestGoSourcesOfTheToolchain(t *testing.T) {
	root := filepath.Join(build.Default.GOROOT, "src")
	for _, rel := range goSources {
		path := filepath.Join(root, rel)
		raw, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			t.Skipf("the Go toolchain's sources are not at %s; install the full Go distribution to run this test", root)
		}
		if err != nil {
			t.Fatal(err)
		}
		text := string(raw)
		r := mustResolver(t, rel, text)
		lines := workspace.Lines(text)
		declarations := 0
		for i, l := range lines {
			line := i + 1
			checkLine(t, r, lines, line)
			s, e, err := r.Resolve(line)
			switch {
			case strings.HasPrefix(l, "//"):
				if !errors.Is(err, ErrNoBlock) || !strings.Contains(err.Error(), "comments are never blocks") {
					t.Errorf("%s:%d: comment line resolved: %d-%d, %v", rel, line, s, e, err)
				}
			case opensTopLevel(l):
				declarations++
				want := closingLine(lines, i)
				if err != nil || s != line || e != want {
					t.Errorf("%s:%d %q: got %d-%d, %v; want %d-%d", rel, line, l, s, e, err, line, want)
				}
			}
		}
		if declarations < 10 {
			t.Errorf("%s: only %d top-level declarations checked", rel, declarations)
		}
	}
}

// opensTopLevel reports a gofmt'ed top-level declaration line that opens a
// block it closes on a later line.
func opensTopLevel(l string) bool {
	for _, kw := range []string{"func ", "type ", "var (", "const (", "import ("} {
		if strings.HasPrefix(l, kw) && (strings.HasSuffix(l, "{") || strings.HasSuffix(l, "(")) {
			return true
		}
	}
	return false
}

// closingLine is the 1-based line of the first "}" or ")" at column 0 after
// row i.
func closingLine(lines []string, i int) int {
	for j := i + 1; j < len(lines); j++ {
		if lines[j] == "}" || lines[j] == ")" {
			return j + 1
		}
	}
	return -1
}

// BenchmarkBlockOpByLanguage is one block op (build a resolver, parse,
// resolve one line, release) on real Go, the toolchain's
// encoding/json/decode.go, against the TypeScript file of
// BenchmarkBlockOp5000 as the reference measured in the same run. The
// files differ in size, so compare throughput (MB/s, from SetBytes).
func BenchmarkBlockOpByLanguage(b *testing.B) {
	path := filepath.Join(build.Default.GOROOT, "src", "encoding/json/decode.go")
	raw, err := os.ReadFile(path)
	if err != nil {
		b.Skipf("the Go toolchain's sources are not at %s: %v", path, err)
	}
	goText := string(raw)
	goLine := 0
	for i, l := range workspace.Lines(goText) {
		if i > 100 && strings.HasPrefix(l, "func ") && strings.HasSuffix(l, "{") {
			goLine = i + 1
			break
		}
	}
	tsText, tsLine := benchSource(b)
	for _, c := range []struct {
		name, path, text string
		line             int
	}{
		{"go", "decode.go", goText, goLine},
		{"typescript-reference", "bench.ts", tsText, tsLine},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.text)))
			for b.Loop() {
				r, err := NewResolver(c.path, c.text, defaultLimit)
				if err != nil {
					b.Fatal(err)
				}
				if s, e, err := r.Resolve(c.line); err != nil || s != c.line || e <= s {
					b.Fatalf("line %d: %d-%d, %v", c.line, s, e, err)
				}
				r.Close()
			}
		})
	}
}
