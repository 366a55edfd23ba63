package blocks

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
)

func mustTrees(t testing.TB, maxBytes int64) *Trees {
	t.Helper()
	tr, err := NewTrees(maxBytes)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tr.Close)
	return tr
}

// tsFunctions is a TypeScript file of n functions, 5 lines each; function
// i opens at line 5*i+1. mark changes the first function's constant, for
// versions of one file that differ in one line.
func tsFunctions(n, mark int) string {
	var b strings.Builder
	for i := range n {
		c := i
		if i == 0 {
			c = mark
		}
		fmt.Fprintf(&b, "function f%d(a: number): number {\n\tconst x = a + %d;\n\tlog(x);\n\treturn x;\n}\n", i, c)
	}
	return b.String()
}

// resolveWith resolves line through a resolver of trees (nil: parsed from
// scratch), closing it.
func resolveWith(t *testing.T, trees *Trees, path, text string, line int) (int, int, error) {
	t.Helper()
	r, err := trees.NewResolver(context.Background(), path, text, defaultLimit)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	return r.Resolve(line)
}

// A version is parsed once; the next version of the file is parsed from
// its tree; every answer is the one a parse from scratch gives.
func TestTreesParseEachVersionOnce(t *testing.T) {
	trees := mustTrees(t, 64<<20)
	v1, v2 := tsFunctions(40, 0), tsFunctions(40, 7)
	for i, tc := range []struct {
		text  string
		line  int
		stats TreeStats
	}{
		{v1, 6, TreeStats{Full: 1}},
		{v1, 11, TreeStats{Full: 1, Hits: 1}},
		{v2, 6, TreeStats{Full: 1, Hits: 1, Incremental: 1}},
		{v2, 1, TreeStats{Full: 1, Hits: 2, Incremental: 1}},
		{v1, 16, TreeStats{Full: 1, Hits: 3, Incremental: 1}},
	} {
		s, e, err := resolveWith(t, trees, "a.ts", tc.text, tc.line)
		ws, we, werr := resolveWith(t, nil, "a.ts", tc.text, tc.line)
		if s != ws || e != we || (err == nil) != (werr == nil) {
			t.Errorf("step %d: line %d resolved to %d-%d (%v), from scratch %d-%d (%v)", i, tc.line, s, e, err, ws, we, werr)
		}
		got := trees.Stats()
		got.Bytes, got.Cached, got.Evicted = 0, 0, 0
		if got != tc.stats {
			t.Errorf("step %d: stats %+v, want %+v", i, got, tc.stats)
		}
	}
	if got, want := trees.Stats().Bytes, treeCost(v1)+treeCost(v2); got != want {
		t.Errorf("two versions cached hold %d bytes, want %d", got, want)
	}
}

// The trees of a file that does not parse are cached too (the next
// version is parsed from them), and every resolver still declines.
func TestTreesBrokenVersion(t *testing.T) {
	trees := mustTrees(t, 64<<20)
	broken := strings.Replace(tsFunctions(10, 0), "\treturn x;\n}\n", "\treturn x;\n", 1)
	for range 2 {
		if _, _, err := resolveWith(t, trees, "a.ts", broken, 6); !errors.Is(err, ErrNotClean) {
			t.Fatalf("a broken file resolved: %v", err)
		}
	}
	if s, e, err := resolveWith(t, trees, "a.ts", tsFunctions(10, 0), 6); err != nil || s != 6 || e != 10 {
		t.Fatalf("the fixed file: %d-%d, %v", s, e, err)
	}
	if st := trees.Stats(); st.Full != 1 || st.Hits != 1 || st.Incremental != 1 {
		t.Errorf("stats %+v: want one full parse, one hit, one incremental parse", st)
	}
}

// Candidates of a repair are parsed from the current text's tree, which
// is parsed once; they are not cached; every answer is a full parse's.
func TestTreesSyntaxChecks(t *testing.T) {
	trees := mustTrees(t, 64<<20)
	base := tsFunctions(40, 0)
	syn, err := trees.NewSyntax(context.Background(), "a.ts", base, defaultLimit)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	candidates := []string{base, strings.Replace(base, "}\n", "", 1), base + "}\n", strings.Replace(base, "log(x);", "log(x", 3)}
	for range 20 {
		candidates = append(candidates, randomEdit(rng, base))
	}
	others := 0
	for i, c := range candidates {
		if c != base {
			others++
		}
		sup, clean := syn.Check(c)
		wsup, wclean := Check("a.ts", c, defaultLimit)
		if sup != wsup || clean != wclean {
			t.Errorf("candidate %d: (%v, %v), a full parse (%v, %v)", i, sup, clean, wsup, wclean)
		}
	}
	st := trees.Stats()
	if st.Full != 1 || st.Cached != 1 || st.Incremental != others {
		t.Errorf("stats %+v: want the base parsed once and cached alone, every other candidate parsed from it", st)
	}
}

