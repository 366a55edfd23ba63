package review

import (
	"encoding/json"
	"errors"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/config"
)

// wire-contract §5: each change kind is recorded with its digests and its diff.
func TestCommitRecordsEachChangeKind(t *testing.T) {
	ws := t.TempDir()
	x, gone := filepath.Join(ws, "src", "x.go"), filepath.Join(ws, "old.txt")
	writeFile(t, x, "a\nb\nc\n", 0o600)
	writeFile(t, gone, "x\ny\n", 0o644)

	tests := []struct {
		name       string
		change     func() plannedChange
		kind       string
		before     string // "" for absent
		after      string
		diff       string
		wantBefore bool
		wantAfter  bool
	}{
		{"modify", func() plannedChange { return modify(t, x, "src/x.go", "a\nB\nc\n") }, ChangeModify,
			"a\nb\nc\n", "a\nB\nc\n", "--- a/src/x.go\n+++ b/src/x.go\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n", true, true},
		{"create", func() plannedChange { return create(filepath.Join(ws, "new.txt"), "new.txt", "x\ny\n") }, ChangeCreate,
			"", "x\ny\n", "--- a/new.txt\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+x\n+y\n", false, true},
		{"delete", func() plannedChange { return remove(t, gone, "old.txt") }, ChangeDelete,
			"x\ny\n", "", "--- a/old.txt\n+++ b/old.txt\n@@ -1,2 +0,0 @@\n-x\n-y\n", true, false},
	}
	s, _ := openTest(t, config.DefaultLimits())
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.change()
			entries := mutate(t, s, "s1", "call-"+tc.name, "edit", c)
			if len(entries) != 1 {
				t.Fatalf("got %d entries, want 1", len(entries))
			}
			e := entries[0]
			if e.Change != tc.kind || e.Path != c.Display || e.Canonical != c.Path || e.ToolCallID != "call-"+tc.name || e.Tool != "edit" || e.RolledBack {
				t.Errorf("entry %+v", e)
			}
			if got, want := e.BeforeSHA256, map[bool]string{true: sha(tc.before)}[tc.wantBefore]; got != want {
				t.Errorf("beforeSha256 %q, want %q", got, want)
			}
			if got, want := e.AfterSHA256, map[bool]string{true: sha(tc.after)}[tc.wantAfter]; got != want {
				t.Errorf("afterSha256 %q, want %q", got, want)
			}
			if e.Diff != tc.diff {
				t.Errorf("diff\n%s\nwant\n%s", e.Diff, tc.diff)
			}
			listed, err := s.List("s1", "")
			if err != nil || len(listed) != i+1 || listed[i].ID != e.ID || listed[i].Diff != e.Diff {
				t.Errorf("List = %v, %v; want entry %d to be %+v", listed, err, i, e)
			}
		})
	}
}

// wire-contract §5: the wire shape of ReviewEntry, field for field; the sha
// fields are absent on the side where the file does not exist.
func TestEntryJSONShape(t *testing.T) {
	ws := t.TempDir()
	s, _ := openTest(t, config.DefaultLimits())
	e := mutate(t, s, "s1", "c1", "write", create(filepath.Join(ws, "a"), "a", "hi\n"))[0]
	var m map[string]any
	data, _ := json.Marshal(e)
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	got := slices.Sorted(maps.Keys(m))
	want := []string{"afterSha256", "at", "change", "diff", "id", "path", "rolledBack", "tool", "toolCallId"}
	if !slices.Equal(got, want) {
		t.Errorf("JSON keys %v, want %v", got, want)
	}
}

