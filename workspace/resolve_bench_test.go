package workspace

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkResolve is the read path's cost of resolving an existing file
// four directories deep, the spelling as stored: what every read, grep
// and edit pays before it opens the file.
func BenchmarkResolve(b *testing.B) {
	root := b.TempDir()
	rel := filepath.Join("src", "internal", "pkg", "file_name.go")
	if err := os.MkdirAll(filepath.Join(root, filepath.Dir(rel)), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, rel), []byte("x\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	w, err := New(root, "", nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := w.Resolve(rel, Read); err != nil {
			b.Fatal(err)
		}
	}
}