// A path keeps its newest versions only, the cache stays within its bound
// by evicting the least recently used trees, and a tree larger than the
// bound is used without being cached.
func TestTreesBound(t *testing.T) {
	v := func(mark int) string { return tsFunctions(10, mark) }
	cost := treeCost(v(0))
	trees := mustTrees(t, 3*cost)
	for mark := range 3 {
		resolveWith(t, trees, "a.ts", v(mark), 6)
	}
	if st := trees.Stats(); st.Cached != maxTreeVersionsPerPath || st.Bytes != int64(maxTreeVersionsPerPath)*cost || st.Evicted != 1 {
		t.Fatalf("after three versions of one path: %+v, want %d cached", st, maxTreeVersionsPerPath)
	}
	resolveWith(t, trees, "b.ts", v(0), 6)
	resolveWith(t, trees, "a.ts", v(2), 6) // a.ts's newest is now the most recently used
	resolveWith(t, trees, "c.ts", v(0), 6)
	st := trees.Stats()
	if st.Bytes > 3*cost || st.Cached != 3 {
		t.Fatalf("over the bound: %+v (bound %d)", st, 3*cost)
	}
	// The least recently used was a.ts's older version: a.ts's newest
	// is still a hit.
	hits := st.Hits
	resolveWith(t, trees, "a.ts", v(2), 6)
	if trees.Stats().Hits != hits+1 {
		t.Errorf("the most recently used version was evicted")
	}

	small := mustTrees(t, cost-1)
	for range 2 {
		if s, e, err := resolveWith(t, small, "a.ts", v(0), 6); err != nil || s != 6 || e != 10 {
			t.Fatalf("a tree over the bound: %d-%d, %v", s, e, err)
		}
	}
	if st := small.Stats(); st.Cached != 0 || st.Bytes != 0 || st.Full != 2 {
		t.Errorf("a tree over the bound was cached: %+v", st)
	}
}

// An evicted tree a resolver still holds stays counted until the resolver
// lets it go, and is freed then; the resolver keeps working meanwhile.
func TestTreesEvictedWhileLent(t *testing.T) {
	v1, v2 := tsFunctions(10, 0), tsFunctions(10, 1)
	cost := treeCost(v1)
	trees := mustTrees(t, cost)
	r, err := trees.NewResolver(context.Background(), "a.ts", v1, defaultLimit)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.Resolve(6); err != nil {
		t.Fatal(err)
	}
	resolveWith(t, trees, "b.ts", v2, 6) // evicts a.ts's tree, which r holds
	if st := trees.Stats(); st.Cached != 1 || st.Bytes != 2*cost || st.Evicted != 1 {
		t.Fatalf("while r holds the evicted tree: %+v, want one cached and both counted", st)
	}
	if s, e, err := r.Resolve(11); err != nil || s != 11 || e != 15 {
		t.Fatalf("r after its tree was evicted: %d-%d, %v", s, e, err)
	}
	r.Close()
	if st := trees.Stats(); st.Bytes != cost {
		t.Fatalf("after r let go: %+v, want %d bytes", st, cost)
	}
	trees.Close()
	if st := trees.Stats(); st.Bytes != 0 || st.Cached != 0 {
		t.Fatalf("after Close: %+v", st)
	}
}

