package blocks

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
	"unsafe"

	sitter "github.com/smacker/go-tree-sitter"
	"golang.org/x/tools/txtar"
)

// dumpTree writes every node of the tree, in order, with its type, its
// flags and its span in bytes and in points: two trees with the same dump
// have the same shape and the same positions everywhere.
func dumpTree(tree *sitter.Tree) string {
	var sb strings.Builder
	c := sitter.NewTreeCursor(tree.RootNode())
	defer c.Close()
	depth := 0
	for {
		n := c.CurrentNode()
		sp, ep := n.StartPoint(), n.EndPoint()
		fmt.Fprintf(&sb, "%*s%s named=%v missing=%v error=%v [%d %d] (%d,%d)-(%d,%d)\n",
			depth, "", n.Type(), n.IsNamed(), n.IsMissing(), n.IsError(), n.StartByte(), n.EndByte(), sp.Row, sp.Column, ep.Row, ep.Column)
		if c.GoToFirstChild() {
			depth++
			continue
		}
		for !c.GoToNextSibling() {
			if !c.GoToParent() {
				return sb.String()
			}
			depth--
		}
	}
}

// firstDiff names the first line where two dumps differ.
func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return fmt.Sprintf("node %d: incremental %q, full %q", i, al[i], bl[i])
		}
	}
	return fmt.Sprintf("incremental has %d nodes, full %d", len(al), len(bl))
}

func fullParse(t *testing.T, lang *Language, text string) *sitter.Tree {
	t.Helper()
	tree, why, reason := parse(context.Background(), lang, text, nil, ParseTimeout)
	if tree == nil {
		t.Fatalf("full parse failed: %v %s", why, reason)
	}
	return tree
}

// snippets are what the random edits insert: line breaks of both kinds,
// a lone CR, delimiters that open and close constructs, multi-byte
// characters of two, three and four bytes, and a BOM.
var snippets = []string{
	"\n", "\r\n", "\r", "\n\n", "{", "}", "(", ")", "[", "]", ":", "\"", "'", "#", "<", ">", "-",
	"  ", "\t", "é", "世界", "🎉", "\ufeff", "x = 1\n", "if (a) {\n  b();\n}\n", "def f():\n    return 1\n",
	"# heading\n", "- item\n", "key: value\n", "é = \"ü\"\n",
}

// randomEdit replaces a random run of characters of text (possibly none)
// with a snippet or a copy of another run of the text. Offsets fall on
// character boundaries, as every text the daemon parses is valid UTF-8.
func randomEdit(rng *rand.Rand, text string) string {
	at := runeBoundary(text, rng.IntN(len(text)+1))
	end := runeBoundary(text, min(len(text), at+rng.IntN(40)))
	if rng.IntN(4) == 0 {
		end = at // a pure insertion
	}
	var ins string
	switch rng.IntN(3) {
	case 0:
		// Nothing: a pure deletion (or no edit at all).
	case 1:
		ins = snippets[rng.IntN(len(snippets))]
	default:
		from := runeBoundary(text, rng.IntN(len(text)+1))
		ins = text[from:runeBoundary(text, min(len(text), from+rng.IntN(80)))]
	}
	return text[:at] + ins + text[end:]
}

