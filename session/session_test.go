package session

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/workspace"
)

func newWorkspace(t *testing.T) *workspace.Workspace {
	t.Helper()
	ws, err := workspace.New(t.TempDir(), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

func TestManagerLifecycle(t *testing.T) {
	lim := config.DefaultLimits()
	lim.MaxSessions = 2
	m := NewManager(lim)
	ws := newWorkspace(t)
	a, err := m.Create("", ws)
	if err != nil || !strings.HasPrefix(a.ID, "s-") {
		t.Fatalf("Create: %v %v", a, err)
	}
	// Re-attaching with the same id and workspace returns the live session.
	b, err := m.Create("agent-1", ws)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := m.Create("agent-1", ws); err != nil || again != b {
		t.Errorf("re-attach: %v %v", again, err)
	}
	if _, err := m.Create("agent-1", newWorkspace(t)); !errors.Is(err, ErrConflict) {
		t.Errorf("same id, other workspace: %v", err)
	}
	if _, err := m.Create("", ws); !errors.Is(err, ErrLimit) {
		t.Errorf("over maxSessions: %v", err)
	}
	for _, bad := range []string{"has space", "slash/id", strings.Repeat("x", 129)} {
		if _, err := m.Create(bad, ws); !errors.Is(err, ErrBadID) {
			t.Errorf("Create(%q): %v, want ErrBadID", bad, err)
		}
	}
	if err := m.Delete(a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Get(a.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get after Delete: %v", err)
	}
	if err := m.Delete(a.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("second Delete: %v", err)
	}
	if m.Len() != 1 || len(m.List()) != 1 {
		t.Errorf("Len %d, List %d", m.Len(), len(m.List()))
	}
}

// Switching the workspace drops the snapshot store (edit-contract §4.4); a
// call that captured the old state records into the old, dropped store.
func TestSetWorkspaceDropsTheStore(t *testing.T) {
	m := NewManager(config.DefaultLimits())
	s, err := m.Create("", newWorkspace(t))
	if err != nil {
		t.Fatal(err)
	}
	old := s.State()
	old.Store.Record("/w/a", snap("a\n", Span(1, 1)))
	ws2 := newWorkspace(t)
	if _, err := m.SetWorkspace(s.ID, ws2); err != nil {
		t.Fatal(err)
	}
	now := s.State()
	if now.Workspace.Root() != ws2.Root() || now.Store.Stats().Paths != 0 {
		t.Errorf("after the switch: root %s, %d paths", now.Workspace.Root(), now.Store.Stats().Paths)
	}
	old.Store.Record("/w/b", snap("b\n", Empty()))
	if now.Store.Stats().Paths != 0 {
		t.Error("a record into the old state reached the new store")
	}
	if info := s.Info(); info.Paths != 0 || info.Workspace != ws2.Root() {
		t.Errorf("Info %+v", info)
	}
}

// A session holds a reference to its workspace's roots from its creation
// to its delete or switch; a call holding them keeps them open past it,
// and once it lets go they are closed, not left for the garbage collector
// (on Windows a directory held open cannot be removed).
func TestSessionLetsGoOfItsRoots(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := NewManager(config.DefaultLimits())
	ws, err := workspace.New(dir, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := m.Create("s1", ws)
	ws.Close() // the caller's reference: the session has its own
	if err != nil {
		t.Fatal(err)
	}
	st, release, err := s.Hold()
	if err != nil {
		t.Fatal(err)
	}
	p, err := st.Workspace.Resolve("a.txt", workspace.Read)
	if err != nil {
		t.Fatal(err)
	}

	// A switch while a call holds the old roots: they stay open for it.
	ws2, err := workspace.New(t.TempDir(), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.SetWorkspace("s1", ws2); err != nil {
		t.Fatal(err)
	}
	ws2.Close()
	opened(t, p, nil)
	release()
	opened(t, p, os.ErrClosed)

	// The next call gets the new workspace, held.
	st2, release2, err := s.Hold()
	if err != nil || st2 == st || !st2.Workspace.Shares(ws2) {
		t.Fatalf("Hold after the switch: %v, state replaced %v", err, st2 != st)
	}
	p2, err := st2.Workspace.Resolve("b.txt", workspace.Write)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Delete("s1"); err != nil {
		t.Fatal(err)
	}
	if err := p2.WriteFile([]byte("b\n"), 0o644, workspace.Expect{}); err != nil {
		t.Errorf("a write of a call that held the roots before the delete: %v", err)
	}
	release2()
	if err := p2.WriteFile([]byte("c\n"), 0o644, workspace.Expect{}); !errors.Is(err, os.ErrClosed) {
		t.Errorf("a write through the roots of a deleted session: %v, want os.ErrClosed", err)
	}
	if _, _, err := s.Hold(); !errors.Is(err, ErrNotFound) {
		t.Errorf("Hold on a deleted session: %v, want ErrNotFound", err)
	}
}

// A create that makes no session takes no reference: the caller's Close
// closes the roots it opened.
func TestCreateWithoutASessionTakesNoReference(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	for _, d := range []string{dir, other} {
		if err := os.WriteFile(filepath.Join(d, "a.txt"), []byte("a\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	lim := config.DefaultLimits()
	lim.MaxSessions = 1
	m := NewManager(lim)
	first, err := workspace.New(dir, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	if _, err := m.Create("s1", first); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, root string
		create     func(ws *workspace.Workspace) error
	}{
		{"re-attach", dir, func(ws *workspace.Workspace) error { _, err := m.Create("s1", ws); return err }},
		{"conflict", other, func(ws *workspace.Workspace) error { _, err := m.Create("s1", ws); return err }},
		{"limit", other, func(ws *workspace.Workspace) error { _, err := m.Create("s2", ws); return err }},
		{"bad id", other, func(ws *workspace.Workspace) error { _, err := m.Create("a b", ws); return err }},
		{"bad prefs", other, func(ws *workspace.Workspace) error {
			_, err := m.CreateWith("", ws, Prefs{EditResult: "x"})
			return err
		}},
	} {
		ws, err := workspace.New(tt.root, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		p, err := ws.Resolve("a.txt", workspace.Read)
		if err != nil {
			t.Fatal(err)
		}
		if err := tt.create(ws); (err == nil) != (tt.name == "re-attach") {
			t.Errorf("%s: %v", tt.name, err)
		}
		ws.Close()
		if _, err := p.Open(); !errors.Is(err, os.ErrClosed) {
			t.Errorf("%s: the roots stay open after the caller's Close: %v", tt.name, err)
		}
	}
	// The session's own roots are not the ones let go.
	st, release, err := mustGet(t, m, "s1").Hold()
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	p, err := st.Workspace.Resolve("a.txt", workspace.Read)
	if err != nil {
		t.Fatal(err)
	}
	opened(t, p, nil)
}

func mustGet(t *testing.T, m *Manager, id string) *Session {
	t.Helper()
	s, err := m.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// opened checks what opening p gives: nil, or an error that is want.
func opened(t *testing.T, p workspace.Path, want error) {
	t.Helper()
	f, err := p.Open()
	if want == nil {
		if err != nil {
			t.Errorf("open %s: %v", p.Abs, err)
			return
		}
		f.Close()
		return
	}
	if !errors.Is(err, want) {
		t.Errorf("open %s: %v, want %v", p.Abs, err, want)
	}
	if f != nil {
		f.Close()
	}
}
