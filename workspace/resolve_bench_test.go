package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/hostd-dev/hostd/internal/exfattest"
)

// BenchmarkResolve is the read path's cost of resolving an existing file
// four directories deep, spelled as stored: what every read, grep and
// edit pays before it opens the file. On a case-sensitive filesystem
// (the temp dir) it must cost what it cost before names were looked up;
// on exFAT, which folds case, each directory of the path is listed.
func BenchmarkResolve(b *testing.B) {
	b.Run("case-sensitive", func(b *testing.B) { benchResolve(b, b.TempDir(), 0) })
	b.Run("exFAT", func(b *testing.B) { benchResolve(b, exfattest.Mount(b), 0) })
	b.Run("exFAT-200-siblings", func(b *testing.B) { benchResolve(b, exfattest.Mount(b), 200) })
}

func benchResolve(b *testing.B, root string, siblings int) {
	rel := filepath.Join("src", "internal", "pkg", "file_name.go")
	if err := os.MkdirAll(filepath.Join(root, filepath.Dir(rel)), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, rel), []byte("x\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	for i := range siblings {
		if err := os.WriteFile(filepath.Join(root, filepath.Dir(rel), fmt.Sprintf("sibling_%d.go", i)), nil, 0o644); err != nil {
			b.Fatal(err)
		}
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
