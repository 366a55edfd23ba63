package benchkit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTypeScriptFile(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.ts")
	b := filepath.Join(dir, "b.ts")
	os.WriteFile(a, []byte("#!/usr/bin/env node\nconst a = 1;\n"), 0o644)
	os.WriteFile(b, []byte("\ufefffunction b() {\n  return 2;\n}\n"), 0o644)
	for _, tt := range []struct {
		name   string
		corpus []string
	}{{"generated", nil}, {"corpus", []string{a, b}}} {
		text, mid, err := TypeScriptFile(tt.corpus, 100)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		lines := strings.Split(text, "\n")
		if len(lines) < 100 || mid < len(lines)/2 || mid > len(lines) {
			t.Fatalf("%s: %d lines, function at %d; want at least 100, in the second half", tt.name, len(lines), mid)
		}
		if l := lines[mid-1]; !strings.HasPrefix(l, "function ") && !strings.HasPrefix(l, "export function ") {
			t.Errorf("%s: line %d is %q, not a top-level function", tt.name, mid, l)
		}
		if strings.Contains(text, "#!") || strings.Contains(text, "\ufeff") {
			t.Errorf("%s: a #! line or a byte-order mark was kept", tt.name)
		}
	}
	if _, _, err := TypeScriptFile([]string{filepath.Join(dir, "missing.ts")}, 10); err == nil {
		t.Error("a missing corpus file gave no error")
	}
}
