package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// A process killed inside WriteFile leaves its temporary file behind;
// RemoveTemps removes exactly those of one target and nothing else.
func TestRemoveTempsRemovesOnlyTheTargetsTempFiles(t *testing.T) {
	dir := tempDir(t)
	target := filepath.Join(dir, "a.txt")
	// The temporary file a WriteFile of target creates, made by the same
	// call WriteFile makes.
	tmp, err := os.CreateTemp(dir, tempPrefix(target)+"*")
	must(t, err)
	tmp.Close()
	leftover := filepath.Base(tmp.Name())

	files := []string{
		"a.txt",                   // the target itself
		".a.txt.hostd-",           // no digits: not a name CreateTemp makes
		".a.txt.hostd-12x",        // not only digits
		".b.txt.hostd-123",        // another target's temp file
		"a.txt.hostd-123",         // not hidden
		".a.txt.hostd-12.hostd-5", // a temp file of the target "a.txt.hostd-12"
	}
	for _, name := range files {
		must(t, os.WriteFile(filepath.Join(dir, name), []byte("keep"), 0o644))
	}
	must(t, os.Mkdir(filepath.Join(dir, ".a.txt.hostd-999"), 0o755)) // a directory
	files = append(files, ".a.txt.hostd-999")
	if linksWork(t) {
		must(t, os.Symlink(filepath.Join(dir, "a.txt"), filepath.Join(dir, ".a.txt.hostd-77"))) // a symlink
		files = append(files, ".a.txt.hostd-77")
	}

	removed, err := RemoveTemps(target)
	must(t, err)
	if !slices.Equal(removed, []string{leftover}) {
		t.Errorf("removed %v, want only %s", removed, leftover)
	}
	if _, err := os.Lstat(tmp.Name()); !os.IsNotExist(err) {
		t.Errorf("the leftover temp file is still there: %v", err)
	}
	for _, name := range files {
		if _, err := os.Lstat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s must be kept: %v", name, err)
		}
	}
}

func TestRemoveTempsOfAnAbsentDirectory(t *testing.T) {
	removed, err := RemoveTemps(filepath.Join(tempDir(t), "never", "made.txt"))
	if err != nil || removed != nil {
		t.Errorf("RemoveTemps in an absent directory = %v, %v; want nothing and no error", removed, err)
	}
}

// The directory is read in batches; every leftover is found however many
// entries come before it.
func TestRemoveTempsReadsLargeDirectories(t *testing.T) {
	dir := tempDir(t)
	target := filepath.Join(dir, "big.txt")
	var want []string
	for i := range 700 {
		must(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("other-%d.txt", i)), nil, 0o644))
		if i%7 == 0 {
			name := fmt.Sprintf("%s%d", tempPrefix(target), i)
			must(t, os.WriteFile(filepath.Join(dir, name), nil, 0o600))
			want = append(want, name)
		}
	}
	removed, err := RemoveTemps(target)
	must(t, err)
	slices.Sort(removed)
	slices.Sort(want)
	if !slices.Equal(removed, want) {
		t.Errorf("removed %d files, want %d", len(removed), len(want))
	}
	entries, err := os.ReadDir(dir)
	must(t, err)
	if len(entries) != 700 {
		t.Errorf("%d entries left, want the 700 others", len(entries))
	}
}

// isTemp against the obvious oracle: the whole name is the prefix and one
// or more ASCII digits.
func FuzzIsTemp(f *testing.F) {
	for _, seed := range [][2]string{
		{"a.txt", ".a.txt.hostd-123"}, {"a.txt", ".a.txt.hostd-"}, {"a.txt", ".a.txt.hostd-1x"},
		{"a.txt", ".a.txt.hostd-12.hostd-5"}, {"a.txt.hostd-12", ".a.txt.hostd-12.hostd-5"},
		{"x", ".x.hostd-٣"}, {"x", ".x.hostd-0"}, {"x", "x.hostd-0"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, base, name string) {
		// The oracle is a regexp, which needs valid UTF-8.
		if base == "" || base == "." || base == ".." || strings.ContainsRune(base, '/') || !utf8.ValidString(base) || !utf8.ValidString(name) {
			t.Skip()
		}
		prefix := tempPrefix(filepath.Join("/dir", base))
		want := regexp.MustCompile(`^` + regexp.QuoteMeta(prefix) + `[0-9]+$`).MatchString(name)
		if got := isTemp(name, prefix); got != want {
			t.Errorf("isTemp(%q, %q) = %v, want %v", name, prefix, got, want)
		}
	})
}
