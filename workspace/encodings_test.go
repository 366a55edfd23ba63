package workspace

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/internal/testenv"
)

// Which rule gives a file its charset (config.md, Encodings): the last
// that matches; a one-segment glob matches the name at any depth; a rule
// with a root covers only files below it, its glob matched from there.
func TestCharsetOfFollowsTheLastMatchingRule(t *testing.T) {
	// testenv.TempDir: the workspace's open root is closed when it is
	// collected, and Windows removes no directory held open.
	dir := testenv.TempDir(t)
	legacy := filepath.Join(dir, "legacy")
	if err := os.MkdirAll(filepath.Join(legacy, "jp"), 0o755); err != nil {
		t.Fatal(err)
	}
	enc, err := CompileEncodings([]config.EncodingRule{
		{Glob: "*.txt", Encoding: "windows-1252"},
		{Glob: "vendor/**", Encoding: "utf-8"},
		{Root: legacy, Glob: "jp/*.txt", Encoding: "shift_jis"},
	})
	if err != nil {
		t.Fatal(err)
	}
	ws, err := New(dir, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	ws = ws.WithEncodings(enc)
	for rel, want := range map[string]string{
		"a.txt":              "windows-1252",
		"deep/down/b.txt":    "windows-1252",
		"c.go":               "UTF-8",
		"vendor/x/d.txt":     "UTF-8",
		"legacy/jp/e.txt":    "Shift_JIS",
		"legacy/f.txt":       "windows-1252",
		"legacy/jp/more/g.c": "UTF-8",
	} {
		cs := ws.CharsetOf(filepath.Join(dir, filepath.FromSlash(rel)))
		if got := cs.Enc.Name(); got != want {
			t.Errorf("%s: %s, want %s", rel, got, want)
		}
	}
	if cs := ws.CharsetOf(filepath.Join(dir, "c.go")); cs.Rule != nil {
		t.Errorf("a file no rule matches names rule %+v", cs.Rule)
	}
}
