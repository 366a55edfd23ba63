package session

import "github.com/hostd-dev/hostd/workspace"

// SwitchWorkspace moves session id to the workspace rooted at root
// (session.setWorkspace) and returns its new State; its snapshot store and
// registers are dropped. The scratch and external roots were approved for
// the session, not for the old workspace, so they carry over, checked
// again by workspace.New. It waits for the session's in-flight mutation
// and reads the roots to carry under the same lock, so two switches at
// once cannot drop one's roots.
func (m *Manager) SwitchWorkspace(id, root string) (*State, error) {
	s, err := m.Get(id)
	if err != nil {
		return nil, err
	}
	unlock := s.LockMutations()
	defer unlock()
	var scratch string
	var ext []workspace.External
	for _, r := range s.State().Workspace.Roots()[1:] {
		switch r.Kind {
		case workspace.KindScratch:
			scratch = r.Path
		case workspace.KindExternal:
			ext = append(ext, workspace.External{Path: r.Path, Writable: r.Writable})
		}
	}
	ws, err := workspace.New(root, scratch, ext)
	if err != nil {
		return nil, err
	}
	defer ws.Close() // the session takes its own reference
	// The daemon's encodings setting covers every workspace.
	return m.replaceStateLocked(s, ws.WithEncodings(s.State().Workspace.Encodings()))
}
