// Package langserver owns the language servers hostd runs for its
// sessions' workspaces: one per workspace root and language, started on
// first need from the configured command or the known one found on the
// PATH (gopls, typescript-language-server, pyright-langserver,
// rust-analyzer, clangd), shared by every session of that root, kept in
// step with hostd's writes (didOpen, didChange, didSave), bounded (a
// count with the least recently used stopped past it, the memory of each
// server's process group, a start-up deadline, restarts after a crash,
// idle shutdown) and asked for the errors of a file's version. Nothing
// here waits on a server in a caller's goroutine: each server's process
// is written to by its own goroutine, and a caller waits for an answer
// no longer than the deadline it names.
package langserver

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hostd-dev/hostd/internal/spawn"
	"go.uber.org/zap"
)

// Options configure a Manager.
type Options struct {
	// Servers: a language's command, replacing the known one; an empty
	// command turns that language off.
	Servers map[string][]string
	// Off are workspace roots (absolute) where no server runs, nor under
	// them.
	Off []string
	// MaxServers run at once; past it the least recently used is
	// stopped.
	MaxServers int
	// MaxServerBytes: the resident memory of one server and what it
	// started (Linux); past it the server is ended, as a crash.
	MaxServerBytes int64
	StartTimeout   time.Duration // initialize answered, each write taken
	IdleTimeout    time.Duration // unused this long: shut down
	MaxRestarts    int           // after a crash; then the server is failed
	MaxFrameBytes  int64         // a message from a server
	Log            *zap.Logger
	// Spawner, when set, starts the servers (internal/spawn), so the
	// daemon forks nothing once it holds its socket; nil: they are
	// started from this process.
	Spawner *spawn.Spawner
}

// Defaults of Options (docs/config.md, languageServers).
const (
	DefaultMaxServers     = 4
	DefaultMaxServerBytes = 2 << 30
	DefaultStartTimeout   = 20 * time.Second
	DefaultIdleTimeout    = 15 * time.Minute
	DefaultMaxRestarts    = 3
	DefaultMaxFrameBytes  = 32 << 20
	// DefaultDiagnosticsWait is how long a write or an edit waits for
	// the errors of what it wrote: a warm gopls or tsserver answers a
	// small file in tens of milliseconds (docs/benchmarks.md), a large
	// TypeScript project's first check after a change takes longer, and
	// past this the result says the diagnostics are pending.
	DefaultDiagnosticsWait = 2 * time.Second
)

// key names one server.
type key struct{ root, lang string }

// Manager runs the servers. Safe for concurrent use; nil serves nothing.
type Manager struct {
	opt Options
	log *zap.Logger

	mu      sync.Mutex // guards servers, closed, touched, order
	servers map[key]*server
	closed  bool
	// touched: the files each session changed that a server serves,
	// newest last (maxTouched each, maxTouchedSessions sessions).
	touched map[string][]string
	order   []string
	done    chan struct{}
}

// New returns a manager; its janitor (idle shutdown, the memory bound)
// runs until Close.
func New(opt Options) *Manager {
	if opt.MaxServers <= 0 {
		opt.MaxServers = DefaultMaxServers
	}
	if opt.MaxServerBytes <= 0 {
		opt.MaxServerBytes = DefaultMaxServerBytes
	}
	if opt.StartTimeout <= 0 {
		opt.StartTimeout = DefaultStartTimeout
	}
	if opt.IdleTimeout <= 0 {
		opt.IdleTimeout = DefaultIdleTimeout
	}
	if opt.MaxRestarts < 0 {
		opt.MaxRestarts = 0
	}
	if opt.MaxFrameBytes <= 0 {
		opt.MaxFrameBytes = DefaultMaxFrameBytes
	}
	if opt.Log == nil {
		opt.Log = zap.NewNop()
	}
	m := &Manager{opt: opt, log: opt.Log, servers: map[key]*server{}, touched: map[string][]string{}, done: make(chan struct{})}
	go m.janitor()
	return m
}

// Serves reports whether a server would be asked about path in root:
// its language is known and root is not turned off. Whether the server
// is found is known once it is started.
func (m *Manager) Serves(root, path string) bool {
	if m == nil {
		return false
	}
	if _, _, ok := languageOf(path); !ok {
		return false
	}
	for _, off := range m.opt.Off {
		if rel, err := filepath.Rel(off, root); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return false
		}
	}
	return true
}

