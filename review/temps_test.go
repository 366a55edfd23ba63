package review

import (
	"path/filepath"
	"testing"

	"github.com/hostd-dev/hostd/config"
)

// leaveTemp plants what workspace.WriteFile leaves beside path when its
// process is killed between creating its temporary file and renaming it.
func leaveTemp(t *testing.T, path string) string {
	t.Helper()
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".hostd-2718281828")
	writeFile(t, tmp, "half a write", 0o600)
	return tmp
}

// A crash inside an atomic write leaves its temporary file, visible in
// the directory and to grep. Open removes those beside every path of an
// unfinished mutation, whichever way it is settled.
func TestOpenRemovesTempFilesOfAnInterruptedMutation(t *testing.T) {
	lim := config.DefaultLimits()
	s, dir := openTest(t, lim)
	ws := t.TempDir()
	a, b := filepath.Join(ws, "a.txt"), filepath.Join(ws, "sub", "b.txt")
	writeFile(t, a, "old\n", 0o644)
	changes := []plannedChange{modify(t, a, "a.txt", "new\n"), create(b, "sub/b.txt", "created\n")}
	if _, err := s.begin("s1", "call-1", "write", changes); err != nil {
		t.Fatal(err)
	}
	apply(t, changes[0])
	tmpA, tmpB := leaveTemp(t, a), leaveTemp(t, b)
	unrelated := leaveTemp(t, filepath.Join(ws, "other.txt"))

	s = reopen(t, s, dir, lim)
	wantFile(t, a, []byte("old\n"), 0o644)
	wantFile(t, b, nil, 0)
	wantFile(t, tmpA, nil, 0)
	wantFile(t, tmpB, nil, 0)
	// Only intents name directories a crashed write can have used; a file
	// of that shape elsewhere is none of the store's business.
	wantFile(t, unrelated, []byte("half a write"), 0o600)
	if st := s.Stats(); st.PendingIntents != 0 {
		t.Errorf("pending intents after Open: %d", st.PendingIntents)
	}
}

// The same for a rollback interrupted while it restored a file.
func TestOpenRemovesTempFilesOfAnInterruptedRollback(t *testing.T) {
	lim := config.DefaultLimits()
	s, dir := openTest(t, lim)
	ws := t.TempDir()
	a := filepath.Join(ws, "a.txt")
	writeFile(t, a, "old\n", 0o640)
	mutate(t, s, "s1", "call-1", "write", modify(t, a, "a.txt", "new\n"))
	rt, err := s.BeginRestore("s1", "call-1")
	if err != nil {
		t.Fatal(err)
	}
	if err := rt.start(); err != nil {
		t.Fatal(err)
	}
	tmp := leaveTemp(t, a)

	s = reopen(t, s, dir, lim)
	wantFile(t, a, []byte("old\n"), 0o640)
	wantFile(t, tmp, nil, 0)
	entries, _ := s.List("s1", "")
	if len(entries) != 1 || !entries[0].RolledBack {
		t.Errorf("entries after Open: %+v", entries)
	}
}
