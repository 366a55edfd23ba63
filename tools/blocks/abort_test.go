package blocks

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// nestedMarkdown are the files of the report: a few hundred bytes of
// nested block quotes or list items, which the Markdown grammar's
// external scanner cannot hold (its state outgrows tree-sitter's fixed
// serialization buffer and the parser aborts the process).
var nestedMarkdown = map[string]string{
	"quotes":  strings.Repeat("> ", 256) + "quoted\n",
	"items":   strings.Repeat("- ", 256) + "item\n",
	"ordered": strings.Repeat("1. ", 256) + "item\n",
	"indented": func() string {
		var sb strings.Builder
		for i := range 256 {
			sb.WriteString(strings.Repeat("  ", i) + "- item\n")
		}
		return sb.String()
	}(),
	"mixed": strings.Repeat("> - ", 128) + "both\n",
}

// TestNestedMarkdownSurvives: a block op and a syntax check on each file
// answer (the child lives) instead of aborting.
func TestNestedMarkdownSurvives(t *testing.T) {
	c := newParseChild(t)
	for name, text := range nestedMarkdown {
		answer, death, err := c.parse(modeGuarded, "markdown", text)
		if err != nil {
			t.Fatal(err)
		}
		if death != nil {
			t.Errorf("%s (%d bytes): the parse took the process down: %s", name, len(text), death)
			continue
		}
		if answer != answerUnsupported {
			t.Errorf("%s: the syntax check answered %q; a text the grammar cannot hold is not checked", name, answer)
		}
	}
}

// fuzzChild is the parse child of one fuzz worker process.
var fuzzChild parseChild

// FuzzParseChild: no text, in any grammar, takes the process down through
// the package's API. Each input is parsed in the child process, so an
// abort fails the input (and the fuzzer keeps it) instead of killing the
// fuzzer. An input names its grammar by index in Languages(): adding a
// grammar renumbers them, and the kept inputs in testdata/fuzz must be
// renumbered with it.
func FuzzParseChild(f *testing.F) {
	f.Cleanup(fuzzChild.close)
	names := Languages()
	for _, text := range nestedMarkdown {
		f.Add(text, uint8(slices.Index(names, "markdown")))
	}
	for name, texts := range stressSeeds(f) {
		for _, text := range texts {
			f.Add(text, uint8(slices.Index(names, name)))
		}
	}
	f.Fuzz(func(t *testing.T, text string, lang uint8) {
		if len(text) > 64<<10 {
			return
		}
		name := names[int(lang)%len(names)]
		_, death, err := fuzzChild.parse(modeGuarded, name, text)
		if err != nil {
			t.Fatal(err)
		}
		if death != nil {
			t.Fatalf("%s: %d bytes took the child down: %s", name, len(text), death)
		}
	})
}

// TestMarkdownGuardBound: at the guard's bound every way of nesting is
// accepted and parses without harm, raw, in a child; one more is refused.
func TestMarkdownGuardBound(t *testing.T) {
	const n = maxMarkdownNesting
	indented := func(levels int) string {
		var sb strings.Builder
		for i := range levels {
			sb.WriteString(strings.Repeat("  ", i) + "- item\n")
		}
		return sb.String()
	}
	tests := []struct {
		name      string
		at, above string // nesting n and n+1
	}{
		{"quotes without spaces", strings.Repeat(">", n) + "x\n", strings.Repeat(">", n+1) + "x\n"},
		{"quotes", strings.Repeat("> ", n/2) + "x\n", strings.Repeat("> ", n/2) + ">x\n"},
		{"items", strings.Repeat("- ", n/2) + "x\n", strings.Repeat("- ", n/2) + "-\n"},
		{"ordered", strings.Repeat("1. ", n/2) + "x\n", strings.Repeat("1. ", n/2) + "1.\n"},
		{"indented items", indented(n / 2), indented(n/2 + 1)},
		{"tabs", strings.Repeat("\t", n/4) + "x\n", strings.Repeat("\t", n/4) + " x\n"},
		{"quoted items", strings.Repeat(">-\t", n/6) + ">>x\n", strings.Repeat(">-\t", n/6) + ">>>x\n"},
	}
	c := newParseChild(t)
	for _, tt := range tests {
		if why := markdownGuard(tt.at); why != "" {
			t.Errorf("%s: refused at the bound: %s", tt.name, why)
		}
		if why := markdownGuard(tt.above); why == "" {
			t.Errorf("%s: accepted past the bound", tt.name)
		}
		if _, death, err := c.parse(modeRaw, "markdown", tt.at); err != nil || death != nil {
			t.Errorf("%s: a text the guard accepts took the child down: %v %s", tt.name, err, death)
		}
	}
}