// runeBoundary moves i back to the start of the character it falls in.
func runeBoundary(s string, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// seedTexts are the source files of the resolution cases, each as written,
// with CRLF line endings, with a BOM, and with multi-byte characters in
// its first line.
func seedTexts(t *testing.T) map[string]string {
	t.Helper()
	archives, err := filepath.Glob("testdata/*.txtar")
	if err != nil || len(archives) == 0 {
		t.Fatalf("no resolution cases in testdata: %v", err)
	}
	seeds := map[string]string{}
	for _, path := range archives {
		ar, err := txtar.ParseFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range ar.Files {
			text := string(f.Data)
			if LanguageFor(f.Name, text) == nil || len(text) == 0 {
				continue
			}
			base := filepath.Base(path) + "/" + f.Name
			seeds[base] = text
			seeds[base+"+crlf"] = strings.ReplaceAll(text, "\n", "\r\n")
			seeds[base+"+bom"] = "\ufeff" + text
			first, rest, _ := strings.Cut(text, "\n")
			seeds[base+"+utf8"] = first + " 世界é🎉\n" + rest
			// Large enough for a changed region to be split in several.
			seeds[base+"+large"] = strings.Repeat(strings.TrimRight(text, "\n")+"\n\n", minSplitBytes/len(text)+4)
		}
	}
	return seeds
}

// TestIncrementalParseEqualsFullParse edits every seed text at random,
// one edit after another, parsing each new text incrementally from the
// previous text's tree (itself incremental, as the cache chains them),
// and checks the tree against a full parse of the same text: both find
// errors or neither does, and a text without errors has the same tree,
// every node with the same byte span and points. (Where a text has
// errors, tree-sitter's error recovery may place them differently when it
// reuses nodes; block ops and repair only ask whether there are any.)
func TestIncrementalParseEqualsFullParse(t *testing.T) {
	steps := 25
	if testing.Short() {
		steps = 5
	}
	seeds := seedTexts(t)
	for name, seed := range seeds {
		path, _, _ := strings.Cut(name[strings.Index(name, "/")+1:], "+")
		lang := LanguageFor(path, seed)
		if lang == nil || lang.refuse(seed) != "" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(len(name)), uint64(len(seed))))
			text := seed
			tree := fullParse(t, lang, text)
			defer func() { tree.Close() }()
			for step := range steps {
				// One to three changes at once, as an edit's ops make
				// them: far apart in a large text, they are split into
				// several edits.
				next := randomEdit(rng, text)
				for range rng.IntN(3) {
					next = randomEdit(rng, next)
				}
				if lang.refuse(next) != "" {
					continue
				}
				edit := editsBetween(text, next)
				old := tree.Copy()
				for _, e := range edit {
					editTree(old, e)
				}
				inc, why, reason := parse(context.Background(), lang, next, old, ParseTimeout)
				old.Close()
				if inc == nil {
					t.Fatalf("step %d: incremental parse failed: %v %s", step, why, reason)
				}
				full := fullParse(t, lang, next)
				incErr, fullErr := inc.RootNode().HasError(), full.RootNode().HasError()
				if incErr != fullErr {
					t.Fatalf("step %d: after editing %q into %q (edit %+v), the incremental tree has errors: %v, a full parse: %v",
						step, text, next, edit, incErr, fullErr)
				}
				if got, want := dumpTree(inc), dumpTree(full); !fullErr && got != want {
					full.Close()
					inc.Close()
					t.Fatalf("step %d: after editing %q into %q (edit %+v) the incremental tree differs from a full parse: %s",
						step, text, next, edit, firstDiff(got, want))
				}
				full.Close()
				tree.Close()
				tree, text = inc, next
			}
		})
	}
}

// TestEditBetween pins the edit computed for small texts: bytes and
// points, with multi-byte characters never split and rows counted at LF
// only.
func TestEditBetween(t *testing.T) {
	pt := func(r, c uint32) sitter.Point { return sitter.Point{Row: r, Column: c} }
	for _, tc := range []struct {
		name, old, new string
		want           sitter.EditInput
	}{
		{"insert a line", "a\nb\n", "a\nx\nb\n", sitter.EditInput{StartIndex: 2, OldEndIndex: 2, NewEndIndex: 4, StartPoint: pt(1, 0), OldEndPoint: pt(1, 0), NewEndPoint: pt(2, 0)}},
		{"delete a line", "a\nx\nb\n", "a\nb\n", sitter.EditInput{StartIndex: 2, OldEndIndex: 4, NewEndIndex: 2, StartPoint: pt(1, 0), OldEndPoint: pt(2, 0), NewEndPoint: pt(1, 0)}},
		{"replace in a line", "f(a)\n", "f(bc)\n", sitter.EditInput{StartIndex: 2, OldEndIndex: 3, NewEndIndex: 4, StartPoint: pt(0, 2), OldEndPoint: pt(0, 3), NewEndPoint: pt(0, 4)}},
		// é is c3 a9 and è is c3 a8: the common byte c3 is not a prefix
		// of characters, so the edit starts before it.
		{"multi-byte characters", "xé\n", "xè\n", sitter.EditInput{StartIndex: 1, OldEndIndex: 3, NewEndIndex: 3, StartPoint: pt(0, 1), OldEndPoint: pt(0, 3), NewEndPoint: pt(0, 3)}},
		// A CR is an ordinary byte of its row.
		{"CR is no row", "a\r\nb\r\n", "a\r\nbc\r\n", sitter.EditInput{StartIndex: 4, OldEndIndex: 4, NewEndIndex: 5, StartPoint: pt(1, 1), OldEndPoint: pt(1, 1), NewEndPoint: pt(1, 2)}},
		// A BOM is three bytes of the first row.
		{"BOM", "\ufeffab", "\ufeffaXb", sitter.EditInput{StartIndex: 4, OldEndIndex: 4, NewEndIndex: 5, StartPoint: pt(0, 4), OldEndPoint: pt(0, 4), NewEndPoint: pt(0, 5)}},
		// The repeated run: prefix and suffix may not overlap.
		{"repeated text", "aaaa", "aaaaaa", sitter.EditInput{StartIndex: 4, OldEndIndex: 4, NewEndIndex: 6, StartPoint: pt(0, 4), OldEndPoint: pt(0, 4), NewEndPoint: pt(0, 6)}},
		{"from empty", "", "a\nb", sitter.EditInput{StartIndex: 0, OldEndIndex: 0, NewEndIndex: 3, StartPoint: pt(0, 0), OldEndPoint: pt(0, 0), NewEndPoint: pt(1, 1)}},
		{"long common prefix", strings.Repeat("x", 1000) + "\n" + strings.Repeat("y", 600), strings.Repeat("x", 1000) + "\nZ" + strings.Repeat("y", 600),
			sitter.EditInput{StartIndex: 1001, OldEndIndex: 1001, NewEndIndex: 1002, StartPoint: pt(1, 0), OldEndPoint: pt(1, 0), NewEndPoint: pt(1, 1)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := editsBetween(tc.old, tc.new)
			if len(got) != 1 || got[0] != tc.want {
				t.Errorf("editsBetween(%q, %q) = %+v, want %+v", tc.old, tc.new, got, tc.want)
			}
		})
	}
	if got := editsBetween("abc", "abc"); got != nil {
		t.Errorf("equal texts gave edits %+v", got)
	}
}

