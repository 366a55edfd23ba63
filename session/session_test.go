package session

import (
	"errors"
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