// TestMarkdownNesting: what counts toward the bound, and what ends the
// count.
func TestMarkdownNesting(t *testing.T) {
	tests := []struct {
		line string
		want int
	}{
		{"", 0},
		{"text", 0},
		{"> quote", 2},
		{">>> x", 4},
		{"- item", 2},
		{"* item", 2},
		{"+ item", 2},
		{"-item", 0},
		{"--- rule", 0},
		{"1. one", 2},
		{"12) twelve", 2},
		{"1.5 number", 0},
		{"1999", 0},
		{"    code", 4},
		{"\tcode", 4},
		{"  - > 1. x", 8},
		{"-", 1},
		{"> -", 3},
		{">\x00>", 3},
		{"\x00\x00 x", 3},
	}
	for _, tt := range tests {
		if got := markdownNesting(tt.line); got != tt.want {
			t.Errorf("markdownNesting(%q) = %d, want %d", tt.line, got, tt.want)
		}
	}
	if why := markdownGuard("a\nb\ntext\r" + strings.Repeat(">", maxMarkdownNesting+1)); !strings.HasPrefix(why, "line 3 nests") {
		t.Errorf("a line after a lone CR: %q, want it refused as line 3", why)
	}
	if got := markdownNesting(strings.Repeat(">", 1<<20)); got != maxMarkdownNesting+1 {
		t.Errorf("a long run of markers counted to %d; the count stops past the bound", got)
	}
}

// TestDeepNestingEveryGrammar: every grammar's nesting constructs, at the
// depths where a scanner's fixed state runs out (255 four-byte entries,
// 510 two-byte ones, 1024 one-byte ones in 1024 bytes: Kotlin's strings) and far past them, closed and
// truncated, through the API in a child; raw too, unless the grammar's
// guard refuses the text (Markdown aborts on it, C# takes minutes). Raw,
// only the Markdown grammar aborts; the YAML scanner writes one byte past the same buffer from
// depth 510 on, which lands in the padding after it and is harmless
// there, so it is pinned here.
func TestDeepNestingEveryGrammar(t *testing.T) {
	c := newParseChild(t)
	depths := []int{254, 255, 256, 509, 510, 511, 1024, 1025}
	switch {
	case raceEnabled:
		depths = []int{256, 511}
	case os.Getenv("HOSTD_STRESS") == "long":
		depths = append(depths, 1000, 5000, 20000)
	}
	for _, name := range Languages() {
		start := time.Now()
		for _, pair := range nesters[name] {
			for _, depth := range depths {
				open := strings.Repeat(pair[0], depth)
				for _, text := range []string{open + "x\n", open + "x" + strings.Repeat(pair[1], depth) + "\n"} {
					for _, mode := range []byte{modeRaw, modeGuarded} {
						if mode == modeRaw && languages[name].refuse(text) != "" {
							continue // the guard's reason to exist
						}
						_, death, err := c.parse(mode, name, text)
						if err != nil {
							t.Fatal(err)
						}
						if death != nil {
							t.Errorf("%s, %q nested %d deep (%d bytes), mode %c: %s", name, pair[0], depth, len(text), mode, death)
						}
					}
				}
			}
		}
		t.Logf("%s: %v", name, time.Since(start))
	}
}
