package session

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/workspace"
)

// A switch keeps the session's scratch and external roots and drops its
// snapshots; a root that is not a directory is refused and changes
// nothing.
func TestSwitchWorkspaceKeepsTheApprovedRoots(t *testing.T) {
	dir := func() string {
		d, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	scratch, ext := dir(), dir()
	ws, err := workspace.New(dir(), scratch, []workspace.External{{Path: ext, Writable: true}})
	if err != nil {
		t.Fatal(err)
	}
	m := NewManager(config.DefaultLimits())
	s, err := m.Create("s", ws)
	if err != nil {
		t.Fatal(err)
	}
	s.State().Store.Record("/w/a", snap("a\n", Span(1, 1)))

	next := dir()
	st, err := m.SwitchWorkspace("s", next)
	if err != nil {
		t.Fatal(err)
	}
	if st != s.State() || st.Workspace.Root() != next || st.Store.Stats().Paths != 0 {
		t.Fatalf("after the switch: root %s, %d paths", st.Workspace.Root(), st.Store.Stats().Paths)
	}
	roots := st.Workspace.Roots()
	if len(roots) != 3 || roots[1] != (workspace.Root{Path: scratch, Kind: workspace.KindScratch, Writable: true}) ||
		roots[2] != (workspace.Root{Path: ext, Kind: workspace.KindExternal, Writable: true}) {
		t.Errorf("roots after the switch: %+v", roots)
	}

	if _, err := m.SwitchWorkspace("s", filepath.Join(next, "missing")); !errors.Is(err, workspace.ErrInvalid) {
		t.Errorf("a missing root: %v, want workspace.ErrInvalid", err)
	}
	if s.State() != st {
		t.Error("a refused switch replaced the state")
	}
	if _, err := m.SwitchWorkspace("nope", next); !errors.Is(err, ErrNotFound) {
		t.Errorf("an unknown session: %v", err)
	}
}