// edit-contract §13.1: MV records a deletion of the source and a creation
// of the destination under one toolCallId.
func TestMoveRecordsTwoEntriesUnderOneCall(t *testing.T) {
	ws := t.TempDir()
	src, dst := filepath.Join(ws, "a.txt"), filepath.Join(ws, "b", "a.txt")
	writeFile(t, src, "body\n", 0o640)
	del := remove(t, src, "a.txt")
	cre := create(dst, "b/a.txt", "body\n")
	cre.AfterMode = 0o640
	s, _ := openTest(t, config.DefaultLimits())
	mutate(t, s, "s1", "mv-1", "edit", cre, del)

	got, err := s.List("s1", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Change != ChangeCreate || got[1].Change != ChangeDelete ||
		got[0].ToolCallID != "mv-1" || got[1].ToolCallID != "mv-1" {
		t.Fatalf("entries %+v", got)
	}
	if only, _ := s.List("s1", "a.txt"); len(only) != 1 || only[0].Change != ChangeDelete {
		t.Errorf("List by display path = %+v", only)
	}
	if only, _ := s.List("s1", dst); len(only) != 1 || only[0].Change != ChangeCreate {
		t.Errorf("List by canonical path = %+v", only)
	}
	if other, _ := s.List("s2", ""); len(other) != 0 {
		t.Errorf("another session sees %+v", other)
	}
}

// edit-contract §5.4: the digest is of what landed; the diff describes the
// intended change and says the saved file differs.
func TestCommitRecordsLandedDigest(t *testing.T) {
	ws := t.TempDir()
	p := filepath.Join(ws, "f.go")
	writeFile(t, p, "a\n", 0o644)
	c := modify(t, p, "f.go", "b  \n")
	s, _ := openTest(t, config.DefaultLimits())
	txn, err := s.begin("s1", "c1", "write", []plannedChange{c})
	if err != nil {
		t.Fatal(err)
	}
	formatted := []byte("b\n")
	writeFile(t, p, string(formatted), 0o644)
	entries, err := txn.commit(map[string][]byte{p: formatted})
	if err != nil {
		t.Fatal(err)
	}
	e := entries[0]
	if e.AfterSHA256 != sha("b\n") {
		t.Errorf("afterSha256 is of %q's bytes, want of what landed", "b  \n")
	}
	if !strings.HasPrefix(e.Diff, "--- a/f.go\n+++ b/f.go\n@@ -1 +1 @@\n-a\n+b  \n") ||
		!strings.Contains(e.Diff, "note: the file as saved differs from this change") {
		t.Errorf("diff:\n%s", e.Diff)
	}
}

func TestCommitRejectsLandedBytesForUnknownPath(t *testing.T) {
	ws := t.TempDir()
	s, _ := openTest(t, config.DefaultLimits())
	txn, err := s.begin("s1", "c1", "write", []plannedChange{create(filepath.Join(ws, "a"), "a", "x")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := txn.commit(map[string][]byte{filepath.Join(ws, "b"): nil}); !errors.Is(err, ErrInvalidChange) {
		t.Errorf("Commit = %v, want ErrInvalidChange", err)
	}
	if _, err := txn.commit(nil); err != nil {
		t.Errorf("Commit after a rejected Commit = %v", err)
	}
	if _, err := txn.commit(nil); !errors.Is(err, ErrDone) {
		t.Errorf("second Commit = %v, want ErrDone", err)
	}
	if err := txn.abort(); err != nil {
		t.Errorf("Abort after Commit = %v, want nil", err)
	}
}

func TestBeginRejects(t *testing.T) {
	ws := t.TempDir()
	abs := filepath.Join(ws, "a")
	small := config.DefaultLimits()
	small.MaxReviewBytesPerSession = 100
	small.MaxReviewEntriesPerSession = 1
	tests := []struct {
		name    string
		changes []plannedChange
		want    error
	}{
		{"no changes", nil, ErrInvalidChange},
		{"relative path", []plannedChange{create("a", "a", "x")}, ErrInvalidChange},
		{"unclean path", []plannedChange{create(ws+"/x/../a", "a", "x")}, ErrInvalidChange},
		{"absent on both sides", []plannedChange{{Path: abs}}, ErrInvalidChange},
		{"bytes on an absent side", []plannedChange{{Path: abs, Before: []byte("x"), After: []byte("y"), AfterExists: true}}, ErrInvalidChange},
		{"same path twice", []plannedChange{create(abs, "a", "x"), create(abs, "a", "y")}, ErrInvalidChange},
		{"too many paths to ever keep", []plannedChange{create(abs, "a", "x"), create(abs+"2", "a2", "x")}, ErrTooLarge},
		{"too many bytes to ever keep", []plannedChange{{Path: abs, Before: make([]byte, 200), BeforeExists: true}}, ErrTooLarge},
	}
	s, _ := openTest(t, small)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := s.begin("s1", "c-"+tc.name, "edit", tc.changes); !errors.Is(err, tc.want) {
				t.Errorf("Begin = %v, want %v", err, tc.want)
			}
		})
	}
	if _, err := s.begin("", "c", "edit", []plannedChange{create(abs, "a", "x")}); !errors.Is(err, ErrInvalidChange) {
		t.Errorf("Begin without a session = %v", err)
	}
	if st := s.Stats(); st.PendingIntents != 0 {
		t.Errorf("rejected Begins left %d intents", st.PendingIntents)
	}
}

