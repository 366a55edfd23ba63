package review

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/workspace"
)

// changeWorkspace is a workspace for Apply, with paths resolved as a tool
// resolves them.
type changeWorkspace struct {
	t  *testing.T
	ws *workspace.Workspace
}

func newChangeWorkspace(t *testing.T) *changeWorkspace {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New(root, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	return &changeWorkspace{t: t, ws: ws}
}

func (w *changeWorkspace) path(rel string) workspace.Path {
	w.t.Helper()
	p, err := w.ws.Resolve(rel, workspace.Write)
	if err != nil {
		w.t.Fatal(err)
	}
	return p
}

// modify is an Edit of rel, which holds its before content now, to after.
func (w *changeWorkspace) modify(rel, after string) Edit {
	w.t.Helper()
	p := w.path(rel)
	before, err := os.ReadFile(p.Abs)
	if err != nil {
		w.t.Fatal(err)
	}
	return Edit{Path: p, Before: before, Existed: true, Mode: 0o644, After: []byte(after)}
}

// move is MV from to to: the destination's creation, then the source's
// removal.
func (w *changeWorkspace) move(from, to string) []Edit {
	src := w.modify(from, "")
	src.After, src.Remove = nil, true
	return []Edit{{Path: w.path(to), Mode: 0o644, After: src.Before}, src}
}

func toolCall(id string) Call {
	return Call{Session: "s1", ToolCallID: id, Tool: "edit", MaxLanded: 1 << 20}
}

// Apply writes, records what landed and reports it, with review on and
// off (a nil store) alike.
func TestApplyWritesAndRecords(t *testing.T) {
	for _, reviewed := range []bool{true, false} {
		w := newChangeWorkspace(t)
		var s *Store
		if reviewed {
			s, _ = openTest(t, config.DefaultLimits())
		}
		writeFile(t, w.path("a.txt").Abs, "one\n", 0o644)
		landed, err := s.Apply(toolCall("c1"), w.move("a.txt", "d/b.txt"))
		if err != nil {
			t.Fatal(err)
		}
		dst := w.path("d/b.txt").Abs
		if string(landed[dst]) != "one\n" || len(landed) != 1 {
			t.Errorf("landed %q", landed)
		}
		wantFile(t, dst, []byte("one\n"), 0o644)
		wantFile(t, w.path("a.txt").Abs, nil, 0)
		if !reviewed {
			continue
		}
		entries, _ := s.List("s1", "")
		if len(entries) != 2 || entries[0].Change != ChangeCreate || entries[1].Change != ChangeDelete {
			t.Fatalf("entries %+v", entries)
		}
		rollbackAll(t, s, "s1", "c1")
		wantFile(t, w.path("a.txt").Abs, []byte("one\n"), 0o644)
		wantFile(t, dst, nil, 0)
	}
}

// Another program writes the file after the intent and before the
// rename: nothing is written over it, nothing is recorded, and the intent
// is gone.
func TestApplyLeavesAFileChangedAfterTheIntent(t *testing.T) {
	w := newChangeWorkspace(t)
	s, _ := openTest(t, config.DefaultLimits())
	a := w.path("a.txt").Abs
	writeFile(t, a, "one\n", 0o644)
	e := w.modify("a.txt", "mine\n")
	testHookBeforeWrite = func() { writeFile(t, a, "theirs\n", 0o644) }
	defer func() { testHookBeforeWrite = nil }()
	_, err := s.Apply(toolCall("c1"), []Edit{e})
	var we *WriteError
	if !errors.As(err, &we) || !errors.Is(err, workspace.ErrChanged) || we.Edit.Path.Abs != a {
		t.Fatalf("Apply = %v, want a WriteError of a.txt wrapping ErrChanged", err)
	}
	wantFile(t, a, []byte("theirs\n"), 0o644)
	if entries, _ := s.List("s1", ""); len(entries) != 0 {
		t.Errorf("recorded %+v", entries)
	}
	if st := s.Stats(); st.PendingIntents != 0 {
		t.Errorf("%d intents left", st.PendingIntents)
	}
}

// When a later path of a change fails, the paths already written are put
// back, with review on and off alike, and the toolCallId is free again.
func TestApplyUndoesWhatLandedWhenALaterPathFails(t *testing.T) {
	for _, reviewed := range []bool{true, false} {
		w := newChangeWorkspace(t)
		var s *Store
		if reviewed {
			s, _ = openTest(t, config.DefaultLimits())
		}
		src := w.path("a.txt").Abs
		writeFile(t, src, "one\n", 0o644)
		testHookPut = func(path string) error {
			if path == src {
				return errors.New("disk full")
			}
			return nil
		}
		_, err := s.Apply(toolCall("c1"), w.move("a.txt", "b.txt"))
		testHookPut = nil
		var we *WriteError
		if !errors.As(err, &we) || we.Edit.Path.Abs != src || !strings.Contains(err.Error(), "disk full") {
			t.Fatalf("Apply = %v, want a WriteError of a.txt", err)
		}
		wantFile(t, src, []byte("one\n"), 0o644)
		wantFile(t, w.path("b.txt").Abs, nil, 0)
		if !reviewed {
			continue
		}
		if entries, _ := s.List("s1", ""); len(entries) != 0 {
			t.Errorf("recorded %+v", entries)
		}
		if _, err := s.Apply(toolCall("c1"), w.move("a.txt", "b.txt")); err != nil {
			t.Fatalf("the same toolCallId after an undone change: %v", err)
		}
	}
}

// A toolCallId already used is refused before anything is written.
func TestApplyRefusesADuplicateCall(t *testing.T) {
	w := newChangeWorkspace(t)
	s, _ := openTest(t, config.DefaultLimits())
	a := w.path("a.txt").Abs
	writeFile(t, a, "one\n", 0o644)
	if _, err := s.Apply(toolCall("c1"), []Edit{w.modify("a.txt", "two\n")}); err != nil {
		t.Fatal(err)
	}
	_, err := s.Apply(toolCall("c1"), []Edit{w.modify("a.txt", "three\n")})
	if !errors.Is(err, ErrDuplicateCall) || !errors.Is(err, ErrNotRecorded) || !strings.Contains(err.Error(), "nothing was written") {
		t.Fatalf("Apply = %v, want ErrDuplicateCall, nothing written", err)
	}
	wantFile(t, a, []byte("two\n"), 0o644)
}

// A change whose record cannot be written is undone; when the undo
// cannot finish either (here the store is gone, so not even the before
// bytes can be read), the next Open settles it: the change is whole on
// disk, so it is recorded as it stands and can be rolled back.
func TestApplySettlesWhatItCannotRecord(t *testing.T) {
	w := newChangeWorkspace(t)
	lim := config.DefaultLimits()
	s, dir := openTest(t, lim)
	a := w.path("a.txt").Abs
	writeFile(t, a, "one\n", 0o644)
	testHookBeforeWrite = func() { s.Close() }
	defer func() { testHookBeforeWrite = nil }()
	_, err := s.Apply(toolCall("c1"), []Edit{w.modify("a.txt", "two\n")})
	if !errors.Is(err, ErrNotRecorded) || !strings.Contains(err.Error(), "hostd settles it when it next starts") {
		t.Fatalf("Apply = %v, want ErrNotRecorded", err)
	}
	s2, err := Open(dir, lim, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	wantFile(t, a, []byte("two\n"), 0o644)
	if entries, _ := s2.List("s1", ""); len(entries) != 1 || entries[0].AfterSHA256 != sha("two\n") {
		t.Fatalf("entries %+v, want the change recorded as it stands", entries)
	}
	rollbackAll(t, s2, "s1", "c1")
	wantFile(t, a, []byte("one\n"), 0o644)
}

// A path that was not resolved by a workspace has no root to confine its
// write, and is refused.
func TestApplyRefusesAnUnresolvedPath(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a.txt")
	_, err := (*Store)(nil).Apply(toolCall("c1"), []Edit{{Path: workspace.Path{Abs: p, Display: "a.txt"}, Mode: 0o644, After: []byte("x")}})
	if !errors.Is(err, ErrInvalidChange) {
		t.Fatalf("Apply = %v, want ErrInvalidChange", err)
	}
	wantFile(t, p, nil, 0)
}
