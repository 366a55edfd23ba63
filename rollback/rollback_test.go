package rollback

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/review"
)

// Rollback of each change kind restores the bytes and the mode, and
// returns the canonical paths for snapshot invalidation.
func TestRollbackRestoresEachKind(t *testing.T) {
	tests := []struct {
		name   string
		setup  func(f *fixture)
		change func(f *fixture) []review.Edit
		// after rollback: rel → content (nil = absent) and mode
		want map[string]*string
		mode fs.FileMode
	}{
		{"modify",
			func(f *fixture) { f.write("m.txt", "old\r\nline  \n", 0o750) },
			func(f *fixture) []review.Edit { return []review.Edit{f.change("m.txt", str("new\n"))} },
			map[string]*string{"m.txt": str("old\r\nline  \n")}, 0o750},
		{"create",
			func(f *fixture) {},
			func(f *fixture) []review.Edit { return []review.Edit{f.change("dir/c.txt", str("made\n"))} },
			map[string]*string{"dir/c.txt": nil}, 0},
		{"delete",
			func(f *fixture) { f.write("d.sh", "#!/bin/sh\necho hi\n", 0o755) },
			func(f *fixture) []review.Edit { return []review.Edit{f.change("d.sh", nil)} },
			map[string]*string{"d.sh": str("#!/bin/sh\necho hi\n")}, 0o755},
		{"move",
			func(f *fixture) { f.write("a.txt", "moved\n", 0o640) },
			func(f *fixture) []review.Edit {
				dst := f.change("b/a.txt", str("moved\n"))
				dst.Mode = 0o640
				return []review.Edit{dst, f.change("a.txt", nil)}
			},
			map[string]*string{"a.txt": str("moved\n"), "b/a.txt": nil}, 0o640},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			tc.setup(f)
			changes := tc.change(f)
			f.mutate("s1", "call", changes...)
			restored, err := Rollback(context.Background(), f.store, "s1", "call")
			if err != nil {
				t.Fatal(err)
			}
			for rel, content := range tc.want {
				f.want(rel, content, tc.mode)
			}
			var want []string
			for _, c := range changes {
				want = append(want, c.Path.Abs)
			}
			if !sameSet(restored, want) {
				t.Errorf("restored %v, want %v", restored, want)
			}
			for i, rb := range f.rolledBack("s1", "call") {
				if !rb {
					t.Errorf("entry %d not marked rolled back", i)
				}
			}
		})
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// peer lesson 11 (an undo that overwrote a file changed since): every
// kind of change since the call is a conflict, named in the error, and
// nothing is restored, not even the paths that did not change.
func TestConflictRestoresNothing(t *testing.T) {
	tests := []struct {
		name   string
		change func(f *fixture) // what someone did after the MV
		reason string
	}{
		{"destination edited", func(f *fixture) { f.write("b/a.txt", "moved and edited\n", 0o640) }, "content changed since the call (17 bytes now, 6 after the call)"},
		{"same size, other bytes", func(f *fixture) { f.write("b/a.txt", "MOVED\n", 0o640) }, "content changed since the call (sha256 "},
		{"only trailing blanks differ, which the tag ignores", func(f *fixture) { f.write("b/a.txt", "moved \n", 0o640) }, "content changed"},
		{"destination deleted", func(f *fixture) { os.Remove(f.path("b/a.txt")) }, "deleted since the call"},
		{"source re-created", func(f *fixture) { f.write("a.txt", "new file\n", 0o644) }, "the call deleted it, and it exists again"},
		{"destination chmod", func(f *fixture) { os.Chmod(f.path("b/a.txt"), 0o600) }, "mode changed since the call (0600 now, 0640 after the call)"},
		{"destination replaced by a directory", func(f *fixture) {
			os.Remove(f.path("b/a.txt"))
			os.Mkdir(f.path("b/a.txt"), 0o755)
		}, "no longer a regular file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.write("a.txt", "moved\n", 0o640)
			dst := f.change("b/a.txt", str("moved\n"))
			dst.Mode = 0o640
			f.mutate("s1", "mv", dst, f.change("a.txt", nil))
			tc.change(f)
			beforeA, existsA, _ := f.state("a.txt")

			restored, err := Rollback(context.Background(), f.store, "s1", "mv")
			var ce *ConflictError
			if !errors.Is(err, ErrConflict) || !errors.As(err, &ce) || restored != nil {
				t.Fatalf("Rollback = %v, %v; want a ConflictError", restored, err)
			}
			if len(ce.Conflicts) != 1 || !strings.Contains(ce.Conflicts[0].Reason, tc.reason) {
				t.Errorf("conflicts %+v, want one saying %q", ce.Conflicts, tc.reason)
			}
			if msg := err.Error(); !strings.Contains(msg, ce.Conflicts[0].Display) || !strings.Contains(msg, "nothing was restored") {
				t.Errorf("message %q names neither the path nor the outcome", msg)
			}
			// The unchanged side was not restored either.
			if afterA, exists, _ := f.state("a.txt"); exists != existsA || string(afterA) != string(beforeA) {
				t.Errorf("a.txt changed during a refused rollback")
			}
			if rb := f.rolledBack("s1", "mv"); slices.Contains(rb, true) {
				t.Errorf("entries marked rolled back: %v", rb)
			}
		})
	}
}

