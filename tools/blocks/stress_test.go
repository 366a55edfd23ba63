package blocks

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/txtar"
)

// TestParseStress feeds every grammar the inputs that break parsers (deep
// nesting, unclosed constructs, long lines, odd bytes, mutated real
// files), each parsed in a child process so an abort is counted, not
// fatal. Through the package's API (the daemon's path) no input may take
// the child down; parsed raw, the aborts found are logged, as what the
// pre-checks exist for. By default it parses a few inputs per grammar
// (seconds); HOSTD_STRESS=long gives each grammar a minute. The seed is
// logged, and HOSTD_STRESS_SEED replays one.
func TestParseStress(t *testing.T) {
	if testing.Short() {
		t.Skip("parses many inputs in child processes")
	}
	perGrammar, maxSize, spend := 12, 16<<10, time.Duration(0)
	if os.Getenv("HOSTD_STRESS") == "long" && !raceEnabled {
		perGrammar, maxSize, spend = math.MaxInt, 512<<10, time.Minute
	}
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("HOSTD_STRESS_SEED"); s != "" {
		if _, err := fmt.Sscan(s, &seed); err != nil {
			t.Fatalf("HOSTD_STRESS_SEED: %v", err)
		}
	}
	t.Logf("seed %d, inputs up to %d bytes", seed, maxSize)
	rng := rand.New(rand.NewPCG(seed, 0))
	seeds := stressSeeds(t)
	c := newParseChild(t)
	for _, name := range Languages() {
		inputs, rawAborts := 0, 0
		shapes := map[string]int{}
		until := time.Now().Add(spend)
		for ; inputs < perGrammar && (spend == 0 || time.Now().Before(until)); inputs++ {
			shape, text := stressInput(rng, name, maxSize, seeds[name])
			shapes[shape]++
			for _, mode := range []byte{modeRaw, modeGuarded} {
				_, death, err := c.parse(mode, name, text)
				if err != nil {
					t.Fatal(err)
				}
				switch {
				case death == nil:
				case mode == modeRaw:
					rawAborts++
					t.Logf("%s, raw parse: %s input of %d bytes took the child down: %s", name, shape, len(text), death)
				default:
					t.Errorf("%s: %s input of %d bytes (%q...) took the child down through the API: %s",
						name, shape, len(text), text[:min(len(text), 80)], death)
				}
			}
		}
		t.Logf("%s: %d inputs %v, each parsed raw and through the API; %d raw aborts", name, inputs, shapes, rawAborts)
	}
	t.Logf("child processes started: %d", c.starts)
}

// stressSeeds are the real files of the resolution tests, by grammar.
func stressSeeds(t testing.TB) map[string][]string {
	out := map[string][]string{}
	archives, _ := filepath.Glob("testdata/*.txtar")
	for _, path := range archives {
		ar, err := txtar.ParseFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range ar.Files {
			if l := LanguageFor(f.Name, string(f.Data)); l != nil {
				out[l.name] = append(out[l.name], string(f.Data))
			}
		}
	}
	return out
}

