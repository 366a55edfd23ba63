package blocks

import (
	"strings"
	"testing"
	"time"
)

// Pathological shapes must resolve in bounded time (a peer's edit tool
// hung on a 1,646-line file). Each case was quadratic in an earlier
// version; the bound is generous so that a loaded machine does not fail
// it, while the quadratic versions took minutes.
func within(t *testing.T, limit time.Duration, what string, f func()) {
	t.Helper()
	start := time.Now()
	f()
	if d := time.Since(start); d > limit {
		t.Fatalf("%s took %v, over %v", what, d, limit)
	}
}

// TestDeepNesting: thousands of levels, one per line.
func TestDeepNesting(t *testing.T) {
	const depth = 20000
	text := strings.Repeat("[\n", depth) + strings.Repeat("]\n", depth)
	r := mustResolver(t, "deep.json", text)
	within(t, 10*time.Second, "block ops on a deeply nested file", func() {
		for _, line := range []int{1, depth / 2, depth, depth + 1, depth + depth/2, 2 * depth} {
			s, e, err := r.Resolve(line)
			switch {
			case line <= depth && (err != nil || s != line || e != 2*depth-line+1):
				t.Errorf("line %d: %d-%d, %v; want %d-%d", line, s, e, err, line, 2*depth-line+1)
			case line > depth && err == nil:
				t.Errorf("closing line %d resolved to %d-%d", line, s, e)
			}
		}
	})
}

// TestDeepChainOnOneLine: a line whose first token sits under thousands
// of nodes that all start with it (a member chain nests to the left),
// itself deep in the file, makes the climb pass every level.
func TestDeepChainOnOneLine(t *testing.T) {
	const outer, chain = 20000, 40000
	text := strings.Repeat("{\n", outer) + "x" + strings.Repeat(".a", chain) + "\n  .b;\n" + strings.Repeat("}\n", outer)
	r := mustResolver(t, "deep.js", text)
	within(t, 10*time.Second, "a climb through a deep one-line chain", func() {
		if s, e, err := r.Resolve(outer + 1); err != nil || s != outer+1 || e != outer+2 {
			t.Errorf("line %d: %d-%d, %v; want %d-%d", outer+1, s, e, err, outer+1, outer+2)
		}
		if _, _, err := r.Resolve(outer + 2); err == nil {
			t.Error("the continuation line resolved")
		}
	})
}

// TestLongRunOfComments: an attribute after tens of thousands of comment
// lines still finds the attribute before them, and an attribute before
// them still finds its item after them, in one pass over the siblings.
func TestLongRunOfComments(t *testing.T) {
	const n = 30000
	comments := strings.Repeat("// note\n", n)
	text := "#[a]\n" + comments + "#[b]\n" + comments + "fn f() {\n}\n"
	r := mustResolver(t, "long.rs", text)
	within(t, 10*time.Second, "attribute runs across long comment runs", func() {
		if _, _, err := r.Resolve(n + 2); err == nil || !strings.Contains(err.Error(), "not the first of the run that starts at line 1") {
			t.Errorf("second attribute: %v", err)
		}
		if s, e, err := r.Resolve(1); err != nil || s != 1 || e != 2*n+4 {
			t.Errorf("first attribute: %d-%d, %v; want 1-%d", s, e, err, 2*n+4)
		}
	})
}