// Every conflicting path is named at once, not one per attempt; once the
// user puts the files back, the rollback goes through.
func TestConflictNamesEveryPathAndClears(t *testing.T) {
	f := newFixture(t)
	f.write("x", "1\n", 0o644)
	f.write("y", "1\n", 0o644)
	f.mutate("s1", "c", f.change("x", str("2\n")), f.change("y", str("2\n")))
	f.write("x", "3\n", 0o644)
	f.write("y", "3\n", 0o644)
	_, err := Rollback(context.Background(), f.store, "s1", "c")
	var ce *ConflictError
	if !errors.As(err, &ce) || len(ce.Conflicts) != 2 {
		t.Fatalf("Rollback = %v, want two conflicts", err)
	}
	f.write("x", "2\n", 0o644)
	f.write("y", "2\n", 0o644)
	if _, err := Rollback(context.Background(), f.store, "s1", "c"); err != nil {
		t.Fatalf("Rollback after the conflict cleared = %v", err)
	}
	f.want("x", str("1\n"), 0o644)
	f.want("y", str("1\n"), 0o644)
}

func TestRollbackErrors(t *testing.T) {
	f := newFixture(t)
	f.mutate("s1", "c", f.change("n", str("x\n")))
	if _, err := Rollback(context.Background(), f.store, "s1", "nope"); !errors.Is(err, review.ErrNotFound) {
		t.Errorf("unknown call: %v, want review.ErrNotFound", err)
	}
	if _, err := Rollback(context.Background(), f.store, "s2", "c"); !errors.Is(err, review.ErrNotFound) {
		t.Errorf("another session's call: %v, want review.ErrNotFound", err)
	}
	if _, err := Rollback(context.Background(), f.store, "s1", "c"); err != nil {
		t.Fatal(err)
	}
	// A second rollback is reported, not silently accepted.
	restored, err := Rollback(context.Background(), f.store, "s1", "c")
	if !errors.Is(err, review.ErrRolledBack) || restored != nil {
		t.Errorf("second rollback = %v, %v; want review.ErrRolledBack", restored, err)
	}
}

// A cancelled request restores nothing.
func TestCancelledContextRestoresNothing(t *testing.T) {
	f := newFixture(t)
	f.write("m", "old\n", 0o644)
	f.mutate("s1", "c", f.change("m", str("new\n")))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Rollback(ctx, f.store, "s1", "c"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Rollback = %v, want context.Canceled", err)
	}
	f.want("m", str("new\n"), 0o644)
	if _, err := Rollback(context.Background(), f.store, "s1", "c"); err != nil {
		t.Errorf("the call stayed busy after a cancelled rollback: %v", err)
	}
}

