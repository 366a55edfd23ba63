package blocks

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/tools/syntax"
	"github.com/hostd-dev/hostd/workspace"
)

// regionsOf parses text from scratch and lists its error regions.
func regionsOf(t *testing.T, path, text string) []syntax.ErrorRegion {
	t.Helper()
	lang := LanguageFor(path, text)
	tree, why, _ := parse(context.Background(), lang, text, nil, ParseTimeout)
	if tree == nil {
		t.Fatalf("%s did not parse: %d", path, why)
	}
	defer tree.Close()
	return errorRegions(tree.RootNode(), CountLines(text))
}

// TestErrorRegionsName the lines of ERROR and MISSING nodes, and nothing
// in a clean text.
func TestErrorRegions(t *testing.T) {
	for _, tc := range []struct {
		name, path, text string
		want             []syntax.ErrorRegion
	}{
		{"clean go", "a.go", "package a\n\nfunc f() {\n\treturn\n}\n", nil},
		{"clean json", "a.json", "{\"a\": [1, 2]}\n", nil},
		{"go: a stray token", "a.go", "package a\n\nfunc f() {\n\tx := 1 +\n}\n", []syntax.ErrorRegion{{Start: 4, End: 4}}},
		{"ts: a missing close paren", "a.ts", "const a = f(1, 2;\nconst b = 3;\n", []syntax.ErrorRegion{{Start: 1, End: 1, Missing: ")"}}},
		{"json: a missing comma", "a.json", "{\n  \"a\": 1\n  \"b\": 2\n}\n", []syntax.ErrorRegion{{Start: 2, End: 2}}},
		{"python: a broken line among clean ones", "a.py", "def f():\n    return 1\n\nx = (1 +\ny = 2\n", []syntax.ErrorRegion{{Start: 4, End: 5}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := regionsOf(t, tc.path, tc.text)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("regions %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestErrorRegionsAreBounded: a text with an error on every line reports
// at most maxErrorRegions, the last reaching to the end of the text.
func TestErrorRegionsAreBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("package a\n")
	for range 500 {
		b.WriteString("func f() { x := 1 + }\n")
	}
	b.WriteString("func g() {}\n")
	got := regionsOf(t, "a.go", b.String())
	if len(got) == 0 || len(got) > maxErrorRegions {
		t.Fatalf("%d regions, want 1..%d", len(got), maxErrorRegions)
	}
	if last := got[len(got)-1]; last.End != 502 {
		t.Errorf("the last region %+v does not reach line 502", last)
	}
}

// TestAddedRegions: a region of the new version is added unless an old
// region explains it through the change's unchanged lines.
func TestAddedRegions(t *testing.T) {
	// Ten old lines; the change replaces old line 5 with two new lines
	// (new 5-6), so old 6-10 are new 7-11.
	copies := []workspace.Copy{{New: 1, Old: 1, N: 4}, {New: 7, Old: 6, N: 5}}
	for _, tc := range []struct {
		name          string
		before, after []syntax.ErrorRegion
		want          []syntax.ErrorRegion
	}{
		{"clean before: every region is added", nil, []syntax.ErrorRegion{{Start: 9, End: 9}}, []syntax.ErrorRegion{{Start: 9, End: 9}}},
		{"nothing after", []syntax.ErrorRegion{{Start: 2, End: 2}}, nil, nil},
		{"an old error moved down by the change", []syntax.ErrorRegion{{Start: 8, End: 9}}, []syntax.ErrorRegion{{Start: 9, End: 10}}, nil},
		{"an old error above the change, in place", []syntax.ErrorRegion{{Start: 2, End: 3}}, []syntax.ErrorRegion{{Start: 2, End: 3}}, nil},
		{"an old error the change rewrote, still broken", []syntax.ErrorRegion{{Start: 5, End: 5}}, []syntax.ErrorRegion{{Start: 5, End: 6}}, nil},
		{"a new error in the changed lines beside an old one", []syntax.ErrorRegion{{Start: 2, End: 2}}, []syntax.ErrorRegion{{Start: 2, End: 2}, {Start: 5, End: 6}}, []syntax.ErrorRegion{{Start: 5, End: 6}}},
		{"an old error that grew into the changed lines", []syntax.ErrorRegion{{Start: 2, End: 3}}, []syntax.ErrorRegion{{Start: 2, End: 6}}, []syntax.ErrorRegion{{Start: 2, End: 6}}},
		{"an error the change caused in unchanged lines", []syntax.ErrorRegion{{Start: 2, End: 2}}, []syntax.ErrorRegion{{Start: 2, End: 2}, {Start: 10, End: 11}}, []syntax.ErrorRegion{{Start: 10, End: 11}}},
		// The change's own lines neither start nor close the region: the
		// old error grew by the lines the change wrote into it.
		{"an old error grown over the changed lines", []syntax.ErrorRegion{{Start: 2, End: 3}}, []syntax.ErrorRegion{{Start: 2, End: 9}}, nil},
		{"an old error below, grown up over the changed lines", []syntax.ErrorRegion{{Start: 8, End: 8}}, []syntax.ErrorRegion{{Start: 3, End: 9}}, nil},
		{"an old error shrunk and moved", []syntax.ErrorRegion{{Start: 6, End: 10}}, []syntax.ErrorRegion{{Start: 8, End: 9}}, nil},
		{"a region the change's lines start, over an old one", []syntax.ErrorRegion{{Start: 8, End: 9}}, []syntax.ErrorRegion{{Start: 5, End: 10}}, []syntax.ErrorRegion{{Start: 5, End: 10}}},
		{"a region the change's lines close, over an old one", []syntax.ErrorRegion{{Start: 2, End: 3}}, []syntax.ErrorRegion{{Start: 3, End: 5}}, []syntax.ErrorRegion{{Start: 3, End: 5}}},
		{"a region of unchanged lines over no old one", []syntax.ErrorRegion{{Start: 2, End: 2}}, []syntax.ErrorRegion{{Start: 3, End: 9}}, []syntax.ErrorRegion{{Start: 3, End: 9}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := addedRegions(tc.before, tc.after, copies, 10, 11)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("added %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestAddedErrors: through the cache, a change that breaks a clean file
// reports the new error where a full parse finds it; one that leaves the
// old error alone reports nothing; and the new version's tree is cached
// for the next change, parsed incrementally.
func TestAddedErrors(t *testing.T) {
	trees, err := NewTrees(1 << 30)
	if err != nil {
		t.Fatal(err)
	}
	defer trees.Close()
	ctx := context.Background()
	lim := config.DefaultLimits().MaxBlockParseBytes
	clean := "package a\n\nfunc f() int {\n\tx := 1\n\treturn x\n}\n\nfunc g() {}\n"
	broken := strings.Replace(clean, "\tx := 1\n", "\tx := (1\n", 1)
	got, _, err := trees.AddedErrors(ctx, "a.go", clean, true, broken, []workspace.Copy{{New: 1, Old: 1, N: 3}, {New: 5, Old: 5, N: 4}}, nil, lim)
	if err != nil {
		t.Fatal(err)
	}
	if want := regionsOf(t, "a.go", broken); len(got) == 0 || !reflect.DeepEqual(got, want) {
		t.Fatalf("added %+v; a full parse of the new text finds %+v", got, want)
	}
	if got[0].Start > 4 || got[0].End < 4 {
		t.Errorf("the added region %+v does not hold line 4, the line the change broke", got[0])
	}
	// A second change below the error leaves it where it was.
	again := broken + "\nfunc h() {}\n"
	got, _, err = trees.AddedErrors(ctx, "a.go", broken, true, again, []workspace.Copy{{New: 1, Old: 1, N: 8}}, nil, lim)
	if err != nil || len(got) != 0 {
		t.Fatalf("a change that leaves the old error: added %+v, %v", got, err)
	}
	if st := trees.Stats(); st.Incremental < 2 || st.Hits < 1 {
		t.Errorf("tree stats %+v: want each new version parsed incrementally and the old one found cached", st)
	}
	// A new file: every region is added.
	got, _, err = trees.AddedErrors(ctx, "b.go", "", false, broken, nil, nil, lim)
	if err != nil || len(got) == 0 {
		t.Fatalf("a new broken file: added %+v, %v", got, err)
	}
}

// TestAddedErrorsCannotAlwaysCheck: a file type without a grammar, a
// text over the limit and a call out of parse time are errors of their
// kinds, never "no errors".
func TestAddedErrorsCannotAlwaysCheck(t *testing.T) {
	var trees *Trees
	if _, _, err := trees.AddedErrors(context.Background(), "a.txt", "a", true, "b", nil, nil, 100); !errors.Is(err, ErrUnsupported) {
		t.Errorf("no grammar: %v", err)
	}
	if _, _, err := trees.AddedErrors(context.Background(), "a.go", "package a\n", true, "package a\n\nvar x = 1\n", nil, nil, 12); !errors.Is(err, ErrTooLarge) {
		t.Errorf("over the limit: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancel()
	time.Sleep(time.Millisecond)
	if _, _, err := trees.AddedErrors(ctx, "a.go", "package a\n", true, "package a\nfunc (\n", nil, nil, 1<<20); !errors.Is(err, ErrParseTime) {
		t.Errorf("out of time: %v", err)
	}
}

// TestAddedErrorsReachBackToTheChange: an error the parser noticed in
// lines the change did not write starts where the change opened the
// construct it lies in, or, when no node links them (a closer left out),
// at the nearest lines the change wrote above it; an error in lines the
// change wrote stays where it is.
func TestAddedErrorsReachBackToTheChange(t *testing.T) {
	trees, err := NewTrees(1 << 30)
	if err != nil {
		t.Fatal(err)
	}
	defer trees.Close()
	lim := config.DefaultLimits().MaxBlockParseBytes
	before := "function f(a: number) {\n" + // 1
		"  switch (a) {\n" + //               2
		"    case 1: {\n" + //                3
		"      const b = a + 1;\n" + //       4
		"      g(b);\n" + //                  5
		"      g(b, [\n" + //                 6
		"        1,\n" + //                   7
		"        2,\n" + //                   8
		"      ]);\n" + //                    9
		"      return;\n" + //                10
		"    }\n" + //                        11
		"    case 2: {\n" + //                12
		"      return;\n" + //                13
		"    }\n" + //                        14
		"  }\n" + //                          15
		"}\n" //                              16
	lines := workspace.Lines(before)
	change := func(from, to int, rows ...string) (string, []workspace.Copy) {
		out := append(append(slices.Clone(lines[:from-1]), rows...), lines[to:]...)
		n := len(rows) - (to - from + 1)
		return strings.Join(out, "\n") + "\n", []workspace.Copy{{New: 1, Old: 1, N: from - 1}, {New: to + 1 + n, Old: to + 1, N: len(lines) - to}}
	}
	for _, tc := range []struct {
		name      string
		from, to  int
		rows      []string
		wantStart int // of the first added region
		wantLine  int // a line it must hold: where the break is
	}{
		// The if's "}" left out: the case's "}" closes the if, and the
		// parser notices lines below what was written (at "case 2", or
		// at the end in an incremental parse), past line 6, where the
		// "}" belongs.
		{"a closer left out", 4, 3, []string{"      if (!a) {", "        return;"}, 4, 6},
		// "(" opened in a written line, noticed at the array's end.
		{"a bracket opened", 6, 6, []string{"      g((b, ["}, 6, 9},
		// The error is in the line written: it stays there.
		{"an error in the written line", 5, 5, []string{"      g(b;"}, 5, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			after, copies := change(tc.from, tc.to, tc.rows...)
			got, _, err := trees.AddedErrors(context.Background(), "a.ts", before, true, after, copies, nil, lim)
			if err != nil {
				t.Fatal(err)
			}
			raw := regionsOf(t, "a.ts", after)
			if len(got) == 0 || got[0].Start != tc.wantStart || got[0].End < tc.wantLine {
				t.Errorf("added %+v, want the first to span %d..%d; the parse's own regions are %+v", got, tc.wantStart, tc.wantLine, raw)
			}
		})
	}
}

// TestMarkdownHasNoSyntaxErrors: every text is a markdown document, so a
// change to one adds no syntax error and nothing is parsed to say so.
func TestMarkdownHasNoSyntaxErrors(t *testing.T) {
	trees, err := NewTrees(1 << 30)
	if err != nil {
		t.Fatal(err)
	}
	defer trees.Close()
	lim := config.DefaultLimits().MaxBlockParseBytes
	got, _, err := trees.AddedErrors(context.Background(), "a.md", "# A\n\ntext\n", true, "# A\n\n```go\nfunc (\n[link](\n", []workspace.Copy{{New: 1, Old: 1, N: 2}}, nil, lim)
	if err != nil || got != nil {
		t.Errorf("added %+v, %v; want none", got, err)
	}
	if st := trees.Stats(); st.Full+st.Incremental != 0 {
		t.Errorf("trees %+v: a markdown change was parsed", st)
	}
}
