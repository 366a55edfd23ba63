package main

import (
	"context"
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/internal/testenv"
	"github.com/hostd-dev/hostd/workspace"
)

// corpusDir is the shared corpus beside the checkout.
func corpusDir(t *testing.T) string {
	t.Helper()
	testenv.Corpus(t, "token-bench")
	return testenv.Corpus(t, "")
}

func mustCL100k(t *testing.T) cl100k {
	t.Helper()
	enc, err := newCL100k()
	if err != nil {
		t.Fatal(err)
	}
	return enc
}

// The published figures of the token benchmark, reproduced with the same
// payload shapes and the published placeholder tag: if the counter or a
// builder drifts, the comparison with the published numbers is void.
func TestBuildersReproducePublishedFigures(t *testing.T) {
	c, err := loadTokenCorpus(corpusDir(t))
	if err != nil {
		t.Fatal(err)
	}
	enc := mustCL100k(t)
	const tag = "a1b2" // the published benchmark's placeholder
	lines := workspace.Lines(c.Text)
	var str, omp, ompJSON, dsh int
	for _, e := range c.Edits {
		old := strings.Join(lines[e.SeqStart-1:e.SeqEnd], "\n")
		str += enc.Count(strReplaceArgs(benchPath, old, strings.Join(e.Replacement, "\n")))
		patch := ompSection(benchPath, tag, putOp(e.SeqStart, e.SeqEnd, e.Replacement))
		omp += enc.Count(patch)
		ompJSON += enc.Count(ompWrapped(patch))
		dsh += enc.Count(dshArgs(benchPath, base62Anchor(e.SeqStart-1), base62Anchor(e.SeqEnd-1), e.Replacement))
		lines = append(lines[:e.SeqStart-1], append(append([]string{}, e.Replacement...), lines[e.SeqEnd:]...)...)
	}
	doc := ompSection(benchPath, tag, batchOps(c.Edits, putOp)) + "\n"
	for _, tc := range []struct {
		arm       string
		got, want int
	}{
		{"str_replace", str, 1015},
		{"oh-my-pi per edit, raw", omp, 590},
		{"oh-my-pi one document, raw", enc.Count(doc), 480},
		{"oh-my-pi per edit, JSON-wrapped", ompJSON, 708},
		{"oh-my-pi one document, JSON-wrapped", enc.Count(ompWrapped(doc)), 546},
		{"dsh edits[] (v2.0, 2-char anchors)", dsh, 753},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: %d tokens, published %d", tc.arm, tc.got, tc.want)
		}
	}
}

func TestCountKnownStrings(t *testing.T) {
	enc := mustCL100k(t)
	for _, tc := range []struct {
		text string
		want int
	}{
		{"", 0},
		{"hello world", 2},
		{"<|endoftext|>", 7}, // special-token text counts as ordinary text
	} {
		if got := enc.Count(tc.text); got != tc.want {
			t.Errorf("Count(%q) = %d, want %d", tc.text, got, tc.want)
		}
	}
}

func TestJSONArgsAsAModelEmitsThem(t *testing.T) {
	for _, tc := range []struct {
		name string
		got  string
		want string
	}{
		{"key order kept, no spaces", jsonArgs("path", "a", "tag", "1A2B"), `{"path":"a","tag":"1A2B"}`},
		{"angle brackets and ampersands not escaped", jsonArgs("x", "Map<string, T> && (a) => b"), `{"x":"Map<string, T> && (a) => b"}`},
		{"newlines and tabs escaped", jsonArgs("ops", "PUT 1.=1:\n+\tx"), `{"ops":"PUT 1.=1:\n+\tx"}`},
		{"numbers", jsonArgs("limit", 1), `{"limit":1}`},
		{"edit args", hostdEditArgs("f.ts", "00FF", "PUT 2.=2:\n+x"), `{"path":"f.ts","tag":"00FF","ops":"PUT 2.=2:\n+x"}`},
		{"edit args as taught", hostdArgs("f.ts", "00FF", hostdOp(2, 2, []string{"x"})), `{"path":"f.ts#00FF","ops":"PUT 2:\n+x"}`},
		{"a range keeps N.=M", hostdOp(2, 3, []string{"x"}), "PUT 2.=3:\n+x"},
		{"str_replace args", strReplaceArgs("f.ts", "a", "b"), `{"path":"f.ts","old_string":"a","new_string":"b"}`},
		{"dsh args", dshArgs("f.ts", "AB", "AC", []string{"x", "y"}), `{"path":"f.ts","edits":[{"op":"replace","anchor_start":"AB","anchor_end":"AC","lines":["x","y"]}]}`},
		{"oh-my-pi wrapped", ompWrapped("[f#1A2B]\nPUT 1.=1:\n+x"), `{"input":"[f#1A2B]\nPUT 1.=1:\n+x"}`},
	} {
		if tc.got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, tc.got, tc.want)
		}
	}
}

