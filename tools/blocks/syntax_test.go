package blocks

import (
	"errors"
	"strings"
	"sync"
	"testing"
)

func TestCheck(t *testing.T) {
	tests := []struct {
		name, path, text string
		supported, clean bool
	}{
		{"clean TypeScript", "a.ts", "function f() {\n  return 1;\n}\n", true, true},
		{"a missing closer is an error (a MISSING node)", "a.ts", "function f() {\n  return 1;\n", true, false},
		{"an orphan closer is an error (an ERROR node)", "a.ts", "f();\n}\n", true, false},
		{"clean Rust", "a.rs", "fn f() {\n\tlet x = 1;\n}\n", true, true},
		{"broken Rust", "a.rs", "fn f() {\n\tlet x = ;\n}\n", true, false},
		{"clean Python", "a.py", "def f():\n    return 1\n", true, true},
		{"broken Python", "a.py", "def f(:\n    return 1\n", true, false},
		{"JSON", "a.json", "{\"a\": [1, 2]}\n", true, true},
		{"broken JSON", "a.json", "{\"a\": [1, 2}\n", true, false},
		{"TSX", "a.tsx", "const v = (\n  <section>\n    <A />\n  </section>\n);\n", true, true},
		{"broken TSX", "a.tsx", "const v = (\n  <section>\n    <A />\n);\n", true, false},
		{"a script picked by its #! line", "run", "#!/bin/bash\nif true; then\n  echo hi\nfi\n", true, true},
		{"a broken script picked by its #! line", "run", "#!/bin/bash\nif true; then\n  echo hi\n", true, false},
		{"no grammar for the file type", "a.txt", "function f() {\n", false, false},
		{"an empty text parses", "a.ts", "", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sup, clean := Check(tt.path, tt.text, defaultLimit)
			if sup != tt.supported || clean != tt.clean {
				t.Errorf("Check = %v, %v; want %v, %v", sup, clean, tt.supported, tt.clean)
			}
		})
	}
}

func TestSyntaxUsesTheBlockLanguageTable(t *testing.T) {
	for _, path := range []string{"a.ts", "a.tsx", "a.mjs", "a.rs", "a.py", "a.yml", "Cargo.lock", ".bashrc", "a.md", "a.txt", "Makefile"} {
		s, err := NewSyntax(path, "", defaultLimit)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := s.Language(), mustResolver(t, path, "").Language(); got != want {
			t.Errorf("%s: syntax language %q, block language %q", path, got, want)
		}
	}
}

func TestSyntaxKeepsTheFilesGrammar(t *testing.T) {
	// The grammar is the file's, chosen once: a candidate that rewrites
	// the #! line is still judged as the script it edits.
	s, err := NewSyntax("run", "#!/bin/sh\necho hi\n", defaultLimit)
	if err != nil {
		t.Fatal(err)
	}
	if sup, _ := s.Check("no shebang here\n"); !sup || s.Language() != "bash" {
		t.Errorf("language %q, supported %v; want bash for every candidate", s.Language(), sup)
	}
}

func TestSyntaxLimits(t *testing.T) {
	if _, err := NewSyntax("a.ts", "", 0); !errors.Is(err, ErrInvalidLimit) {
		t.Errorf("a zero limit: %v, want ErrInvalidLimit", err)
	}
	if sup, _ := Check("a.ts", "x();", 0); sup {
		t.Error("Check with a zero limit claims a grammar")
	}
	s, err := NewSyntax("a.ts", "", 64)
	if err != nil {
		t.Fatal(err)
	}
	if sup, _ := s.Check(strings.Repeat("x();\n", 20)); sup {
		t.Error("a text over the parse limit was judged; it must be reported unsupported")
	}
	if sup, clean := s.Check("x();\n"); !sup || !clean {
		t.Errorf("a text under the limit: %v, %v", sup, clean)
	}
	var nilSyntax *Syntax
	if sup, _ := nilSyntax.Check("x();"); sup || nilSyntax.Language() != "" {
		t.Error("a nil *Syntax claims a grammar")
	}
}

func TestSyntaxConcurrent(t *testing.T) {
	s, err := NewSyntax("a.ts", "", defaultLimit)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			text := "function f() {\n  return 1;\n}\n"
			if i%2 == 1 {
				text = text[:len(text)-2]
			}
			for range 50 {
				if _, clean := s.Check(text); clean != (i%2 == 0) {
					t.Errorf("goroutine %d: clean = %v", i, clean)
					return
				}
			}
		}()
	}
	wg.Wait()
}
