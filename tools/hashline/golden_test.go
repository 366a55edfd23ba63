package hashline

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/hostd-dev/hostd/internal/testenv"
)

// TestGolden runs every testdata/*.txtar: a whole edit exchange, with
// sections
//
//	input   the file (its final newline is part of it)
//	ops     the ops text
//	blocks  optional "LINE START END" rows for a block resolver
//	output  the new file, or
//	error   the code on the first line and a fragment of the message on
//	        the second
//
// With -update the output or error section is rewritten from what the
// code does now; review the diff before committing it.
func TestGolden(t *testing.T) {
	eachGolden(t, "testdata/*.txtar", func(t *testing.T, file string, ar *txtar.Archive, sec map[string]string) {
		input, okIn := sec["input"]
		ops, okOps := sec["ops"]
		if !okIn || !okOps {
			t.Fatalf("%s needs input and ops sections", file)
		}
		env := Env{Registers: newMemRegisters()}
		if b, ok := sec["blocks"]; ok {
			r, err := parseBlocks(b)
			if err != nil {
				t.Fatal(err)
			}
			env.Resolver = r
		}
		got, _, runErr := runText(input, ops, env)
		if testenv.Update() {
			rewriteGolden(t, file, ar, got, runErr)
			return
		}
		if want, ok := sec["output"]; ok {
			if runErr != nil {
				t.Fatalf("want output, got error %v", runErr)
			}
			if got != want {
				t.Errorf("output:\n%s\nwant:\n%s", got, want)
			}
			return
		}
		want, ok := sec["error"]
		if !ok {
			t.Fatalf("%s has neither an output nor an error section", file)
		}
		code, frag, _ := strings.Cut(strings.TrimSuffix(want, "\n"), "\n")
		var e *Error
		if !errors.As(runErr, &e) {
			t.Fatalf("want %s, got output %q (err %v)", code, got, runErr)
		}
		if wireCode[e.Code] != code || !strings.Contains(e.Message, frag) {
			t.Errorf("error %s: %s\nwant %s containing %q", wireCode[e.Code], e.Message, code, frag)
		}
	})
}

func parseBlocks(s string) (mapResolver, error) {
	m := mapResolver{}
	for _, row := range strings.Split(strings.TrimSpace(s), "\n") {
		var line, start, end int
		if _, err := fmt.Sscan(row, &line, &start, &end); err != nil {
			return nil, fmt.Errorf("blocks row %q: %w", row, err)
		}
		m[line] = [2]int{start, end}
	}
	return m, nil
}

func rewriteGolden(t *testing.T, file string, ar *txtar.Archive, got string, runErr error) {
	t.Helper()
	var kept []txtar.File
	for _, f := range ar.Files {
		if f.Name != "output" && f.Name != "error" {
			kept = append(kept, f)
		}
	}
	var e *Error
	switch {
	case runErr == nil:
		kept = append(kept, txtar.File{Name: "output", Data: []byte(got)})
	case errors.As(runErr, &e):
		kept = append(kept, txtar.File{Name: "error", Data: []byte(wireCode[e.Code] + "\n" + e.Message + "\n")})
	default:
		t.Fatalf("unexpected error type: %v", runErr)
	}
	ar.Files = kept
	if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
		t.Fatal(err)
	}
}

// eachGolden runs fn as a subtest for every txtar archive matching
// pattern, with the archive's sections by name.
func eachGolden(t *testing.T, pattern string, fn func(t *testing.T, file string, ar *txtar.Archive, sec map[string]string)) {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files match %s: %v", pattern, err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			sec := map[string]string{}
			for _, f := range ar.Files {
				sec[f.Name] = string(f.Data)
			}
			fn(t, file, ar, sec)
		})
	}
}
