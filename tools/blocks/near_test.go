package blocks

import (
	"context"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
)

// nearer prefers the text whose difference from the new one adds or
// removes fewer lines, then the one with fewer bytes changed; a tie goes
// to the second text (the base).
func TestNearer(t *testing.T) {
	base := "f() {\n  a;\n}\ng() {\n  b;\n}\n"
	noCloser := "f() {\n  a;\ng() {\n  b;\n}\n"
	changed := "f() {\n  a + 1;\n}\ng() {\n  b;\n}\n"
	bothChanged := "f() {\n  a + 1;\ng() {\n  b;\n}\n"
	for _, tc := range []struct {
		name      string
		a, b, new string
		want      bool
	}{
		{"the closer removed as in a, one line changed from a", bothChanged, base, noCloser, true},
		{"the closer put back from b, a line changed from b", noCloser, base, changed, false},
		{"the closer lacking in both: fewer bytes", bothChanged, noCloser, noCloser + "x", false},
		{"equal to a", noCloser, base, noCloser, true},
		{"equal to b", noCloser, base, base, false},
		{"a tie goes to b", base, base, changed, false},
	} {
		if got := nearer(tc.a, tc.b, tc.new); got != tc.want {
			al, ab := distance(tc.a, tc.new)
			bl, bb := distance(tc.b, tc.new)
			t.Errorf("%s: nearer = %v, want %v (a: %d lines %d bytes, b: %d lines %d bytes)", tc.name, got, tc.want, al, ab, bl, bb)
		}
	}
}

// The checks of a repair that kept a swallowed closer, in its order: the
// result without the closer, the original, the original without the
// closer, the kept candidate. The third is parsed from the first's tree
// (both lack the closer, so what follows it is parsed inside the
// function in both), the others from the original's; every answer is a
// full parse's.
func TestSyntaxParsesFromTheNearerTree(t *testing.T) {
	trees := mustTrees(t, 64<<20)
	base := tsFunctions(40, 0)
	lines := strings.SplitAfter(base, "\n")
	join := func(parts ...[]string) string {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(strings.Join(p, ""))
		}
		return b.String()
	}
	// Lines 104-105 of the file are "\treturn x;" and "}" of f20.
	body := []string{"\treturn x + 1;\n"}
	result := join(lines[:103], body, lines[105:])
	withoutCloser := join(lines[:104], lines[105:])
	kept := join(lines[:103], body, lines[104:])
	syn, err := trees.NewSyntax(context.Background(), "a.ts", base, defaultLimit)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range []struct {
		text  string
		clean bool
	}{{result, false}, {base, true}, {withoutCloser, false}, {kept, true}} {
		sup, clean := syn.Check(c.text)
		if wsup, wclean := Check("a.ts", c.text, defaultLimit); !sup || !wsup || clean != wclean || clean != c.clean {
			t.Fatalf("check %d: (%v, %v), a full parse (%v, %v), want clean %v", i, sup, clean, wsup, wclean, c.clean)
		}
	}
	st := trees.Stats()
	if st.Full != 1 || st.Hits != 2 || st.Incremental != 3 || st.Near != 1 {
		t.Errorf("stats %+v: want the original parsed once and found twice (its own check, the kept candidate's), three incremental parses, one of them from the last candidate's tree", st)
	}
	if syn.last == nil || syn.last.text != kept {
		t.Fatal("the Syntax does not keep the last candidate's tree")
	}
	syn.Release()
	if syn.last != nil {
		t.Fatal("Release left a tree kept")
	}
	// Still usable: a check parses from the original's tree again.
	if sup, clean := syn.Check(withoutCloser); !sup || clean {
		t.Fatalf("after Release: (%v, %v)", sup, clean)
	}
	syn.Release()
	if st := trees.Stats(); st.Bytes != treeCost(base) || st.Cached != 1 {
		t.Errorf("stats %+v: want the original's tree alone counted", st)
	}
}

// Candidates checked one after another, each parsed from the base's tree
// or the last one's, answer as full parses do, in every grammar's seed
// texts; and the same candidate checked twice is served by the tree kept.
func TestSyntaxChainedChecksEqualFullParses(t *testing.T) {
	steps := 12
	if testing.Short() {
		steps = 4
	}
	for name, seed := range seedTexts(t) {
		path, _, _ := strings.Cut(name[strings.Index(name, "/")+1:], "+")
		lang := LanguageFor(path, seed)
		if lang == nil || lang.refuse(seed) != "" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			trees := mustTrees(t, 64<<20)
			syn, err := trees.NewSyntax(context.Background(), path, seed, defaultLimit)
			if err != nil {
				t.Fatal(err)
			}
			defer syn.Release()
			// The same grammar (the seed's: a #! line the edits change
			// picks none), every text parsed from scratch.
			scratch, err := NewSyntax(path, seed, defaultLimit)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(uint64(len(name)), 7))
			last := seed
			for step := range steps {
				// From the base or from the last candidate, as a repair's
				// candidates are one or two changes from either.
				from := seed
				if rng.IntN(2) == 0 {
					from = last
				}
				text := randomEdit(rng, from)
				if rng.IntN(5) == 0 {
					text = last
				}
				sup, clean := syn.Check(text)
				wsup, wclean := scratch.Check(text)
				if sup != wsup || clean != wclean {
					t.Fatalf("step %d: %.300q (%d bytes) checked (%v, %v), a full parse (%v, %v)", step, text, len(text), sup, clean, wsup, wclean)
				}
				last = text
			}
		})
	}
}