func TestPutOpAndBatchOrder(t *testing.T) {
	if got := putOp(3, 4, []string{"a", "", "\tb"}); got != "PUT 3.=4:\n+a\n+\n+\tb" {
		t.Errorf("putOp = %q", got)
	}
	edits := []benchEdit{
		{I: 1, OrigStart: 9, OrigEnd: 9, Replacement: []string{"x"}},
		{I: 2, OrigStart: 2, OrigEnd: 3, Replacement: []string{"y"}},
	}
	if got := batchOps(edits, putOp); got != "PUT 2.=3:\n+y\nPUT 9.=9:\n+x" {
		t.Errorf("batchOps does not order by original line: %q", got)
	}
}

func TestBase62Anchors(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < 62*62; i++ {
		a := base62Anchor(i)
		if len(a) != 2 || seen[a] {
			t.Fatalf("anchor %d = %q: not a distinct 2-character anchor", i, a)
		}
		seen[a] = true
	}
}

func TestOverlapAndRewrite(t *testing.T) {
	edits := []benchEdit{
		{I: 6, OrigStart: 62, OrigEnd: 62},
		{I: 7, OrigStart: 71, OrigEnd: 71},
		{I: 11, OrigStart: 60, OrigEnd: 69},
		{I: 12, OrigStart: 70, OrigEnd: 71},
	}
	got := overlapping(edits)
	if len(got) != 2 || got[0] != [2]int{6, 11} || got[1] != [2]int{7, 12} {
		t.Errorf("overlapping = %v, want [[6 11] [7 12]]", got)
	}
	if n := rewrittenBy(edits, 0); n != 11 {
		t.Errorf("edit 6 is rewritten by edit %d, want 11", n)
	}
	if n := rewrittenBy(edits, 2); n != 0 {
		t.Errorf("edit 11 is rewritten by edit %d, want none", n)
	}
}

func TestNumberedSnippetShowsFourLinesOfContext(t *testing.T) {
	lines := make([]string, 20)
	for i := range lines {
		lines[i] = "l" + string(rune('a'+i))
	}
	got := numberedSnippet("f", lines, 10, 11)
	rows := strings.Split(strings.TrimSuffix(got, "\n"), "\n")[1:]
	if len(rows) != 10 || !strings.HasPrefix(rows[0], "     6\t") || !strings.HasPrefix(rows[9], "    15\t") {
		t.Errorf("snippet of lines 10-11:\n%s", got)
	}
	// Clamped at the file's edges.
	got = numberedSnippet("f", lines, 1, 1)
	if rows := strings.Split(strings.TrimSuffix(got, "\n"), "\n")[1:]; len(rows) != 5 || !strings.HasPrefix(rows[0], "     1\t") {
		t.Errorf("snippet of line 1:\n%s", got)
	}
}

// The real tools run on the benchmark: the edit-by-edit chain and the one
// call end in the same file, and the one call as published is refused.
func TestRealEditsAgree(t *testing.T) {
	c, err := loadTokenCorpus(corpusDir(t))
	if err != nil {
		t.Fatal(err)
	}
	r, err := runRealEdits(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.contents) != len(c.Edits) || !strings.HasPrefix(r.contents[0], "[src/shopping-cart.ts#") {
		t.Fatalf("edit results: %q", r.contents)
	}
	if !strings.HasPrefix(r.rejected, "EDIT_RANGE_INVALID") {
		t.Errorf("the overlapping twelve-op call was answered with %q", r.rejected)
	}
	// A rejected multi-op call leaves the file exactly as it was: no half
	// of an edit on disk (a bug users of peer tools hit).
	if r.afterReject != c.Text {
		t.Errorf("the rejected call changed the file")
	}
	if len(r.dropped) != 1 || r.dropped[0] != 6 {
		t.Errorf("dropped %v from the one call, want [6]", r.dropped)
	}
	if !strings.Contains(r.final, "export const TAX_RATE = 0.21;") || r.final != r.batchFinal {
		t.Errorf("final texts differ or lack edit 1")
	}
}

// The section's introduction describes the benchmark from the corpus
// itself, as its publishers describe it.
func TestDescribeCorpus(t *testing.T) {
	c, err := loadTokenCorpus(corpusDir(t))
	if err != nil {
		t.Fatal(err)
	}
	want := "The 103-line TypeScript file and the 12 replacements (8 single-line, 4 of 3/6/10/15 lines)"
	if got := describeCorpus(c); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