// serverFor is root's server of path's language, made when there is
// none; nil when none serves it.
func (m *Manager) serverFor(root, path string) (*server, string) {
	if !m.Serves(root, path) {
		return nil, ""
	}
	lang, id, _ := languageOf(path)
	k := key{root, lang.name}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, ""
	}
	if s := m.servers[k]; s != nil {
		return s, id
	}
	if live := m.running(); len(live) >= m.opt.MaxServers {
		// The least recently used one is shut down; it starts again when
		// it is needed.
		slices.SortFunc(live, func(a, b *server) int { return a.lastUsed().Compare(b.lastUsed()) })
		live[0].submit(nil)
	}
	s := newServer(m, root, lang)
	m.servers[k] = s
	return s, id
}

// running are the servers with a process (m.mu held).
func (m *Manager) running() []*server {
	var out []*server
	for _, s := range m.servers {
		s.mu.Lock()
		if s.state == StateReady || s.state == StateStarting {
			out = append(out, s)
		}
		s.mu.Unlock()
	}
	return out
}

func (s *server) lastUsed() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.used
}

// Check is the errors of one change, found by the server's goroutine;
// Wait takes them.
type Check struct {
	done   chan struct{}
	before []Diagnostic // nil: the file's errors before are not known
	after  []Diagnostic
	err    error
	server string
}

// Wait returns the check's errors of the text before the change (nil
// when the file had no known errors before, or was new) and after it;
// ok is false when they did not come by deadline, err says why there are
// none (no server, it failed).
func (c *Check) Wait(deadline time.Time) (before, after []Diagnostic, ok bool, err error) {
	if c == nil {
		return nil, nil, false, nil
	}
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case <-c.done:
		if errors.Is(c.err, errStale) {
			return nil, nil, false, nil
		}
		return c.before, c.after, c.err == nil, c.err
	case <-t.C:
		return nil, nil, false, nil
	}
}

// Server names the server that answered (its language).
func (c *Check) Server() string { return c.server }

// Changed tells root's server of path's language that path went from
// before (hadBefore false: a new file) to after, which is now on disk,
// and starts finding the errors of both; it returns at once. nil when no
// server serves path.
func (m *Manager) Changed(root, path, before string, hadBefore bool, after string) *Check {
	s, id := m.serverFor(root, path)
	if s == nil {
		return nil
	}
	c := &Check{done: make(chan struct{}), server: s.lang.name}
	limit := m.opt.StartTimeout
	ok := s.submit(func(p *proc, err error) {
		defer close(c.done)
		if err != nil {
			c.err = err
			return
		}
		if hadBefore {
			d, seq, _, err := s.open(p, path, id, before)
			if err == nil {
				c.before, err = s.errorsOf(p, d, seq, limit)
			}
			if err != nil {
				c.err = err
				return
			}
		}
		s.tellingOfWrite()
		d, seq, _, err := s.open(p, path, id, after)
		if err == nil {
			err = s.saved(p, d)
		}
		if err == nil {
			c.after, err = s.errorsOf(p, d, seq, limit)
		}
		c.err = err
	})
	s.noteMissed(path, id, !hadBefore, !ok)
	if !ok {
		c.err = fmt.Errorf("the %s server is busy with earlier work", s.lang.name)
		close(c.done)
	}
	return c
}

// Removed tells root's server of path's language that hostd removed
// path (REM, or the source of a move): the document is closed, so the
// server no longer reads the text it had, and the file is reported
// deleted (workspace/didChangeWatchedFiles), so a server that read it
// from disk (gopls keeps a package's files) drops it too. It returns at
// once.
func (m *Manager) Removed(root, path string) {
	if m == nil || !m.Serves(root, path) {
		return
	}
	lang, id, _ := languageOf(path)
	m.mu.Lock()
	s := m.servers[key{root, lang.name}]
	m.mu.Unlock()
	if s == nil {
		return
	}
	ok := s.submit(func(p *proc, err error) {
		if err == nil {
			s.close1(p, fileURI(path))
			s.deleted(p, fileURI(path))
		}
	})
	s.noteMissed(path, id, false, !ok)
}

// Errors finds the errors of path, whose text is text, by deadline; ok
// false when they did not come in time (they are looked for still, and
// the next call may have them), err when no server can give them.
func (m *Manager) Errors(root, path, text string, deadline time.Time) (errs []Diagnostic, ok bool, err error) {
	s, id := m.serverFor(root, path)
	if s == nil {
		return nil, false, fmt.Errorf("no language server serves %s here", filepath.Base(path))
	}
	type answer struct {
		errs []Diagnostic
		err  error
	}
	ch := make(chan answer, 1)
	if !s.submitBy(deadline, func(p *proc, err error) {
		if err == nil {
			var d *document
			var seq uint64
			if d, seq, _, err = s.open(p, path, id, text); err == nil {
				var errs []Diagnostic
				errs, err = s.errorsOf(p, d, seq, m.opt.StartTimeout)
				ch <- answer{errs, err}
				return
			}
		}
		ch <- answer{nil, err}
	}) {
		// Its queue stayed full until the deadline: pending, as a slow
		// answer is.
		return nil, false, nil
	}
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case a := <-ch:
		if errors.Is(a.err, errStale) {
			return nil, false, nil
		}
		return a.errs, a.err == nil, a.err
	case <-t.C:
		return nil, false, nil
	}
}