// nesters are, per grammar, the openers that nest (with the closer, ""
// when the construct closes by indentation or not at all).
var nesters = map[string][][2]string{
	"bash":       {{"$(", ")"}, {"{ ", "; }"}, {"if x; then\n", "fi\n"}, {"\"$(", ")\""}, {"(", ")"}, {"${a:-", "}"}, {"<<EOF\n", "EOF\n"}, {"$((", "))"}},
	"css":        {{"a{", "}"}, {"@media x{", "}"}, {"a{b:calc(", ")}"}, {"(", ")"}, {"[", "]"}},
	"html":       {{"<div>", "</div>"}, {"<p>", ""}, {"<li>", ""}, {"<", ""}, {"<!--", ""}, {"<table><tr><td>", "</td></tr></table>"}, {"<b><i>", "</b>"}},
	"javascript": {{"(", ")"}, {"[", "]"}, {"{", "}"}, {"function f(){", "}"}, {"`${", "}`"}, {"a?", ":b"}, {"<a>", "</a>"}, {"/*", ""}, {"x=>", ""}},
	"json":       {{"[", "]"}, {"{\"a\":", "}"}, {"[\n", "\n]"}, {"\"", ""}},
	"jsx":        {{"<a>", "</a>"}, {"{", "}"}, {"<a b={", "}/>"}, {"(", ")"}, {"`${", "}`"}},
	"markdown":   {{"> ", ""}, {"- ", ""}, {"1. ", ""}, {"* ", ""}, {"  ", ""}, {"\t", ""}, {">", ""}, {"- > ", ""}, {"```\n", "```\n"}, {"<div>\n", ""}, {"#", ""}, {">\x00", ""}, {"\x00", ""}, {"\r>", ""}, {"1) ", ""}},
	"python":     {{"(", ")"}, {"[", "]"}, {"{", "}"}, {"if x:\n", ""}, {"f\"{", "}\""}, {"lambda:", ""}, {"not ", ""}, {"-", ""}},
	"rust":       {{"{", "}"}, {"(", ")"}, {"mod a {", "}"}, {"Vec<", ">"}, {"/*", "*/"}, {"r#\"", ""}, {"&", ""}, {"#[a(", ")]"}},
	"toml":       {{"a = [", "]"}, {"a = {b = ", "}"}, {"[", "]"}, {"\"\"\"", ""}, {"[[", "]]"}},
	"tsx":        {{"<a>", "</a>"}, {"(", ")"}, {"{", "}"}, {"Array<", ">"}, {"`${", "}`"}, {"<T,>(", ")=>0"}},
	"typescript": {{"(", ")"}, {"[", "]"}, {"{", "}"}, {"Array<", ">"}, {"`${", "}`"}, {"namespace a {", "}"}, {"a as ", ""}, {"<T>", ""}},
	"yaml":       {{"- ", ""}, {"[", "]"}, {"{", "}"}, {"a:\n", ""}, {"? ", ""}, {"- a:\n", ""}, {"&a ", ""}, {"!t ", ""}, {"|\n", ""}},
	"c":          {{"{", "}"}, {"(", ")"}, {"#if X\n", "#endif\n"}, {"struct{", "}"}, {"/*", "*/"}, {"[", "]"}, {"\"", ""}, {"#define A(", ")"}},
	"cpp":        {{"{", "}"}, {"(", ")"}, {"namespace a{", "}"}, {"A<", ">"}, {"template<class T>", ""}, {"[](){", "}"}, {"R\"x(", ")x\""}, {"[[a(", ")]]"}},
	"csharp":     {{"{", "}"}, {"(", ")"}, {"[A(", ")]"}, {"List<", ">"}, {"$\"{", "}\""}, {"@\"", "\""}, {"#if X\n", "#endif\n"}, {"namespace a{", "}"}},
	"dockerfile": {{"RUN a \\\n", ""}, {"[\"", "\"]"}, {"${a:-", "}"}, {"RUN <<EOF\n", "EOF\n"}, {"# ", ""}, {"FROM a\n", ""}, {"\\\n", ""}},
	"elixir":     {{"do\n", "end\n"}, {"(", ")"}, {"[", "]"}, {"%{", "}"}, {"fn ->", " end"}, {"\"#{", "}\""}, {"<<", ">>"}, {"\"\"\"\n", ""}, {"@a ", ""}},
	"go":         {{"{", "}"}, {"(", ")"}, {"func(){", "}"}, {"[]a{", "}"}, {"map[", "]a"}, {"`", "`"}, {"/*", "*/"}, {"*", ""}, {"<-", ""}},
	"hcl":        {{"a {\n", "}\n"}, {"[", "]"}, {"{", "}"}, {"\"${", "}\""}, {"<<EOF\n", "EOF\n"}, {"(", ")"}, {"%{ if a }", "%{ endif }"}},
	"java":       {{"{", "}"}, {"(", ")"}, {"class A{", "}"}, {"List<", ">"}, {"@A(", ")"}, {"() -> {", "}"}, {"\"\"\"\n", "\"\"\""}, {"/*", "*/"}},
	"kotlin":     {{"{", "}"}, {"(", ")"}, {"class A{", "}"}, {"List<", ">"}, {"@A(", ")"}, {"\"${", "}\""}, {"\"\"\"", "\"\"\""}, {"/*", "*/"}, {"if (a) ", ""}},
	"lua":        {{"do ", " end"}, {"(", ")"}, {"{", "}"}, {"function() ", " end"}, {"[[", "]]"}, {"--[[", "]]"}, {"if a then ", " end"}, {"---", ""}},
	"php":        {{"<?php {", "}"}, {"(", ")"}, {"[", "]"}, {"#[A(", ")]"}, {"\"{$", "}\""}, {"<<<EOT\n", "EOT\n"}, {"?>", "<?php "}, {"function(){", "}"}},
	"protobuf":   {{"message A{", "}"}, {"{", "}"}, {"(", ")"}, {"[", "]"}, {"oneof a{", "}"}, {"/*", "*/"}, {"\"", ""}, {"map<", ">"}},
	"ruby":       {{"begin\n", "end\n"}, {"(", ")"}, {"[", "]"}, {"{", "}"}, {"\"#{", "}\""}, {"<<~EOS\n", "EOS\n"}, {"def a\n", "end\n"}, {"-> {", "}"}, {"%w(", ")"}},
	"scala":      {{"{", "}"}, {"(", ")"}, {"[", "]"}, {"class A{", "}"}, {"s\"${", "}\""}, {"\"\"\"", "\"\"\""}, {"/*", "*/"}, {"@a(", ")"}, {"if a then\n", ""}},
	"sql":        {{"(", ")"}, {"SELECT (", ")"}, {"CASE WHEN a THEN ", " END"}, {"'", "'"}, {"/*", "*/"}, {"WITH a AS (", ") SELECT 1"}, {"\"", "\""}},
	"swift":      {{"{", "}"}, {"(", ")"}, {"[", "]"}, {"class A{", "}"}, {"\"\\(", ")\""}, {"\"\"\"\n", "\"\"\""}, {"/*", "*/"}, {"@a(", ")"}, {"#if X\n", "#endif\n"}},
}

