package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// Prepared is a file write whose content is already on disk, fsynced,
// under no name: it cannot be seen, and if the process dies it is gone
// with no trace, so it may be made before the review intent that must
// precede every visible change. Place then links it under a temporary
// name and moves it over the path, exactly as WriteFile's last steps.
//
// An unnamed file needs Linux's O_TMPFILE and a filesystem that has it;
// elsewhere Prepare keeps the data and Place does the whole write.
type Prepared struct {
	d         *Dir
	abs       string
	rel, name string
	data      []byte
	perm      fs.FileMode
	pd        *os.Root // the file's directory, opened once
	anon      *os.File // the unnamed file, written and fsynced; nil: write at Place
}

// Prepare starts writing data to the path: where it can, it writes and
// fsyncs the content to an unnamed file in the path's directory. It never
// changes what a name refers to.
// The caller must call Place or Discard exactly once.
func (p Path) Prepare(data []byte, perm fs.FileMode) *Prepared {
	w := &Prepared{d: p.dir, abs: p.Abs, data: data, perm: perm}
	if p.dir == nil {
		return w
	}
	rel, err := p.dir.Rel(p.Abs)
	if err != nil {
		return w
	}
	w.rel, w.name = rel, filepath.Base(rel)
	// A missing parent is left to Place: nothing visible, not even a
	// directory, may appear before the caller's intent is durable.
	pd, err := p.dir.root.OpenRoot(filepath.Dir(rel))
	if err != nil {
		return w
	}
	if info, err := pd.Lstat(w.name); err == nil && info.Mode().IsRegular() {
		w.perm = info.Mode().Perm()
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		pd.Close()
		return w
	}
	f, err := openAnon(pd)
	if err != nil {
		pd.Close()
		return w
	}
	if err := fill(f, data, w.perm); err != nil {
		f.Close()
		pd.Close()
		return w
	}
	w.pd, w.anon = pd, f
	return w
}

// Place makes the prepared content the path's, once the path still holds
// want (WriteFileSyncLater: ErrChanged otherwise, and nothing is
// replaced), and hands back the directory's fsync. Any failure to use the
// unnamed file falls back to the whole ordinary write.
func (w *Prepared) Place(want Expect) (*DirSync, error) {
	if w.d == nil {
		return nil, errUnresolved
	}
	if w.anon != nil {
		defer w.Discard()
		if tmpName, err := linkAnon(w.pd, w.anon, w.name); err == nil {
			ds, err := placeTemp(w.pd, tmpName, w.name, want, true)
			return ds, confine(err, w.abs)
		}
	}
	return w.d.WriteFileSyncLater(w.abs, w.data, w.perm, want)
}

// Discard releases what Prepare holds; the unnamed file vanishes.
func (w *Prepared) Discard() {
	if w.anon != nil {
		w.anon.Close()
		w.pd.Close()
		w.anon, w.pd = nil, nil
	}
}
