package review

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/zap/zaptest"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/workspace"
)

// openTest opens a real, fsyncing store in a fresh directory.
func openTest(t testing.TB, lim config.Limits) (*Store, string) {
	t.Helper()
	dir := t.TempDir()
	s, err := Open(dir, lim, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, dir
}

func reopen(t testing.TB, s *Store, dir string, lim config.Limits) *Store {
	t.Helper()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(dir, lim, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s2.Close() })
	return s2
}

func writeFile(t testing.TB, path, content string, mode fs.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil { // umask-proof
		t.Fatal(err)
	}
}

// modify plans a change of an existing file to content, as the tool layer
// would: it reads the before side from disk.
func modify(t testing.TB, path, display, content string) plannedChange {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	info, _ := os.Stat(path)
	return plannedChange{Path: path, Display: display, Before: data, BeforeExists: true, BeforeMode: info.Mode().Perm(),
		After: []byte(content), AfterExists: true, AfterMode: info.Mode().Perm()}
}

func create(path, display, content string) plannedChange {
	return plannedChange{Path: path, Display: display, After: []byte(content), AfterExists: true, AfterMode: 0o644}
}

func remove(t testing.TB, path, display string) plannedChange {
	t.Helper()
	c := modify(t, path, display, "")
	c.After, c.AfterExists = nil, false
	return c
}

// apply performs one planned change on disk the way the tool layer does.
func apply(t testing.TB, c plannedChange) {
	t.Helper()
	var err error
	if c.AfterExists {
		err = workspace.WriteFile(c.Path, c.After, c.AfterMode)
	} else {
		err = workspace.RemoveFile(c.Path)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// mutate runs a whole mutation: Begin, the disk steps, Commit.
func mutate(t testing.TB, s *Store, session, callID, tool string, changes ...plannedChange) []Entry {
	t.Helper()
	txn, err := s.begin(session, callID, tool, changes)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range changes {
		apply(t, c)
	}
	entries, err := txn.commit(nil)
	if err != nil {
		t.Fatal(err)
	}
	return entries
}

// wantFile asserts a path's content and mode, or its absence when content
// is nil.
func wantFile(t testing.TB, path string, content []byte, mode fs.FileMode) {
	t.Helper()
	info, err := os.Lstat(path)
	if content == nil {
		if !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s exists (err %v), want absent", path, err)
		}
		return
	}
	if err != nil {
		t.Errorf("%s: %v, want it present", path, err)
		return
	}
	got, _ := os.ReadFile(path)
	if !bytes.Equal(got, content) {
		t.Errorf("%s holds %q, want %q", path, got, content)
	}
	if info.Mode().Perm() != mode {
		t.Errorf("%s mode %04o, want %04o", path, info.Mode().Perm(), mode)
	}
}

func sha(s string) string { return sha256Hex([]byte(s)) }

// rollbackAll rolls back a whole call the way the rollback package does:
// each target checked, then Restore.
func rollbackAll(t testing.TB, s *Store, session, id string) {
	t.Helper()
	rt, err := s.BeginRestore(session, id)
	if err != nil {
		t.Fatal(err)
	}
	if err := rt.Restore(liveStates(t, rt), nil); err != nil {
		t.Fatal(err)
	}
}

// liveStates is what each target holds now, as a conflict check sees it.
func liveStates(t testing.TB, rt *RestoreTxn) []State {
	t.Helper()
	var live []State
	for _, tg := range rt.Targets() {
		o, err := Observe(tg.Path, tg.After.Size)
		if err != nil {
			t.Fatal(err)
		}
		st, ok := o.State()
		if !ok {
			t.Fatalf("%s cannot be put back: %+v", tg.Path, o)
		}
		live = append(live, st)
	}
	return live
}
