package review

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/hostd-dev/hostd/workspace"
)

// A step moves one path from one state to another. Every file change the
// store stands behind is made of steps, run by one loop (run): a tool's
// change (Apply), its undo, a rollback's restores (RestoreTxn.Restore)
// and their undo; recovery at Open puts single steps.
type step struct {
	// dir is the open root the path is confined to. nil only for a
	// restore of a record without a usable root, which goes through the
	// path's parent directory (restorePath).
	dir     *workspace.Dir
	path    string // canonical
	display string // as the user sees it, for errors
	// from is what the path must hold right before it is replaced or
	// removed, when check is set (workspace.Expect): another program's
	// bytes are never overwritten. Recovery, which finds each path as it
	// is, checks nothing.
	from  State
	check bool
	to    State
	// setMode: a restore gives an existing file to's mode first; a tool's
	// write keeps the mode the file has.
	setMode bool
	// prepared holds to's content already written under no name (Apply
	// with lazy commits); put places it.
	prepared *workspace.Prepared
	// made, when set, runs once the step is made (a rewind's test hook).
	made func()
}

// Test hooks; nil in production.
var (
	// testHookPut runs before each put; an error fails that put as a
	// failed write would, before anything is written.
	testHookPut func(path string) error
	// testHookBeforeWrite runs in Apply between the durable intent and the
	// first write, as another program might act there.
	testHookBeforeWrite func()
)

// put makes the path hold s.to. With later, a file write leaves its
// directory's fsync to the returned DirSync (workspace.WriteFileSyncLater);
// otherwise every change is durable when put returns. Removing a path
// that is already absent succeeds when nothing is checked: restores must
// be repeatable.
func (s *step) put(later bool) (*workspace.DirSync, error) {
	if testHookPut != nil {
		if err := testHookPut(s.path); err != nil {
			return nil, err
		}
	}
	if s.dir == nil {
		return nil, restorePath(s.path, s.to)
	}
	return s.place(later)
}

// place is put through s.dir.
func (s *step) place(later bool) (*workspace.DirSync, error) {
	want := workspace.Expect{Check: s.check, Exists: s.from.Exists, Data: s.from.Data, Link: s.from.Link}
	switch {
	case s.prepared != nil:
		p := s.prepared
		s.prepared = nil
		return p.Place(want)
	case !s.to.Exists:
		err := s.dir.RemoveFile(s.path, want)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	case s.to.Link:
		return nil, s.dir.Symlink(string(s.to.Data), s.path, want)
	}
	mode := s.to.Mode.Perm()
	if s.setMode {
		if info, err := s.dir.Lstat(s.path); err == nil && info.Mode().IsRegular() && info.Mode().Perm() != mode {
			if err := s.dir.Chmod(s.path, mode); err != nil {
				return nil, err
			}
		}
	}
	if later {
		return s.dir.WriteFileSyncLater(s.path, s.to.Data, mode, want)
	}
	return nil, s.dir.WriteFile(s.path, s.to.Data, mode, want)
}

// back is the step that undoes s once it is made: from what s wrote to
// what s found, checked, so that bytes another program wrote since are
// left alone.
func (s *step) back() step {
	return step{dir: s.dir, path: s.path, display: s.display, from: s.to, check: true, to: s.from, setMode: s.setMode}
}

// stepError is a step that failed, after the steps before it were
// undone (undo: how that went).
type stepError struct {
	index   int // of the step in run's steps
	display string
	err     error
	undo    error
}

func (e *stepError) Error() string { return e.display + ": " + e.err.Error() }
func (e *stepError) Unwrap() error { return e.err }

// run makes the steps in order: the one apply-and-undo loop. When one
// fails, the steps already made are undone, newest first, and the error
// is a *stepError. With later, the directory fsyncs of the writes are
// handed back for the caller to run (a record waits for them); after a
// failure they have been run.
func run(steps []step, later bool) ([]*workspace.DirSync, error) {
	var syncs []*workspace.DirSync
	for i := range steps {
		ds, err := steps[i].put(later)
		if ds != nil {
			syncs = append(syncs, ds)
		}
		if err != nil {
			for _, ds := range syncs {
				ds.Sync() // the undo syncs what it writes; this closes them
			}
			discardPrepared(steps[i+1:])
			return nil, &stepError{index: i, display: steps[i].display, err: err, undo: undo(steps[:i])}
		}
		if steps[i].made != nil {
			steps[i].made()
		}
	}
	return syncs, nil
}

// undo puts the steps made back, newest first.
func undo(made []step) error {
	var errs []error
	for i := len(made) - 1; i >= 0; i-- {
		b := made[i].back()
		if _, err := b.put(false); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", b.display, err))
		}
	}
	return errors.Join(errs...)
}

func discardPrepared(steps []step) {
	for i := range steps {
		if p := steps[i].prepared; p != nil {
			p.Discard()
			steps[i].prepared = nil
		}
	}
}

// restorePath makes path hold st through its parent directory, for a
// record without a usable root (written before roots were recorded, or
// whose root is gone). The parent is created for a file, as
// workspace.WriteFile does; a removal under a parent that is gone is
// already done.
func restorePath(path string, st State) error {
	parent := filepath.Dir(path)
	if st.Exists && !st.Link {
		if err := os.MkdirAll(parent, 0o755); err != nil {
			return fmt.Errorf("create parent directory: %w", err)
		}
	}
	d, err := workspace.OpenDir(parent)
	if errors.Is(err, fs.ErrNotExist) && !st.Exists {
		return nil
	}
	if err != nil {
		return err
	}
	defer d.Close()
	s := step{dir: d, path: path, display: path, to: st, setMode: true}
	_, err = s.place(false)
	return err
}

// restoreUnder puts st at path for recovery, confined to root, the root
// directory recorded with the change, so a directory swapped for a link
// while the daemon was down cannot lead it outside; without a root, or
// when the root is gone, through the path's parent directory. Nothing is
// checked: recovery has just looked at the path.
func restoreUnder(root, path string, st State) error {
	s := step{path: path, display: path, to: st, setMode: true}
	if root != "" {
		if d, err := workspace.OpenDir(root); err == nil {
			defer d.Close()
			s.dir = d
		}
	}
	_, err := s.put(false)
	return err
}
