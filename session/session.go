// Package session owns the daemon's agent sessions and each session's
// in-memory state: its workspace, its snapshot store (edit-contract §4),
// its named registers (§7.5), the boundary-repair questions it asked
// (§8.4) and its repeat guard (§9.3), and the one
// daemon-wide bound on the snapshot text all sessions retain together
// (config.Limits.MaxRetainedBytes). Sessions belong to the daemon, not to
// a connection. Nothing here is persisted and nothing here touches files;
// tools do that.
package session

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/internal/quote"
	"github.com/hostd-dev/hostd/workspace"
)

// Sentinel errors, mapped to wire codes by the rpc package.
var (
	ErrNotFound = errors.New("session not found")       // SESSION_NOT_FOUND
	ErrLimit    = errors.New("session limit reached")   // SESSION_LIMIT
	ErrConflict = errors.New("session id already used") // invalid params
	ErrBadID    = errors.New("invalid session id")      // invalid params
)

// errClosedWorkspace is a caller's mistake: a workspace whose every
// reference was let go of.
var errClosedWorkspace = errors.New("session: the workspace was closed")

// Session is one agent session.
//
// Lock order: mutate, then mu. Tools that change files hold mutate for the
// whole call (edit-contract §13.3: no record may interleave between a
// validation and its write); mu guards only the state pointers below and is
// never held across I/O.
type Session struct {
	ID        string
	CreatedAt time.Time
	// Guard is the repeat guard; it outlives workspace switches because a
	// prompt that keeps failing keeps failing.
	Guard *Guard
	// Prefs are fixed at creation and never change, so they need no lock.
	Prefs Prefs

	mutate sync.Mutex

	mu    sync.Mutex
	state *State // guarded by mu; replaced, never mutated, on a workspace switch
}

// State is a session's workspace and the state that is only meaningful
// for it. A workspace switch replaces the whole State, so a call that
// started before the switch records into the old, dropped store and cannot
// leak a snapshot into the new workspace.
type State struct {
	Workspace *workspace.Workspace
	Store     *Store
	Registers *Registers
	// Asked is what boundary repair asked about; its questions name tags
	// of this store, so it goes with it.
	Asked *Asked
	// Chains carry the syntax errors of the versions its changes started
	// from (edit-contract §5.6); its lines are of this store's versions.
	Chains *ErrorChains
}

func newState(ws *workspace.Workspace, lim config.Limits, pool *retention) *State {
	return &State{Workspace: ws, Store: newStore(lim, pool), Registers: NewRegisters(lim.MaxNamedRegisters), Asked: NewAsked(), Chains: NewErrorChains()}
}

// State returns the session's current state. Its workspace's roots may
// be closed at any time by a switch or a delete; a call that uses them
// takes the state with Hold.
func (s *Session) State() *State {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state
}

// Hold returns the session's current state with its workspace's roots
// held open until release is called (workspace.Workspace.Hold): a switch
// or a delete meanwhile closes them after release, not under the call.
// The error is ErrNotFound when the session was deleted.
func (s *Session) Hold() (st *State, release func(), err error) {
	for {
		st = s.State()
		if release, ok := st.Workspace.Hold(); ok {
			return st, release, nil
		}
		if s.State() == st {
			// Closed and not replaced: deleted.
			return nil, nil, fmt.Errorf("%w: %s was deleted", ErrNotFound, quote.Short(s.ID))
		}
	}
}

// LockMutations serializes file mutations of this session; call the
// returned function to release. Reads do not take it.
func (s *Session) LockMutations() (unlock func()) {
	s.mutate.Lock()
	return s.mutate.Unlock
}

// Manager holds every session of the daemon, at most limits.MaxSessions,
// and the daemon-wide bound on their retained text
// (limits.MaxRetainedBytes, one LRU over every session's snapshots).
// It is safe for concurrent use; mu guards the map only and is never held
// while a store's lock is taken.
type Manager struct {
	lim  config.Limits
	pool *retention

	mu       sync.Mutex
	sessions map[string]*Session
}

// NewManager returns an empty manager.
func NewManager(lim config.Limits) *Manager {
	return &Manager{lim: lim, pool: newRetention(lim.MaxRetainedBytes), sessions: make(map[string]*Session)}
}

// maxIDLen bounds client-supplied session ids.
const maxIDLen = 128

// Create makes a session on ws. id may be empty (a random id is
// generated) or supplied to re-attach after a restart (wire-contract §5). A
// supplied id that is already live is returned as it is when it has the
// same workspace root, and ErrConflict otherwise.
//
// A new session takes a reference to ws's roots (workspace.Retain) and
// lets go of it when it is deleted or switched to another workspace; the
// caller still lets go of its own.
func (m *Manager) Create(id string, ws *workspace.Workspace) (*Session, error) {
	return m.create(id, ws, Prefs{EditResult: DefaultResultForm})
}

