package workspace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// WriteFile replaces the file at path with data atomically (Dir.WriteFile),
// confined to path's parent directory: it creates that directory as
// needed, opens it once, and does the rest through it. Tools write
// through a resolved Path instead, confined to its root; this form is for
// callers that hold only a canonical path, such as crash recovery.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create parent directory: %w", err)
	}
	d, err := OpenDir(dir)
	if err != nil {
		return err
	}
	defer d.root.Close()
	return d.WriteFile(path, data, perm, Expect{})
}

// tempPrefix is how the name of every temporary file WriteFile creates
// for path begins; os.CreateTemp appends decimal digits. Hidden, and named
// after its target, so a person who finds one knows what it was.
func tempPrefix(path string) string {
	return "." + filepath.Base(path) + ".hostd-"
}

// RemoveTemps deletes the temporary files WriteFile may have left beside
// path when its process was killed between creating one and renaming it
// (nothing else ever removes them), and returns their names. A file is
// removed only when its whole name is the prefix and digits and it is a
// regular file. An absent directory has nothing to remove.
//
// Call it only when no WriteFile of path can be running, as at start-up
// before serving: a running write's temporary file would be removed under
// it (its rename then fails and the write reports the error).
// The directory is read in batches, so memory stays bounded however many
// entries it holds.
func RemoveTemps(path string) ([]string, error) {
	dir, prefix := filepath.Dir(path), tempPrefix(path)
	d, err := os.Open(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer d.Close()
	var removed []string
	for {
		batch, err := d.ReadDir(256)
		for _, e := range batch {
			if !isTemp(e.Name(), prefix) || !e.Type().IsRegular() {
				continue
			}
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return removed, err
			}
			removed = append(removed, e.Name())
		}
		if errors.Is(err, io.EOF) {
			return removed, nil
		}
		if err != nil {
			return removed, err
		}
	}
}

// isTemp reports whether name is prefix followed by the decimal digits
// os.CreateTemp puts in place of its "*", and nothing else.
func isTemp(name, prefix string) bool {
	digits, ok := strings.CutPrefix(name, prefix)
	if !ok || digits == "" {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// SymlinkAt makes path a symbolic link to target atomically, replacing
// what is there, through path's parent directory (Dir.Symlink).
func SymlinkAt(path, target string) error {
	d, err := OpenDir(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer d.root.Close()
	return d.Symlink(target, path, Expect{})
}

// RemoveFile deletes path (a symlink itself, not its target) through its
// parent directory and fsyncs that directory, so the removal is durable
// before the caller reports it.
func RemoveFile(path string) error {
	d, err := OpenDir(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer d.root.Close()
	return d.RemoveFile(path, Expect{})
}
