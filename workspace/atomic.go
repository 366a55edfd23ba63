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

// WriteFile replaces the file at path with data so that a crash at any
// moment leaves either the old bytes or the new ones, never a mix
// (rpc.md §5.6): it writes a temporary file in the same directory, fsyncs
// it, renames it over path and fsyncs the directory. An existing file keeps
// its mode; a new one gets perm. Parent directories are created as needed.
//
// path must already be resolved (Workspace.Resolve): WriteFile replaces
// what is at path, so a symlink there would be replaced, not followed.
// Every mutation in hostd goes through this function.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create parent directory: %w", err)
	}
	if info, err := os.Stat(path); err == nil {
		perm = info.Mode().Perm()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	tmp, err := os.CreateTemp(dir, tempPrefix(path)+"*")
	if err != nil {
		return err
	}
	committed := false
	defer func() {
		if !committed {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	committed = true
	return syncDir(dir)
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

// RemoveFile deletes path and fsyncs its directory, so the removal is
// durable before the caller reports it.
func RemoveFile(path string) error {
	if err := os.Remove(path); err != nil {
		return err
	}
	return syncDir(filepath.Dir(path))
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