// Concurrent checks through one Syntax share its kept tree safely (run
// with -race), and each answers as a full parse does.
func TestSyntaxKeptTreeConcurrent(t *testing.T) {
	trees := mustTrees(t, 64<<20)
	base := tsFunctions(20, 0)
	syn, err := trees.NewSyntax(context.Background(), "a.ts", base, defaultLimit)
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{
		strings.Replace(base, "\treturn x;\n}\n", "\treturn x;\n", 1),
		strings.Replace(base, "\treturn x;\n}\n", "\treturn x + 1;\n", 1),
		strings.Replace(base, "log(x);", "log(x + 1);", 1),
		base,
	}
	want := make([]bool, len(texts))
	for i, text := range texts {
		_, want[i] = Check("a.ts", text, defaultLimit)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				k := (g + i) % len(texts)
				if sup, clean := syn.Check(texts[k]); !sup || clean != want[k] {
					t.Errorf("goroutine %d: text %d checked (%v, %v), want clean %v", g, k, sup, clean, want[k])
					return
				}
				if i%7 == 6 {
					syn.Release()
				}
			}
		}()
	}
	wg.Wait()
	syn.Release()
	if syn.last != nil {
		t.Fatal("a tree is still kept after Release")
	}
}

// FuzzSyntaxChecks: a repair's run of checks on any text in any grammar,
// each candidate one edit from the text or from the candidate before
// (script: per candidate, which of the two, where, how much to delete,
// which snippet to insert), answers as parses from scratch do.
func FuzzSyntaxChecks(f *testing.F) {
	seedTestdata(f, func(text string, lang uint8) { f.Add(text, lang, []byte{0, 9, 2, 4, 1, 30, 0, 5}) })
	f.Fuzz(func(t *testing.T, base string, lang uint8, script []byte) {
		if len(base) > 16<<10 || len(script) > 64 {
			return
		}
		path := fuzzPaths[int(lang)%len(fuzzPaths)]
		trees := mustTrees(t, 64<<20)
		syn, err := trees.NewSyntax(context.Background(), path, base, defaultLimit)
		if err != nil {
			t.Fatal(err)
		}
		defer syn.Release()
		scratch, err := NewSyntax(path, base, defaultLimit)
		if err != nil {
			t.Fatal(err)
		}
		last := base
		for i := 0; i+3 < len(script); i += 4 {
			from := base
			if script[i]%2 == 1 {
				from = last
			}
			at := runeBoundary(from, int(script[i+1])*len(from)/256)
			end := runeBoundary(from, min(len(from), at+int(script[i+2]%32)))
			text := from[:at] + snippets[int(script[i+3])%len(snippets)] + from[end:]
			sup, clean := syn.Check(text)
			wsup, wclean := scratch.Check(text)
			if sup != wsup || clean != wclean {
				t.Fatalf("candidate %d of %s: %.300q checked (%v, %v), from scratch (%v, %v)", i/4, path, text, sup, clean, wsup, wclean)
			}
			last = text
		}
	})
}

// On the shared corpus's TypeScript files, a repair's kinds of candidate
// (a line deleted, a range replaced by another line, a line inserted),
// each from the file or from the candidate before, checked through the
// tree cache answer as parses from scratch do.
func TestCorpusSyntaxChecksEqualFullParses(t *testing.T) {
	files := corpusFiles(t, "ts-edit-fixtures/fixtures/*/input/*.ts")
	checks, dirty := 0, 0
	for _, path := range files {
		base := loadText(t, path)
		lines := strings.SplitAfter(base, "\n")
		if len(lines) < 3 {
			continue
		}
		trees := mustTrees(t, 64<<20)
		syn, err := trees.NewSyntax(context.Background(), path, base, defaultLimit)
		if err != nil {
			t.Fatal(err)
		}
		scratch, err := NewSyntax(path, base, defaultLimit)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(uint64(len(base)), 11))
		from := lines
		for range 8 {
			i := rng.IntN(len(from) - 1)
			var next []string
			switch rng.IntN(3) {
			case 0: // a line deleted
				next = append(append(next, from[:i]...), from[i+1:]...)
			case 1: // lines i..i+1 replaced by another line of the file
				next = append(append(append(next, from[:i]...), lines[rng.IntN(len(lines))]), from[i+2:]...)
			default: // a line of the file inserted
				next = append(append(append(next, from[:i]...), lines[rng.IntN(len(lines))]), from[i:]...)
			}
			text := strings.Join(next, "")
			sup, clean := syn.Check(text)
			wsup, wclean := scratch.Check(text)
			if sup != wsup || clean != wclean {
				t.Fatalf("%s: %.300q checked (%v, %v), from scratch (%v, %v)", path, text, sup, clean, wsup, wclean)
			}
			checks++
			if !clean {
				dirty++
			}
			if rng.IntN(2) == 0 {
				from = next
			} else {
				from = lines
			}
		}
		syn.Release()
	}
	t.Logf("%d checks on %d files, %d of them of texts with errors", checks, len(files), dirty)
}