// Bounds of what the manager remembers of each session.
const (
	maxTouched         = 32
	maxTouchedSessions = 1024
)

// Touch notes that session changed path (absolute), for Touched.
func (m *Manager) Touch(session, path string) {
	if m == nil || session == "" {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	paths, seen := m.touched[session]
	if !seen {
		if len(m.order) >= maxTouchedSessions {
			delete(m.touched, m.order[0])
			m.order = m.order[1:]
		}
		m.order = append(m.order, session)
	}
	paths = slices.DeleteFunc(paths, func(p string) bool { return p == path })
	if len(paths) >= maxTouched {
		paths = paths[1:]
	}
	m.touched[session] = append(paths, path)
}

// Touched are the files session changed that a server serves, the
// most recent last.
func (m *Manager) Touched(session string) []string {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.touched[session])
}

// Status is one server as hostctl shows it.
type Status struct {
	Root      string `json:"root"`
	Language  string `json:"language"`
	Command   string `json:"command,omitempty"`
	State     string `json:"state"`
	PID       int    `json:"pid,omitempty"`
	RSSBytes  int64  `json:"rssBytes,omitempty"`
	Restarts  int    `json:"restarts"`
	Refreshes int    `json:"refreshes"`
	Documents int    `json:"documents"`
	IdleMs    int64  `json:"idleMs"`
	LastError string `json:"lastError,omitempty"`
}

// Status lists the servers, by root and language.
func (m *Manager) Status() []Status {
	if m == nil {
		return []Status{}
	}
	m.mu.Lock()
	all := make([]*server, 0, len(m.servers))
	for _, s := range m.servers {
		all = append(all, s)
	}
	m.mu.Unlock()
	out := make([]Status, 0, len(all))
	for _, s := range all {
		s.mu.Lock()
		out = append(out, Status{Root: s.root, Language: s.lang.name, Command: s.command, State: s.state, PID: s.pid, RSSBytes: s.rss,
			Restarts: s.restarts, Refreshes: s.refreshes, Documents: len(s.docs), IdleMs: time.Since(s.used).Milliseconds(), LastError: s.lastErr})
		s.mu.Unlock()
	}
	slices.SortFunc(out, func(a, b Status) int {
		if c := strings.Compare(a.Root, b.Root); c != 0 {
			return c
		}
		return strings.Compare(a.Language, b.Language)
	})
	return out
}

// janitorEvery is how often idle servers are shut down and memory is
// measured.
const janitorEvery = 2 * time.Second

// janitor shuts idle servers down and ends those over the memory bound.
func (m *Manager) janitor() {
	t := time.NewTicker(janitorEvery)
	defer t.Stop()
	for {
		select {
		case <-m.done:
			return
		case <-t.C:
		}
		m.mu.Lock()
		live := m.running()
		m.mu.Unlock()
		for _, s := range live {
			m.tend(s)
		}
	}
}

// tend shuts s down when idle, and ends it when over the memory bound.
func (m *Manager) tend(s *server) {
	s.mu.Lock()
	idle := s.state == StateReady && s.queued == 0 && time.Since(s.used) > m.opt.IdleTimeout
	pid := s.pid
	s.mu.Unlock()
	if idle {
		s.submit(nil)
		return
	}
	if pid == 0 {
		return
	}
	rss, ok := groupRSS(pid)
	if !ok {
		return
	}
	s.mu.Lock()
	s.rss = rss
	s.mu.Unlock()
	if rss > m.opt.MaxServerBytes {
		m.log.Warn("language server over its memory bound", zap.String("root", s.root), zap.String("language", s.lang.name), zap.Int64("rss", rss))
		s.mu.Lock()
		s.endedWhy = fmt.Sprintf("ended: it held %d MiB, over languageServers.maxServerBytes (%d MiB)", rss>>20, m.opt.MaxServerBytes>>20)
		s.mu.Unlock()
		killGroupOf(pid)
	}
}

// Close stops every server and waits for them.
func (m *Manager) Close() {
	if m == nil {
		return
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	m.closed = true
	close(m.done)
	all := make([]*server, 0, len(m.servers))
	for _, s := range m.servers {
		all = append(all, s)
	}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range all {
		wg.Go(func() { s.close() })
	}
	wg.Wait()
}
