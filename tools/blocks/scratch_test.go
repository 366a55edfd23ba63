package blocks

import (
	"context"
	"strings"
	"testing"
)

// Bash is parsed from scratch: the tree-sitter grammar's incremental
// parse of this edit (the "\n  b\nfi\n\nif [" after the second "else"
// replaced by "<") has an error where a full parse of the same text has
// none, so an incremental parse would make boundary repair and block ops
// answer differently from a full parse. Every other grammar answered
// alike in TestSyntaxChainedChecksEqualFullParses and
// TestIncrementalParseEqualsFullParse.
func TestFromScratchGrammars(t *testing.T) {
	base := strings.Repeat("if [ -f x ]; then\n  a\nelse\n  b\nfi\n\n", 3)
	text := base[:61] + "<" + base[74:]
	lang := LanguageFor("run.bash", base)
	if !lang.fromScratch {
		t.Fatal("bash is parsed incrementally")
	}
	full := fullParse(t, lang, text)
	defer full.Close()
	if full.RootNode().HasError() {
		t.Fatalf("a full parse of %q has an error", text)
	}
	trees := mustTrees(t, 64<<20)
	syn, err := trees.NewSyntax(context.Background(), "run.bash", base, defaultLimit)
	if err != nil {
		t.Fatal(err)
	}
	defer syn.Release()
	for _, c := range []string{base, text, text} {
		if sup, clean := syn.Check(c); !sup || !clean {
			t.Fatalf("%q checked (%v, %v); a full parse finds it clean", c, sup, clean)
		}
	}
	if _, _, err := resolveWith(t, trees, "run.bash", text, 1); err != nil {
		t.Fatalf("a block op on the edited text: %v", err)
	}
	// The base, the candidate (checked twice: the second time from the
	// tree kept), the candidate again for the block op, which caches it.
	if st := trees.Stats(); st.Incremental != 0 || st.Full != 3 {
		t.Errorf("stats %+v: want every text parsed from scratch, each once per use", st)
	}
	for name, l := range languages {
		if l.fromScratch && name != "bash" {
			t.Errorf("%s is parsed from scratch, with no case here saying why", name)
		}
	}
}