// Entries survive a restart and roll back from the reopened store.
func TestRollbackAfterRestart(t *testing.T) {
	f := newFixture(t)
	f.write("m", "old\n", 0o600)
	f.mutate("s1", "c", f.change("m", str("new\n")))
	f.restart()
	if _, err := Rollback(context.Background(), f.store, "s1", "c"); err != nil {
		t.Fatal(err)
	}
	f.want("m", str("old\n"), 0o600)
}

// WithLock holds the session's mutation lock across the whole rollback,
// so a mutation of that session cannot land between check and restore.
func TestWithLockSerializesWithTheSessionsMutations(t *testing.T) {
	f := newFixture(t)
	f.write("m", "old\n", 0o644)
	f.mutate("s1", "c", f.change("m", str("new\n")))

	var sessionLock sync.Mutex
	var locked []string
	lock := func(id string) func() {
		locked = append(locked, id)
		sessionLock.Lock()
		return sessionLock.Unlock
	}
	sessionLock.Lock() // a mutation of s1 is running
	done := make(chan error)
	go func() {
		_, err := Rollback(context.Background(), f.store, "s1", "c", WithLock(lock))
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("Rollback ran while the session's mutation held the lock: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	f.want("m", str("new\n"), 0o644)
	sessionLock.Unlock()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	f.want("m", str("old\n"), 0o644)
	if !slices.Equal(locked, []string{"s1"}) {
		t.Errorf("locked %v, want [s1]", locked)
	}
	// The lock was released: taking it again does not block.
	if !sessionLock.TryLock() {
		t.Error("Rollback did not release the session lock")
	}
}

// Two calls changed one file: the older cannot be rolled back over the
// newer one's work, but rolling back newest first walks the chain back.
func TestRollbackOfAnOlderCallOverANewerOneConflicts(t *testing.T) {
	f := newFixture(t)
	f.write("m", "v1\n", 0o644)
	f.mutate("s1", "first", f.change("m", str("v2\n")))
	f.mutate("s1", "second", f.change("m", str("v3\n")))
	f.mutate("s1", "third", f.change("m", str("v4\n")))
	if _, err := Rollback(context.Background(), f.store, "s1", "first"); !errors.Is(err, ErrConflict) ||
		!strings.Contains(err.Error(), "roll back third, second first") {
		t.Fatalf("rolling back the older call = %v, want ErrConflict naming the later calls newest first", err)
	}
	if _, err := Rollback(context.Background(), f.store, "s1", "third"); err != nil {
		t.Fatal(err)
	}
	f.want("m", str("v3\n"), 0o644)
	f.want("m", str("v3\n"), 0o644)
	for _, id := range []string{"second", "first"} {
		if _, err := Rollback(context.Background(), f.store, "s1", id); err != nil {
			t.Fatalf("rollback %s: %v", id, err)
		}
	}
	f.want("m", str("v1\n"), 0o644)
}

// A rollback of a call whose session is gone is confined to the root
// recorded with its entries: a directory on the way replaced by a link to
// elsewhere makes the restore fail, and nothing outside is written.
func TestRollbackIsConfinedToTheRecordedRoot(t *testing.T) {
	f := newFixture(t)
	root, err := filepath.EvalSymlinks(f.ws)
	if err != nil {
		t.Fatal(err)
	}
	f.ws = root
	f.write("sub/a.txt", "before\n", 0o644)
	after := "after\n"
	f.mutate("s", "c1", f.change("sub/a.txt", &after))

	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "a.txt"), []byte("after\n"), 0o644)
	os.Rename(f.path("sub"), f.path("sub.aside"))
	if err := os.Symlink(outside, f.path("sub")); err != nil {
		t.Fatal(err)
	}
	f.restart() // the session is gone; only the record is left
	if _, err := Rollback(context.Background(), f.store, "s", "c1"); err == nil {
		t.Fatal("the rollback went through a link out of its root")
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "a.txt")); string(b) != "after\n" {
		t.Fatalf("outside file written: %q", b)
	}
}
