package blocks

import (
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/hostd-dev/hostd/workspace"
	"golang.org/x/tools/txtar"
)

var declineKinds = []error{ErrUnsupported, ErrTooLarge, ErrNotClean, ErrUnsafe, ErrParseTime, ErrLineRange, ErrNoBlock}

// checkLine checks what holds for any resolution of any line: a block
// opens at the anchor, spans several lines and ends on a line that is not
// blank (ASCII whitespace only, as the resolver counts it: a no-break
// space is HTML content); a decline names the line, has a known kind, and
// offers only a plain range that contains the anchor. Resolving again
// gives the same answer.
func checkLine(t testing.TB, r *Resolver, lines []string, line int) {
	t.Helper()
	s, e, err := r.Resolve(line)
	s2, e2, err2 := r.Resolve(line)
	if s != s2 || e != e2 || fmt.Sprint(err) != fmt.Sprint(err2) {
		t.Fatalf("%s line %d: resolved twice differently: %d-%d %v / %d-%d %v", r.path, line, s, e, err, s2, e2, err2)
	}
	if err == nil {
		if s != line || e <= line || e > len(lines) || firstNonBlank(lines[e-1]) < 0 {
			t.Fatalf("%s line %d: span %d-%d of a %d-line file", r.path, line, s, e, len(lines))
		}
		return
	}
	var ue *UnresolvedError
	if !errors.As(err, &ue) {
		t.Fatalf("%s line %d: %v is not an UnresolvedError", r.path, line, err)
	}
	known := false
	for _, k := range declineKinds {
		known = known || errors.Is(err, k)
	}
	if !known || ue.Line != line || ue.Reason == "" {
		t.Fatalf("%s line %d: malformed decline %#v", r.path, line, ue)
	}
	if ue.Alternative != "" {
		if ue.Start < 1 || ue.Start > line || ue.End < line || ue.End > len(lines) ||
			ue.Alternative != fmt.Sprintf("PUT %d.=%d:", ue.Start, ue.End) {
			t.Fatalf("%s line %d: alternative %q (%d-%d) does not contain the line", r.path, line, ue.Alternative, ue.Start, ue.End)
		}
	}
}

func checkAllLines(t testing.TB, path, text string) {
	t.Helper()
	r, err := NewResolver(path, text, defaultLimit)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	lines := workspace.Lines(text)
	for line := 0; line <= len(lines)+1; line++ {
		checkLine(t, r, lines, line)
	}
}

// TestInvariantsEveryLine runs every line of the test data and of the real
// TypeScript corpus through checkLine.
func TestInvariantsEveryLine(t *testing.T) {
	archives, _ := filepath.Glob("testdata/*.txtar")
	for _, path := range archives {
		ar, err := txtar.ParseFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range ar.Files {
			checkAllLines(t, f.Name, string(f.Data))
		}
	}
	for _, path := range corpusFiles(t, "ts-edit-fixtures/fixtures/*/input/*.ts") {
		checkAllLines(t, path, loadText(t, path))
	}
}
