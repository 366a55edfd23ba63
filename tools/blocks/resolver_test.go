package blocks

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/config"
)

// The edit language calls a resolver through an interface of this shape
// (hashline.BlockResolver); the assertion keeps the two in step without
// making this package depend on the language.
var _ interface {
	Resolve(line int) (start, end int, err error)
} = (*Resolver)(nil)

var defaultLimit = config.DefaultLimits().MaxBlockParseBytes

func mustResolver(t testing.TB, path, text string) *Resolver {
	t.Helper()
	r, err := NewResolver(path, text, defaultLimit)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r
}

// TestLanguages: host.info lists exactly the contract's grammar set
// (edit-contract §8.2).
func TestLanguages(t *testing.T) {
	want := []string{"bash", "c", "cpp", "csharp", "css", "dockerfile", "elixir", "go", "hcl", "html", "java", "javascript", "json", "jsx",
		"kotlin", "lua", "markdown", "php", "protobuf", "python", "ruby", "rust", "scala", "sql", "swift", "toml", "tsx", "typescript", "yaml"}
	if got := Languages(); !slices.Equal(got, want) {
		t.Fatalf("Languages() = %v, want %v", got, want)
	}
	for _, ext := range []string{".rs", ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".json", ".md", ".css", ".py", ".toml", ".yaml", ".yml", ".html", ".sh", ".bash",
		".go", ".java", ".c", ".h", ".cc", ".cpp", ".hpp", ".cs", ".rb", ".php", ".kt", ".kts", ".swift", ".scala", ".lua", ".ex", ".exs",
		".tf", ".hcl", ".proto", ".sql", ".dockerfile"} {
		if languages[fileTypes[ext]] == nil {
			t.Errorf("extension %s maps to no grammar", ext)
		}
	}
}

func TestLanguageFor(t *testing.T) {
	cases := []struct{ path, text, want string }{
		{"src/lib.rs", "", "rust"},
		{"a/b/App.TSX", "", "tsx"},
		{"x.Ts", "", "typescript"},
		{"x.mts", "", "typescript"},
		{"x.jsx", "", "jsx"},
		{"x.cjs", "", "javascript"},
		{"README.md", "", "markdown"},
		{"pyproject.toml", "", "toml"},
		{"Cargo.lock", "", "toml"},
		{"home/.bashrc", "", "bash"},
		{"ci.yml", "", "yaml"},
		{"index.htm", "", "html"},
		{"run", "#!/bin/sh\necho\n", "bash"},
		{"run", "#!/usr/bin/env -S bash -e\n", "bash"},
		{"run", "#!/usr/bin/env python3\n", "python"},
		{"run", "#!/usr/bin/python3.12\n", "python"},
		{"run", "#!/usr/bin/env node\n", "javascript"},
		{"run", "#!/usr/bin/env ruby\n", "ruby"},
		{"run", "#!/usr/bin/lua5.4\n", "lua"},
		{"run", "#!/usr/bin/env elixir\n", "elixir"},
		{"run", "#!/usr/bin/env php\n<?php\n", "php"},
		{"run", "#!/usr/bin/env perl\n", ""},
		{"run", "#!\n", ""},
		{"run", "echo hi\n", ""},
		// An extension wins over a #! line.
		{"notes.txt", "#!/bin/bash\n", ""},
		{"main.go", "", "go"},
		{"include/vec.h", "", "cpp"},
		{"src/lib.c", "", "c"},
		{"Foo.Java", "", "java"},
		{"infra/main.tf", "", "hcl"},
		{"build/Dockerfile", "", "dockerfile"},
		{"Containerfile", "", "dockerfile"},
		{"app.dockerfile", "", "dockerfile"},
		{"Gemfile", "", "ruby"},
		{"api/v1/shop.proto", "", "protobuf"},
		{"main.zig", "", ""},
		{"Makefile", "", ""},
	}
	for _, c := range cases {
		got := ""
		if l := LanguageFor(c.path, c.text); l != nil {
			got = l.name
		}
		if got != c.want {
			t.Errorf("languageFor(%q, %q) = %q, want %q", c.path, c.text, got, c.want)
		}
	}
}