// Two changes far apart in a large text are two edits, the later one
// first, each in the coordinates the one before left; two changes close
// together are one.
func TestEditsBetweenSplitsDistantChanges(t *testing.T) {
	pt := func(r, c uint32) sitter.Point { return sitter.Point{Row: r, Column: c} }
	var b strings.Builder
	for i := range 400 {
		fmt.Fprintf(&b, "line %03d\n", i) // 9 bytes a line
	}
	old := b.String()
	// Line 10 (row 9) gains a line; line 391 (row 390) changes a byte.
	new := strings.Replace(old, "line 009\n", "line 009\nadded\n", 1)
	new = strings.Replace(new, "line 390\n", "line 39X\n", 1)
	got := editsBetween(old, new)
	want := []sitter.EditInput{
		{StartIndex: 390*9 + 7, OldEndIndex: 390*9 + 8, NewEndIndex: 390*9 + 8, StartPoint: pt(390, 7), OldEndPoint: pt(390, 8), NewEndPoint: pt(390, 8)},
		{StartIndex: 90, OldEndIndex: 90, NewEndIndex: 96, StartPoint: pt(10, 0), OldEndPoint: pt(10, 0), NewEndPoint: pt(11, 0)},
	}
	if !slices.Equal(got, want) {
		t.Errorf("editsBetween gave %+v, want %+v", got, want)
	}
	near := strings.Replace(old, "line 011\n", "line 01X\n", 1)
	near = strings.Replace(near, "line 009\n", "line 00X\n", 1)
	if got := editsBetween(old, near); len(got) != 1 {
		t.Errorf("two changes two lines apart gave %d edits, want 1: %+v", len(got), got)
	}
}

// Pairs of real versions (testdata/incremental/NAME.before and
// NAME.after, from this repository's history) whose incremental parse
// once differed from a full parse: the binding hands tree-sitter the old
// end point as the new one, and inserting lines left every node after
// them misplaced, so the reparse answered a tree that was one ERROR node
// (tsedit.go).
func TestIncrementalParseOfRealVersions(t *testing.T) {
	befores, err := filepath.Glob("testdata/incremental/*.before")
	if err != nil || len(befores) == 0 {
		t.Fatalf("no testdata/incremental/*.before: %v", err)
	}
	for _, before := range befores {
		name := strings.TrimSuffix(filepath.Base(before), ".before")
		t.Run(name, func(t *testing.T) {
			old, err := os.ReadFile(before)
			if err != nil {
				t.Fatal(err)
			}
			next, err := os.ReadFile(strings.TrimSuffix(before, ".before") + ".after")
			if err != nil {
				t.Fatal(err)
			}
			lang := LanguageFor(name, string(old))
			if lang == nil {
				t.Fatalf("no grammar for %s", name)
			}
			tree := fullParse(t, lang, string(old))
			defer tree.Close()
			for _, e := range editsBetween(string(old), string(next)) {
				editTree(tree, e)
			}
			inc, why, reason := parse(context.Background(), lang, string(next), tree, ParseTimeout)
			if inc == nil {
				t.Fatalf("incremental parse failed: %v %s", why, reason)
			}
			defer inc.Close()
			full := fullParse(t, lang, string(next))
			defer full.Close()
			if got, want := dumpTree(inc), dumpTree(full); got != want {
				t.Errorf("the incremental tree differs from a full parse: %s", firstDiff(got, want))
			}
		})
	}
}

// editTree reads the binding's tree pointer through a mirror of its
// BaseTree; a binding whose BaseTree changes shape must fail here, not
// hand tree-sitter something else.
func TestBaseTreeLayout(t *testing.T) {
	if got, want := unsafe.Sizeof(baseTree{}), unsafe.Sizeof(sitter.BaseTree{}); got != want {
		t.Fatalf("baseTree is %d bytes, the binding's BaseTree %d: tsedit.go no longer mirrors it", got, want)
	}
	lang := LanguageFor("a.go", "package a\n")
	tree := fullParse(t, lang, "package a\n")
	defer tree.Close()
	if (*baseTree)(unsafe.Pointer(tree.BaseTree)).c == nil {
		t.Fatal("the mirrored tree pointer is nil")
	}
}
