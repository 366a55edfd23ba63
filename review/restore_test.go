package review

import (
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/workspace"
)

// A recorded MV of a.txt to b/a.txt, to roll back.
func recordedMove(t *testing.T) (s *Store, dir, src, dst string) {
	t.Helper()
	s, dir = openTest(t, config.DefaultLimits())
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "a.txt"), "moved\n", 0o755)
	src, dst, changes := mvChanges(ws)
	mutate(t, s, "s1", "mv", "edit", changes...)
	return s, dir, src, dst
}

func rolledBack(t *testing.T, s *Store, id string) []bool {
	t.Helper()
	entries, err := s.List("s1", "")
	if err != nil {
		t.Fatal(err)
	}
	var out []bool
	for _, e := range entries {
		if e.ToolCallID == id {
			out = append(out, e.RolledBack)
		}
	}
	return out
}

// restoreCall is the rollback of a whole call, its targets checked first.
func restoreCall(t *testing.T, s *Store, id string) error {
	t.Helper()
	rt, err := s.BeginRestore("s1", id)
	if err != nil {
		t.Fatal(err)
	}
	return rt.Restore(liveStates(t, rt), nil)
}

// When a restore fails midway, the paths already restored are put back,
// nothing is marked, the intent is gone, and the call can be rolled back
// again (a partial apply must never leave half an undo on disk).
func TestRestoreThatFailsMidwayIsUndone(t *testing.T) {
	s, _, src, dst := recordedMove(t)
	puts := 0
	testHookPut = func(string) error {
		if puts++; puts == 2 {
			return errors.New("disk full")
		}
		return nil
	}
	err := restoreCall(t, s, "mv")
	testHookPut = nil
	if !errors.Is(err, ErrRollbackFailed) || !strings.Contains(err.Error(), "disk full") || !strings.Contains(err.Error(), "nothing was restored") {
		t.Fatalf("Restore = %v", err)
	}
	wantFile(t, src, nil, 0)
	wantFile(t, dst, []byte("moved\n"), 0o755)
	if rb := rolledBack(t, s, "mv"); slices.Contains(rb, true) {
		t.Errorf("marked rolled back: %v", rb)
	}
	if st := s.Stats(); st.PendingIntents != 0 {
		t.Errorf("%d intents left after a clean undo", st.PendingIntents)
	}
	if err := restoreCall(t, s, "mv"); err != nil {
		t.Fatalf("retry: %v", err)
	}
	wantFile(t, src, []byte("moved\n"), 0o755)
	wantFile(t, dst, nil, 0)
}

// A restore that fails on I/O is ErrRollbackFailed carrying the cause;
// when putting back what was already restored fails too, it is
// ErrRollbackIncomplete, the call stays busy, and the next Open finishes
// the rollback.
func TestRestoreIOFailureNamesTheCauseAndOpenFinishesIt(t *testing.T) {
	s, dir, src, dst := recordedMove(t)
	eio := func(path string) error { return &fs.PathError{Op: "write", Path: path, Err: syscall.EIO} }

	testHookPut = eio
	err := restoreCall(t, s, "mv")
	if !errors.Is(err, ErrRollbackFailed) || !errors.Is(err, syscall.EIO) || !strings.Contains(err.Error(), "nothing was restored") {
		t.Fatalf("Restore = %v, want ErrRollbackFailed wrapping EIO", err)
	}

	puts := 0
	testHookPut = func(path string) error {
		if puts++; puts == 1 {
			return nil
		}
		return eio(path)
	}
	err = restoreCall(t, s, "mv")
	testHookPut = nil
	if !errors.Is(err, ErrRollbackIncomplete) || !strings.Contains(err.Error(), "input/output error") {
		t.Fatalf("Restore = %v, want ErrRollbackIncomplete naming the cause", err)
	}
	// Step one happened (the source is back), step two did not.
	wantFile(t, src, []byte("moved\n"), 0o755)
	wantFile(t, dst, []byte("moved\n"), 0o755)
	if _, err := s.BeginRestore("s1", "mv"); !errors.Is(err, ErrBusy) {
		t.Errorf("a second rollback while the first is unfinished = %v, want ErrBusy", err)
	}

	s = reopen(t, s, dir, config.DefaultLimits())
	wantFile(t, src, []byte("moved\n"), 0o755)
	wantFile(t, dst, nil, 0)
	if rb := rolledBack(t, s, "mv"); !slices.Equal(rb, []bool{true, true}) {
		t.Errorf("rolled back marks %v", rb)
	}
}

// Through a root, each restore is checked against what the conflict check
// saw: a path another program changed since is left alone, and the paths
// already restored are put back.
func TestRestoreLeavesAPathChangedSinceTheCheck(t *testing.T) {
	s, _, src, dst := recordedMove(t)
	root, err := workspace.OpenDir(filepath.Dir(src))
	if err != nil {
		t.Fatal(err)
	}
	rt, err := s.BeginRestore("s1", "mv")
	if err != nil {
		t.Fatal(err)
	}
	live := liveStates(t, rt)
	writeFile(t, dst, "someone else's\n", 0o644) // after the check
	err = rt.Restore(live, func(Target) *workspace.Dir { return root })
	if !errors.Is(err, ErrRollbackFailed) || !errors.Is(err, workspace.ErrChanged) {
		t.Fatalf("Restore = %v, want ErrRollbackFailed wrapping ErrChanged", err)
	}
	wantFile(t, dst, []byte("someone else's\n"), 0o644)
	wantFile(t, src, nil, 0)
	if rb := rolledBack(t, s, "mv"); slices.Contains(rb, true) {
		t.Errorf("marked rolled back: %v", rb)
	}
}