func TestNewResolverRejectsNonPositiveLimit(t *testing.T) {
	for _, limit := range []int64{0, -1} {
		if _, err := NewResolver("a.ts", "", limit); !errors.Is(err, ErrInvalidLimit) {
			t.Errorf("limit %d: err = %v, want ErrInvalidLimit", limit, err)
		}
	}
}

// TestDeclineKinds: every decline is an *UnresolvedError naming the line
// and unwrapping to the sentinel of its kind.
func TestDeclineKinds(t *testing.T) {
	cases := []struct {
		path, text string
		line       int
		kind       error
	}{
		{"a.zig", "const a = 1;\n", 1, ErrUnsupported},
		{"a.ts", "const a = 1;\n", 2, ErrLineRange},
		{"a.ts", "const a = 1;\n", -3, ErrLineRange},
		{"a.ts", "const a = ;\n", 1, ErrNotClean},
		{"a.ts", "const a = 1;\n", 1, ErrNoBlock},
		{"a.ts", "\n\nf(\n)\n", 1, ErrNoBlock},
	}
	for _, c := range cases {
		r := mustResolver(t, c.path, c.text)
		_, _, err := r.Resolve(c.line)
		var ue *UnresolvedError
		if !errors.As(err, &ue) || !errors.Is(err, c.kind) || ue.Line != c.line {
			t.Errorf("%s line %d: err = %#v, want an UnresolvedError of kind %v for line %d", c.path, c.line, err, c.kind, c.line)
		}
	}
}

// TestParseLimit: a text over the limit declines every block op without
// parsing; a text at the limit resolves.
func TestParseLimit(t *testing.T) {
	text := "function f() {\n  return 1;\n}\n"
	at, err := NewResolver("a.ts", text, int64(len(text)))
	if err != nil {
		t.Fatal(err)
	}
	defer at.Close()
	if s, e, err := at.Resolve(1); err != nil || s != 1 || e != 3 {
		t.Fatalf("at the limit: %d-%d, %v; want 1-3", s, e, err)
	}
	over, err := NewResolver("a.ts", text, int64(len(text))-1)
	if err != nil {
		t.Fatal(err)
	}
	defer over.Close()
	_, _, err = over.Resolve(1)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "every range and gap op still works") {
		t.Fatalf("over the limit: err = %v, want ErrTooLarge naming the plain ops", err)
	}
	if over.parses != 0 {
		t.Fatalf("a text over the limit was parsed %d times", over.parses)
	}
}

// TestDefaultParseLimit: the contract's 4 MiB, taken from config.
func TestDefaultParseLimit(t *testing.T) {
	if defaultLimit != 4<<20 {
		t.Fatalf("config.DefaultLimits().MaxBlockParseBytes = %d, want 4 MiB", defaultLimit)
	}
	body := strings.Repeat("x = 1\n", int(defaultLimit)/6+1)
	r := mustResolver(t, "big.py", body)
	_, _, err := r.Resolve(1)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), fmt.Sprint(defaultLimit)) {
		t.Fatalf("a %d-byte file: err = %v, want ErrTooLarge naming the limit", len(body), err)
	}
}