func (m *Manager) create(id string, ws *workspace.Workspace, p Prefs) (*Session, error) {
	if id == "" {
		id = newID()
	} else if err := validID(id); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if s, ok := m.sessions[id]; ok {
		if s.State().Workspace.Root() == ws.Root() {
			return s, nil
		}
		return nil, fmt.Errorf("%w: %s is live on workspace %s; use session.setWorkspace to switch", ErrConflict, quote.Short(id), s.State().Workspace.Root())
	}
	if len(m.sessions) >= m.lim.MaxSessions {
		return nil, fmt.Errorf("%w: the daemon holds %d sessions; delete one with session.delete", ErrLimit, m.lim.MaxSessions)
	}
	if !ws.Retain() {
		return nil, errClosedWorkspace
	}
	s := &Session{ID: id, CreatedAt: time.Now(), Guard: NewGuard(m.lim.RepeatGuardAttempts), Prefs: p, state: newState(ws, m.lim, m.pool)}
	m.sessions[id] = s
	return s, nil
}

func validID(id string) error {
	if len(id) > maxIDLen {
		return fmt.Errorf("%w: longer than %d bytes", ErrBadID, maxIDLen)
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == ':') {
			return fmt.Errorf("%w: %s may use only letters, digits and the characters - _ . and colon", ErrBadID, quote.Short(id))
		}
	}
	return nil
}

func newID() string {
	var b [12]byte
	rand.Read(b[:])
	return "s-" + hex.EncodeToString(b[:])
}

// Get returns a live session.
func (m *Manager) Get(id string) (*Session, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.sessions[id]
	if !ok {
		return nil, fmt.Errorf("%w: %s (create it with session.create)", ErrNotFound, quote.Short(id))
	}
	return s, nil
}

// Delete drops a session and all its state; its retained text leaves the
// daemon-wide count at once, and its workspace's roots are closed once
// the calls holding them end.
func (m *Manager) Delete(id string) error {
	m.mu.Lock()
	s, ok := m.sessions[id]
	delete(m.sessions, id)
	m.mu.Unlock()
	if !ok {
		return fmt.Errorf("%w: %s", ErrNotFound, quote.Short(id))
	}
	st := s.State()
	st.Store.Close()
	st.Workspace.Close()
	return nil
}

// SetWorkspace switches a session to ws and drops its snapshot store and
// registers. It waits for the session's in-flight mutation to finish. The
// session takes a reference to ws, as Create does.
func (m *Manager) SetWorkspace(id string, ws *workspace.Workspace) (*Session, error) {
	s, err := m.Get(id)
	if err != nil {
		return nil, err
	}
	unlock := s.LockMutations()
	defer unlock()
	if _, err := m.replaceStateLocked(s, ws); err != nil {
		return nil, err
	}
	return s, nil
}

// replaceStateLocked gives s a fresh State on ws, taking a reference to
// it, drops the old State's snapshots and lets go of its workspace (whose
// roots close once the calls holding them end). The caller holds s's
// mutation lock.
func (m *Manager) replaceStateLocked(s *Session, ws *workspace.Workspace) (*State, error) {
	if !ws.Retain() {
		return nil, errClosedWorkspace
	}
	s.mu.Lock()
	old := s.state
	s.state = newState(ws, m.lim, m.pool)
	st := s.state
	s.mu.Unlock()
	old.Store.Close()
	old.Workspace.Close()
	return st, nil
}

// Info is a session's summary for session.list (which sends it as
// wire.SessionInfo, the same fields).
type Info struct {
	SessionID     string    `json:"sessionId"`
	Workspace     string    `json:"workspace"`
	CreatedAt     time.Time `json:"createdAt"`
	Paths         int       `json:"paths"`
	RetainedBytes int64     `json:"retainedBytes"`
}

// Info summarizes the session.
func (s *Session) Info() Info {
	st := s.State()
	ss := st.Store.Stats()
	return Info{SessionID: s.ID, Workspace: st.Workspace.Root(), CreatedAt: s.CreatedAt, Paths: ss.Paths, RetainedBytes: ss.RetainedBytes}
}

// List returns every session's summary, oldest first.
func (m *Manager) List() []Info {
	m.mu.Lock()
	all := make([]*Session, 0, len(m.sessions))
	for _, s := range m.sessions {
		all = append(all, s)
	}
	m.mu.Unlock()
	slices.SortFunc(all, func(a, b *Session) int { return a.CreatedAt.Compare(b.CreatedAt) })
	out := make([]Info, len(all))
	for i, s := range all {
		out[i] = s.Info()
	}
	return out
}

// Len is the number of live sessions.
func (m *Manager) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.sessions)
}

// Retention reports the retained text across every session against
// limits.MaxRetainedBytes.
func (m *Manager) Retention() RetentionStats { return m.pool.stats() }

// HeldBytes is what every session holds in memory by design: retained
// snapshot text and named-register content. The daemon sizes its memory
// limit from it.
func (m *Manager) HeldBytes() int64 {
	m.mu.Lock()
	all := make([]*Session, 0, len(m.sessions))
	for _, s := range m.sessions {
		all = append(all, s)
	}
	m.mu.Unlock()
	n := m.pool.stats().RetainedBytes
	for _, s := range all {
		for _, r := range s.State().Registers.List() {
			n += int64(r.Bytes)
		}
	}
	return n
}
