package docs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// contracts are the documents citations may name, by the name they are
// cited as.
var contracts = map[string]string{
	"edit-contract": "docs/edit-contract.md",
	"wire-contract": "docs/wire-contract.md",
}

// TestCitationsNameExistingSections checks every "edit-contract §N" and
// "wire-contract §N" in the repository's .go and .md files against the
// section headings of that document, and that nothing cites the seed's
// rpc.md any more: a citation must lead a reader to the rule it names.
func TestCitationsNameExistingSections(t *testing.T) {
	root := mustRoot(t)
	sections := map[string]map[string]bool{}
	for name, path := range contracts {
		sections[name] = headings(mustRead(t, root, path))
		if len(sections[name]) == 0 {
			t.Fatalf("%s has no numbered section headings", path)
		}
	}
	files, err := sourceFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		text := mustRead(t, root, f)
		for _, line := range seedCitations(text) {
			t.Errorf("%s:%d: cites rpc.md, which this repository does not carry; cite wire-contract §N (docs/wire-contract.md) or edit-contract §N.N (docs/edit-contract.md)", f, line)
		}
		for _, c := range citations(text) {
			n++
			if !sections[c.doc][c.section] {
				t.Errorf("%s:%d: cites %s §%s, but %s has no heading numbered %s", f, c.line, c.doc, c.section, contracts[c.doc], c.section)
			}
		}
	}
	if n < 100 {
		t.Errorf("found only %d citations in %d files; the scan is not seeing the code", n, len(files))
	}
	t.Logf("%d citations in %d files", n, len(files))
	// Inside each contract, a § without a document's name is the
	// document's own section.
	for name, path := range contracts {
		for _, c := range bareSections(mustRead(t, root, path)) {
			if !sections[name][c.section] {
				t.Errorf("%s:%d: cites §%s, but it has no heading numbered %s", path, c.line, c.section, c.section)
			}
		}
	}
}

// TestRelativeLinksExist checks that every relative link of the top-level
// documents (README.md, CHANGELOG.md) and of docs/*.md leads to a file or
// directory of the repository.
func TestRelativeLinksExist(t *testing.T) {
	root := mustRoot(t)
	top, err := filepath.Glob(filepath.Join(root, "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, d := range append(top, docs...) {
		rel, _ := filepath.Rel(root, d)
		files = append(files, rel)
	}
	n := 0
	for _, f := range files {
		for _, l := range relativeLinks(mustRead(t, root, f)) {
			n++
			target := filepath.Join(root, filepath.Dir(f), filepath.FromSlash(l.target))
			if strings.HasPrefix(l.target, "/") {
				target = filepath.Join(root, filepath.FromSlash(l.target))
			}
			if _, err := os.Stat(target); err != nil {
				t.Errorf("%s:%d: links to %s, which does not exist", f, l.line, l.target)
			}
		}
	}
	t.Logf("%d relative links in %d files", n, len(files))
	if n == 0 {
		t.Error("found no relative links at all; the scan is not seeing the documents")
	}
}

func mustRoot(t *testing.T) string {
	t.Helper()
	root, err := repoRoot()
	if err != nil {
		t.Fatalf("cannot find the repository root (go.mod above %s): %v", ".", err)
	}
	return root
}

func mustRead(t *testing.T, root, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