// stressInput makes one input for grammar name of at most maxSize bytes
// and names its shape.
func stressInput(rng *rand.Rand, name string, maxSize int, seeds []string) (shape, text string) {
	size := 1 + rng.IntN(maxSize)
	if rng.IntN(8) > 0 {
		size = 1 + rng.IntN(min(maxSize, 4<<10)) // most inputs small: more of them per second
	}
	var sb strings.Builder
	switch k := rng.IntN(6); {
	case k <= 1:
		shape = "nested"
		pairs := nesters[name]
		var closers []string
		mix := rng.IntN(2) == 0
		first := pairs[rng.IntN(len(pairs))]
		indent := rng.IntN(3) == 0
		for depth := 0; sb.Len() < size; depth++ {
			p := first
			if mix {
				p = pairs[rng.IntN(len(pairs))]
			}
			if indent && strings.HasSuffix(p[0], "\n") {
				sb.WriteString(strings.Repeat(" ", min(depth, 2000)))
			}
			sb.WriteString(p[0])
			closers = append(closers, p[1])
		}
		if rng.IntN(2) == 0 { // closed, else truncated
			sb.WriteString("x")
			for _, c := range slices.Backward(closers) {
				sb.WriteString(c)
			}
		}
	case k == 2:
		shape = "long line"
		unit := []string{"a", " ", "\"", "x+", "(", "'", "\\", "#", "<", "-", "é", "\t", ">"}[rng.IntN(13)]
		if len(seeds) > 0 && rng.IntN(2) == 0 {
			s := seeds[rng.IntN(len(seeds))]
			sb.WriteString(s[:rng.IntN(len(s)+1)])
		}
		sb.WriteString(strings.Repeat(unit, size/len(unit)+1))
	case k == 3:
		shape = "odd bytes"
		alphabet := "\x00\x01\x7f\xff\xfe\r\n\t \"'`\\{}[]()<>#;:-*=|&$@!?/%,.aZ09\u00e9\u2028\ufeff"
		for sb.Len() < size {
			if rng.IntN(3) == 0 {
				sb.WriteByte(byte(rng.IntN(256)))
			} else {
				sb.WriteByte(alphabet[rng.IntN(len(alphabet))])
			}
		}
	default:
		shape = "mutated file"
		if len(seeds) == 0 {
			return stressInput(rng, name, maxSize, nil)
		}
		sb.WriteString(seeds[rng.IntN(len(seeds))])
		text = mutate(rng, sb.String(), size)
		return shape, text
	}
	return shape, sb.String()
}

// mutate applies random cuts, copies and truncations to s, growing it
// toward size by repeating chunks.
func mutate(rng *rand.Rand, s string, size int) string {
	for range 1 + rng.IntN(8) {
		if len(s) == 0 {
			break
		}
		i, j := rng.IntN(len(s)), rng.IntN(len(s))
		if i > j {
			i, j = j, i
		}
		switch rng.IntN(4) {
		case 0: // cut
			s = s[:i] + s[j:]
		case 1: // copy a chunk, maybe many times (nesting a construct)
			n := 1 + rng.IntN(1+size/max(j-i, 1))
			s = s[:i] + strings.Repeat(s[i:j], min(n, 1<<16/max(j-i, 1)+1)) + s[i:]
		case 2: // truncate
			s = s[:j]
		default: // a byte
			s = s[:i] + string(rune(rng.IntN(128))) + s[i:]
		}
	}
	if len(s) > 4*size+(64<<10) {
		s = s[:4*size+(64<<10)]
	}
	return s
}