// Guards and the parse time hold for parses through the cache, and a
// failed parse caches nothing.
func TestTreesGuardsAndParseTime(t *testing.T) {
	trees := mustTrees(t, 64<<20)
	deep := strings.Repeat("> ", 200) + "x\n"
	if _, _, err := resolveWith(t, trees, "a.md", "# A\n\ntext\n", 1); err != nil {
		t.Fatal(err)
	}
	if _, _, err := resolveWith(t, trees, "a.md", "# A\n\ntext\n"+deep, 1); !errors.Is(err, ErrUnsafe) {
		t.Fatalf("a text the guard refuses, with an earlier version cached: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, err := trees.NewResolver(ctx, "a.ts", tsFunctions(10, 0), defaultLimit)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, _, err := r.Resolve(6); !errors.Is(err, ErrParseTime) {
		t.Fatalf("a parse with its time spent: %v", err)
	}
	syn, _ := trees.NewSyntax(ctx, "a.ts", tsFunctions(10, 0), defaultLimit)
	if sup, _ := syn.Check(tsFunctions(10, 1)); sup || !syn.Spent() {
		t.Fatalf("a check with its time spent answered supported or not spent")
	}
	if st := trees.Stats(); st.Cached != 1 {
		t.Errorf("a failed parse was cached: %+v", st)
	}
}

// Many goroutines resolve and check versions of a few files through one
// small cache, so trees are evicted while others hold them; every answer
// is a parse from scratch's, and at rest the count is exactly what is
// cached. Run with -race, this is the cache's concurrency test.
func TestTreesConcurrent(t *testing.T) {
	const versions = 6
	texts := make([]string, versions)
	want := make([][2]int, versions)
	for i := range texts {
		texts[i] = tsFunctions(8, i)
		s, e, err := resolveWith(t, nil, "x.ts", texts[i], 6)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = [2]int{s, e}
	}
	trees := mustTrees(t, 3*treeCost(texts[0]))
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 8 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 3))
			for range 30 {
				i := rng.IntN(versions)
				path := fmt.Sprintf("f%d.ts", rng.IntN(3))
				if rng.IntN(3) == 0 {
					syn, _ := trees.NewSyntax(context.Background(), path, texts[i], defaultLimit)
					if sup, clean := syn.Check(texts[rng.IntN(versions)]); !sup || !clean {
						errs <- fmt.Errorf("a clean version checked (%v, %v)", sup, clean)
					}
					continue
				}
				r, err := trees.NewResolver(context.Background(), path, texts[i], defaultLimit)
				if err != nil {
					errs <- err
					return
				}
				s, e, err := r.Resolve(6)
				if err != nil || s != want[i][0] || e != want[i][1] {
					errs <- fmt.Errorf("version %d: %d-%d, %v; want %v", i, s, e, err, want[i])
				}
				if rng.IntN(5) == 0 {
					trees.Close()
				}
				r.Close()
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	st := trees.Stats()
	var sum int64
	trees.mu.Lock()
	for e := trees.lru.Front(); e != nil; e = e.Next() {
		sum += e.Value.(*entry).cost
	}
	trees.mu.Unlock()
	if st.Bytes != sum || st.Bytes > 3*treeCost(texts[0]) {
		t.Errorf("at rest the count is %d bytes, the cached trees cost %d (bound %d)", st.Bytes, sum, 3*treeCost(texts[0]))
	}
}

func TestNewTreesRejectsNonPositiveBound(t *testing.T) {
	for _, n := range []int64{0, -1} {
		if _, err := NewTrees(n); !errors.Is(err, ErrInvalidLimit) {
			t.Errorf("NewTrees(%d): %v", n, err)
		}
	}
}

// Parse hands out the cached clean tree of a version, and declines as a
// block op on the file would.
func TestTreesParse(t *testing.T) {
	trees := mustTrees(t, 64<<20)
	text := tsFunctions(3, 0)
	for range 2 {
		p, err := trees.Parse(context.Background(), "a.ts", text, defaultLimit)
		if err != nil {
			t.Fatal(err)
		}
		if root := p.Root(); root.Type() != "program" || root.NamedChildCount() != 3 || p.Language() != "typescript" {
			t.Fatalf("root %s with %d children, language %s", root.Type(), root.NamedChildCount(), p.Language())
		}
		p.Close()
		p.Close()
	}
	if st := trees.Stats(); st.Full != 1 || st.Hits != 1 {
		t.Errorf("stats %+v: want one parse and one hit", st)
	}
	for _, tc := range []struct {
		path, text string
		kind       error
	}{
		{"a.ts", text + "}\n", ErrNotClean},
		{"a.txt", text, ErrUnsupported},
		{"a.ts", strings.Repeat(" ", int(defaultLimit)+1), ErrTooLarge},
	} {
		p, err := trees.Parse(context.Background(), tc.path, tc.text, defaultLimit)
		var ue *UnresolvedError
		if p != nil || !errors.Is(err, tc.kind) || !errors.As(err, &ue) || ue.Line != 0 {
			t.Errorf("Parse(%s, %d bytes): %v, want %v on line 0", tc.path, len(tc.text), err, tc.kind)
		}
	}
	if st := trees.Stats(); st.Bytes != treeCost(text)+treeCost(text+"}\n") {
		t.Errorf("after the declines: %+v, want the clean and the broken version cached", st)
	}
}

func TestTreeTokens(t *testing.T) {
	for _, tc := range []struct {
		text string
		want int
	}{
		{"", 0},
		{"   \t\r", 0},
		{"foo bar_1", 2},
		{"a;a;", 4},
		{"f(x) {\n}\n", 8},
		{"é世界 x", 2},
		{"[0,0]", 5},
	} {
		if got := treeTokens(tc.text); got != tc.want {
			t.Errorf("treeTokens(%q) = %d, want %d", tc.text, got, tc.want)
		}
	}
	if got, want := treeCost("a;a;"), int64(4+4*treeBytesPerToken); got != want {
		t.Errorf("treeCost = %d, want %d", got, want)
	}
}