// One toolCallId names one mutation: a second one, in flight or recorded,
// would make the call's rollback compare against the wrong after-digest.
func TestBeginRejectsReusedToolCallID(t *testing.T) {
	ws := t.TempDir()
	s, _ := openTest(t, config.DefaultLimits())
	txn, err := s.begin("s1", "c1", "write", []plannedChange{create(filepath.Join(ws, "a"), "a", "x")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.begin("s1", "c1", "write", []plannedChange{create(filepath.Join(ws, "b"), "b", "x")}); !errors.Is(err, ErrDuplicateCall) {
		t.Errorf("Begin while in flight = %v, want ErrDuplicateCall", err)
	}
	apply(t, create(filepath.Join(ws, "a"), "a", "x"))
	if _, err := txn.commit(nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.begin("s1", "c1", "write", []plannedChange{create(filepath.Join(ws, "b"), "b", "x")}); !errors.Is(err, ErrDuplicateCall) {
		t.Errorf("Begin after commit = %v, want ErrDuplicateCall", err)
	}
	if txn, err := s.begin("s2", "c1", "write", []plannedChange{create(filepath.Join(ws, "b"), "b", "x")}); err != nil {
		t.Errorf("another session's c1 = %v, want it allowed", err)
	} else {
		txn.abort()
	}
}

// The store survives a restart: the same entries, digests, diffs and marks.
func TestReopenSeesEntries(t *testing.T) {
	ws := t.TempDir()
	p := filepath.Join(ws, "f")
	writeFile(t, p, "one\n", 0o644)
	lim := config.DefaultLimits()
	s, dir := openTest(t, lim)
	mutate(t, s, "s1", "c1", "edit", modify(t, p, "f", "two\n"))
	mutate(t, s, "s2", "c2", "write", create(filepath.Join(ws, "g"), "g", "new\n"))
	want1, _ := s.List("s1", "")
	want2, _ := s.List("s2", "")
	wantStats := s.Stats()

	s = reopen(t, s, dir, lim)
	got1, _ := s.List("s1", "")
	got2, _ := s.List("s2", "")
	if !entriesEqual(got1, want1) || !entriesEqual(got2, want2) {
		t.Errorf("after reopen:\n%+v\n%+v\nwant\n%+v\n%+v", got1, got2, want1, want2)
	}
	if st := s.Stats(); st.Entries != wantStats.Entries || st.Bytes != wantStats.Bytes || !maps.Equal(st.Sessions, wantStats.Sessions) {
		t.Errorf("stats after reopen %+v, want %+v", st, wantStats)
	}
	// Sequence numbers continue: a new entry never reuses an old id.
	e := mutate(t, s, "s1", "c3", "edit", modify(t, p, "f", "three\n"))[0]
	for _, old := range append(want1, want2...) {
		if old.ID == e.ID {
			t.Errorf("new entry reuses id %s", e.ID)
		}
	}
}

func entriesEqual(a, b []Entry) bool {
	return slices.EqualFunc(a, b, func(x, y Entry) bool {
		return x.ID == y.ID && x.ToolCallID == y.ToolCallID && x.Tool == y.Tool && x.Path == y.Path &&
			x.Change == y.Change && x.BeforeSHA256 == y.BeforeSHA256 && x.AfterSHA256 == y.AfterSHA256 &&
			x.Diff == y.Diff && x.At.Equal(y.At) && x.RolledBack == y.RolledBack && x.Canonical == y.Canonical
	})
}

func TestClosedStore(t *testing.T) {
	s, _ := openTest(t, config.DefaultLimits())
	s.Close()
	if _, err := s.begin("s", "c", "write", []plannedChange{create("/x", "x", "")}); !errors.Is(err, ErrClosed) {
		t.Errorf("Begin on closed store = %v", err)
	}
	if _, err := s.List("s", ""); !errors.Is(err, ErrClosed) {
		t.Errorf("List on closed store = %v", err)
	}
	if _, err := s.BeginRestore("s", "c"); !errors.Is(err, ErrClosed) {
		t.Errorf("BeginRestore on closed store = %v", err)
	}
}

// A second daemon on the same state directory fails instead of hanging.
func TestOpenFailsWhileAnotherHolderHasTheStore(t *testing.T) {
	_, dir := openTest(t, config.DefaultLimits())
	if s, err := Open(dir, config.DefaultLimits(), nil); err == nil {
		s.Close()
		t.Fatal("second Open succeeded")
	}
}