// TestParsesOnceAndLazily: constructing parses nothing; one parse serves
// every block op of a call; a syntax error is found once and reported for
// every line.
func TestParsesOnceAndLazily(t *testing.T) {
	text := strings.Repeat("function f() {\n  return 1;\n}\n", 50)
	r := mustResolver(t, "a.ts", text)
	if r.parses != 0 || r.tree != nil {
		t.Fatal("NewResolver parsed the text")
	}
	for line := 1; line <= 150; line++ {
		r.Resolve(line)
	}
	if r.parses != 1 {
		t.Fatalf("150 block ops parsed the text %d times, want 1", r.parses)
	}
	bad := mustResolver(t, "a.ts", "function f( {\n}\n")
	for line := 1; line <= 2; line++ {
		if _, _, err := bad.Resolve(line); !errors.Is(err, ErrNotClean) {
			t.Fatalf("line %d: err = %v, want ErrNotClean", line, err)
		}
	}
	if bad.parses != 1 {
		t.Fatalf("a broken file was parsed %d times, want 1", bad.parses)
	}
	unsupported := mustResolver(t, "a.txt", "x\n")
	unsupported.Resolve(1)
	if unsupported.parses != 0 {
		t.Fatal("an unsupported file was parsed")
	}
}

// TestParseTimeout: a parse that runs past its time bound declines the
// block op instead of holding the edit call.
func TestParseTimeout(t *testing.T) {
	text := strings.Repeat("function f(a, b) {\n  return [a, b].map((x) => x * 2);\n}\n", 20000)
	r := mustResolver(t, "slow.ts", text)
	r.timeout = time.Microsecond
	_, _, err := r.Resolve(1)
	if !errors.Is(err, ErrParseTime) || !strings.Contains(err.Error(), "could not be parsed as typescript within 1µs") {
		t.Fatalf("err = %v, want a parse-time decline", err)
	}
	if r.tree != nil {
		t.Fatal("a timed-out parse left a tree")
	}
}

func TestClose(t *testing.T) {
	r, err := NewResolver("a.ts", "function f() {\n}\n", defaultLimit)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.Resolve(1); err != nil {
		t.Fatal(err)
	}
	r.Close()
	if r.tree != nil {
		t.Fatal("Close kept the tree")
	}
	r.Close() // idempotent
	if _, _, err := r.Resolve(1); !errors.Is(err, ErrClosed) {
		t.Fatalf("Resolve after Close: err = %v, want ErrClosed", err)
	}
}

// TestNoFinalNewline: the last line of a file without a trailing newline
// is addressable like any other.
func TestNoFinalNewline(t *testing.T) {
	r := mustResolver(t, "a.js", "function f() {\n  return 1;\n}")
	if s, e, err := r.Resolve(1); err != nil || s != 1 || e != 3 {
		t.Fatalf("got %d-%d, %v; want 1-3", s, e, err)
	}
	if _, _, err := r.Resolve(4); !errors.Is(err, ErrLineRange) {
		t.Fatalf("line 4 of 3: err = %v", err)
	}
}

// TestUnsupportedMessage: the model is told that only block ops are lost.
func TestUnsupportedMessage(t *testing.T) {
	r := mustResolver(t, "src/main.zig", "const a = 1;\n")
	_, _, err := r.Resolve(1)
	for _, want := range []string{`".zig" files`, "N*", "PUT N.=M:", "CUT N.=M", "PUT >N:", "still works"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
	if r.Language() != "" || mustResolver(t, "a.py", "").Language() != "python" {
		t.Error("Language() does not report the grammar")
	}
}

// TestConcurrentUse: Resolve and Close from several goroutines never walk
// a freed tree (run with -race).
func TestConcurrentUse(t *testing.T) {
	text := strings.Repeat("def f():\n    return 1\n\n", 200)
	r, err := NewResolver("a.py", text, defaultLimit)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for line := 1; line <= 600; line += 3 {
				s, e, err := r.Resolve(line)
				if err == nil && (s != line || e != line+1) {
					t.Errorf("line %d: %d-%d", line, s, e)
				}
				if err != nil && !errors.Is(err, ErrClosed) {
					t.Errorf("line %d: %v", line, err)
				}
			}
		}()
	}
	wg.Add(1)
	go func() { defer wg.Done(); r.Close() }()
	wg.Wait()
}
