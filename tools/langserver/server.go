package langserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"maps"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hostd-dev/hostd/internal/spawn"
	"github.com/sourcegraph/jsonrpc2"
	"go.uber.org/zap"
)

// Diagnostic is one error a language server reports in a file.
type Diagnostic struct {
	Line    int    `json:"line"` // 1-based, where it starts
	EndLine int    `json:"endLine"`
	Message string `json:"message"`
	Code    string `json:"code,omitempty"`
	Source  string `json:"source,omitempty"`
}

// ErrNoServer: no server was found for the language, or the
// configuration turned it off. A write or an edit says nothing of it.
var ErrNoServer = errors.New("no language server")

// Server states, as hostctl shows them.
const (
	StateStarting = "starting" // started, initialize not answered yet
	StateReady    = "ready"
	StateIdle     = "idle"    // shut down after idleMs unused; the next need starts it
	StateFailed   = "failed"  // did not start, or crashed more than maxRestarts times: not started again
	StateCrashed  = "crashed" // ended without being asked; the next need restarts it
	StateStopped  = "stopped" // the daemon is shutting down
)

// Bounds of one server's work that are not configuration.
const (
	maxOpenDocuments  = 64  // past it the least recently used is closed
	maxDiagnostics    = 200 // kept per document
	pushSettle        = 150 * time.Millisecond
	stderrTail        = 2048
	shutdownWait      = 2 * time.Second
	maxQueuedJobs     = 16
	messageClip       = 400
	tsserverCommandID = "typescript.tsserverRequest"
)

// document is a file as the server has it open.
type document struct {
	uri, path, langID string
	version           int
	text              string
	used              time.Time
	// The server's last push for it: its version (nil: not given), the
	// count of pushes when it came, and when.
	pushed        []lspDiagnostic
	pushedVersion *int
	pushSeq       uint64
	pushAt        time.Time
	// errs are the errors of version known (0: none known yet), found
	// when the server had been sent knownEdits texts: a file's errors
	// depend on the others', so they hold only while no other text
	// changed.
	errs       []Diagnostic
	known      int
	knownEdits uint64
}

// proc is one run of a server's process.
type proc struct {
	pid    int
	end    func() // ends the process and everything it started (its group)
	conn   *jsonrpc2.Conn
	exited chan struct{} // closed when the process has ended
	err    error         // why it ended, once exited is closed
	stderr *tailBuffer
	pull   bool // the server answers textDocument/diagnostic
	// asked: hostd ended it (idle, shutdown, a write that hung); an
	// end not asked for is a crash.
	asked atomic.Bool
	// overdue: watch ended it for taking too long.
	overdue atomic.Bool
}

// alive reports whether the process still runs.
func (p *proc) alive() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// server is one language server of one workspace root: its process
// (started on first need, restarted after a crash at most maxRestarts
// times), its open documents, and the one goroutine (run) that does
// everything that writes to the process, a job at a time, so a server
// that stops reading holds that goroutine only, never a tool call.
type server struct {
	m    *Manager
	root string
	lang *language
	jobs chan job
	quit chan struct{}
	gone chan struct{} // closed when run has returned

	mu       sync.Mutex // guards everything below
	state    string
	lastErr  string
	command  string
	restarts int
	pid      int
	rss      int64
	used     time.Time
	docs     map[string]*document
	pushes   uint64
	edits    uint64        // texts sent: every didOpen, didChange of another text and didClose
	notify   chan struct{} // closed and replaced at every push
	queued   int
	// behind are the files hostd wrote or removed whose news the
	// server's queue refused (it was full), by path: sent from disk
	// after the jobs queued before them (sync).
	behind   map[string]*missedFile
	room     chan struct{} // closed and replaced when a job leaves the queue
	current  *proc         // the process, once started: close ends it
	noServer bool          // failed for want of a command (ErrNoServer)
	crashed  bool          // the last process ended without being asked
	// stale is the diagnostic in which the running process said its
	// view of the workspace is stale (language.stale), "" when it has
	// not: before its next job the process is ended and started again
	// (a refresh, counted in refreshes, not a crash).
	stale     string
	refreshes int
	// wrote: the running process was told of a change hostd made on
	// disk. One that was not has read the workspace as it is: its word
	// that its view is stale is not taken (a refresh would say the
	// same), so while the program has an import cycle its errors are
	// given, and a refresh follows a write, at most one each.
	wrote    bool
	endedWhy string // why hostd ended it (a bound), when it did
	shutdown bool   // the manager ended it: jobs are refused
}

// job is work for the server's goroutine: run with a live process, or
// with the reason there is none.
type job func(p *proc, err error)

func newServer(m *Manager, root string, lang *language) *server {
	s := &server{m: m, root: root, lang: lang, jobs: make(chan job, maxQueuedJobs), quit: make(chan struct{}), gone: make(chan struct{}),
		state: StateIdle, docs: map[string]*document{}, behind: map[string]*missedFile{}, notify: make(chan struct{}), room: make(chan struct{}), used: time.Now()}
	go s.run()
	return s
}

// submit queues j; false when the queue is full (the server is stuck on
// earlier work) or the server was shut down.
func (s *server) submit(j job) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shutdown {
		return false
	}
	select {
	case s.jobs <- j:
		s.queued++
		s.used = time.Now()
		return true
	default:
		return false
	}
}

// submitBy queues j, waiting for room in the queue until deadline;
// false when there was none by then, or the server was shut down.
func (s *server) submitBy(deadline time.Time, j job) bool {
	if s.submit(j) {
		return true
	}
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	for {
		s.mu.Lock()
		room := s.room
		s.mu.Unlock()
		if s.submit(j) {
			return true
		}
		select {
		case <-room:
		case <-s.quit:
			return false
		case <-t.C:
			return false
		}
	}
}

// run is the server's goroutine.
func (s *server) run() {
	var p *proc
	defer func() {
		if p != nil {
			s.stop(p)
		}
		s.setState(StateStopped, "")
		close(s.gone)
	}()
	for {
		select {
		case <-s.quit:
			return
		case j := <-s.jobs:
			s.mu.Lock()
			s.queued--
			close(s.room)
			s.room = make(chan struct{})
			s.mu.Unlock()
			if j == nil { // idle: shut the process down
				if p != nil {
					s.stop(p)
					p = nil
					s.setState(StateIdle, "")
				}
				continue
			}
			if p != nil && s.isStale() {
				s.refresh(p)
				p = nil
			}
			var err error
			p, err = s.ensure(p)
			j(p, err)
			if err == nil {
				s.sync(p)
			}
		}
	}
}

// isStale reports whether the server said its view is stale.
func (s *server) isStale() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stale != ""
}

// tellingOfWrite notes that the running process is about to be told of
// a change hostd made on disk: from now on its word that its view is
// stale is taken.
func (s *server) tellingOfWrite() {
	s.mu.Lock()
	s.wrote = true
	s.mu.Unlock()
}

// refresh ends p, a process whose view of the workspace is stale, so
// that the next job starts one that reads the workspace as it is now.
func (s *server) refresh(p *proc) {
	s.mu.Lock()
	said := s.stale
	s.refreshes++
	s.mu.Unlock()
	s.m.log.Info("language server restarted: it said its view of the workspace is stale", zap.String("root", s.root), zap.String("language", s.lang.name), zap.String("said", said))
	s.stop(p)
}

// ensure returns a live process, starting one when there is none.
func (s *server) ensure(p *proc) (*proc, error) {
	if p != nil && p.alive() {
		select {
		case <-p.conn.DisconnectNotify():
			// The connection is closed but the process has not yet been
			// seen to exit (watch's kill is still waiting for it, or the
			// server wrote what is not LSP): end it and take this as the
			// end it is, so this need restarts it rather than calling
			// on a closed connection.
			s.kill(p)
		default:
			return p, nil
		}
	}
	s.mu.Lock()
	if p != nil && !s.shutdown {
		// It ended without being asked.
		s.crashed = true
		s.lastErr = p.reason()
		if s.endedWhy != "" {
			s.lastErr, s.endedWhy = s.endedWhy, ""
		}
		s.m.log.Warn("language server ended", zap.String("root", s.root), zap.String("language", s.lang.name), zap.String("error", s.lastErr))
	}
	if s.state == StateFailed {
		err := errors.New(s.lastErr)
		if s.noServer {
			err = fmt.Errorf("%w: %s", ErrNoServer, s.lastErr)
		}
		s.mu.Unlock()
		return nil, err
	}
	if s.crashed {
		if s.restarts >= s.m.opt.MaxRestarts {
			s.state = StateFailed
			s.lastErr = fmt.Sprintf("%s; not restarted: it ended %d times (languageServers.maxRestarts)", s.lastErr, s.restarts+1)
			err := errors.New(s.lastErr)
			s.mu.Unlock()
			return nil, err
		}
		s.restarts++
		s.crashed = false
	}
	s.state = StateStarting
	s.mu.Unlock()
	np, err := s.start()
	if err != nil {
		s.mu.Lock()
		s.state, s.lastErr, s.noServer = StateFailed, strings.TrimPrefix(err.Error(), ErrNoServer.Error()+": "), errors.Is(err, ErrNoServer)
		s.mu.Unlock()
		s.m.log.Warn("language server did not start", zap.String("root", s.root), zap.String("language", s.lang.name), zap.Error(err))
		return nil, err
	}
	s.mu.Lock()
	s.state, s.pid, s.endedWhy, s.stale, s.wrote = StateReady, np.pid, "", "", false
	clear(s.docs) // a new process has nothing open
	s.mu.Unlock()
	return np, nil
}

func (s *server) setState(state, lastErr string) {
	s.mu.Lock()
	s.state = state
	if lastErr != "" {
		s.lastErr = lastErr
	}
	s.pid, s.rss = 0, 0
	s.mu.Unlock()
}

// start runs the server's process and initializes it within the start-up
// deadline.
func (s *server) start() (*proc, error) {
	argv, why := findCommand(s.lang, s.root, s.m.opt.Servers)
	if argv == nil {
		return nil, fmt.Errorf("%w: %s", ErrNoServer, why)
	}
	s.mu.Lock()
	s.command = strings.Join(argv, " ")
	s.mu.Unlock()
	p := &proc{exited: make(chan struct{}), stderr: &tailBuffer{max: stderrTail}}
	var stdin io.WriteCloser
	var stdout io.ReadCloser
	var err error
	if sp := s.m.opt.Spawner; sp != nil {
		stdin, stdout, err = p.startSpawned(sp, s.root, argv)
	} else {
		stdin, stdout, err = p.startDirect(s.root, argv)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot start %s: %v", argv[0], err)
	}
	stream := jsonrpc2.NewBufferedStream(pipes{Reader: stdout, WriteCloser: stdin, out: stdout}, cappedCodec{max: s.m.opt.MaxFrameBytes})
	p.conn = jsonrpc2.NewConn(context.Background(), stream, jsonrpc2.HandlerWithError(s.handle), jsonrpc2.SetLogger(discard))
	// p.conn is set before p becomes current: pushed takes a push as the
	// running process's when it comes on current's connection.
	s.mu.Lock()
	s.current = p
	closing := s.shutdown
	s.mu.Unlock()
	if closing {
		p.asked.Store(true)
		p.end()
	}
	go func() {
		<-p.exited
		if !p.asked.Load() {
			s.mu.Lock()
			if s.state == StateReady {
				s.state, s.pid = StateCrashed, 0
				s.lastErr = p.reason()
			}
			s.mu.Unlock()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), s.m.opt.StartTimeout)
	defer cancel()
	var res initializeResult
	params := initializeParams{
		ProcessID:        os.Getpid(),
		ClientInfo:       clientInfo{Name: "hostd"},
		RootURI:          fileURI(s.root),
		WorkspaceFolders: []workspaceFolder{{URI: fileURI(s.root), Name: filepath.Base(s.root)}},
		Capabilities:     json.RawMessage(clientCapabilities),
	}
	err = s.watch(p, s.m.opt.StartTimeout, func() error { return p.conn.Call(ctx, "initialize", params, &res) })
	if err == nil {
		err = s.watch(p, s.m.opt.StartTimeout, func() error { return p.conn.Notify(ctx, "initialized", struct{}{}) })
	}
	if err != nil {
		if ctx.Err() != nil || p.overdue.Load() {
			err = fmt.Errorf("%s did not answer initialize within %v (languageServers.startMs)", filepath.Base(argv[0]), s.m.opt.StartTimeout)
		} else if !p.alive() || errors.Is(err, jsonrpc2.ErrClosed) {
			<-p.exited
			err = fmt.Errorf("%s ended while starting: %s", filepath.Base(argv[0]), p.reason())
		}
		s.kill(p)
		return nil, err
	}
	dp := bytes.TrimSpace(res.Capabilities.DiagnosticProvider)
	p.pull = !s.lang.tsserver && len(dp) > 0 && !bytes.Equal(dp, []byte("null")) && !bytes.Equal(dp, []byte("false"))
	return p, nil
}

// startDirect starts argv in dir from this process, in a process group
// of its own, and returns its stdin and stdout.
func (p *proc) startDirect(dir string, argv []string) (io.WriteCloser, io.ReadCloser, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	ownGroup(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	cmd.Stderr = p.stderr
	spawn.BeforeStart()
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	p.pid, p.end = cmd.Process.Pid, func() { killGroup(cmd) }
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	return stdin, stdout, nil
}

// startSpawned starts argv in dir through the daemon's process spawner
// (internal/spawn: the daemon forks nothing once it holds its socket),
// in a process group of its own, and returns its stdin and stdout.
func (p *proc) startSpawned(sp *spawn.Spawner, dir string, argv []string) (io.WriteCloser, io.ReadCloser, error) {
	c, err := sp.RunIn(dir, argv[0], argv)
	if err != nil {
		return nil, nil, err
	}
	p.pid = c.PID
	p.end = func() {
		killGroupOf(c.PID) // what it started too: tsserver
		c.Kill()
	}
	go func() {
		if st := c.Wait(p.stderr); st != "exit status 0" {
			p.err = errors.New(st)
		}
		close(p.exited)
	}()
	return c.Stdin, c.Stdout, nil
}

// watch runs f, a step that writes to or waits on p, and ends p when it
// takes longer than limit: a write to a server that stops reading
// blocks until its process ends.
func (s *server) watch(p *proc, limit time.Duration, f func() error) error {
	t := time.AfterFunc(limit, func() {
		s.mu.Lock()
		s.endedWhy = fmt.Sprintf("it took longer than %v to answer or to read what hostd sent (languageServers.startMs), and was ended", limit)
		s.mu.Unlock()
		p.overdue.Store(true)
		s.kill(p)
	})
	defer t.Stop()
	return f()
}

// reason says why a process ended, with the last of what it wrote to
// stderr.
func (p *proc) reason() string {
	msg := "it exited"
	if p.err != nil {
		msg = p.err.Error()
	}
	if tail := strings.TrimSpace(p.stderr.String()); tail != "" {
		if i := strings.LastIndexByte(tail, '\n'); i >= 0 {
			tail = tail[i+1:]
		}
		msg += ": " + clip(tail, 200)
	}
	return msg
}

// stop asks p to shut down, and ends it when it does not in time.
func (s *server) stop(p *proc) {
	p.asked.Store(true)
	if p.alive() {
		ctx, cancel := context.WithTimeout(context.Background(), shutdownWait)
		s.watch(p, shutdownWait, func() error {
			if err := p.conn.Call(ctx, "shutdown", nil, nil); err == nil {
				p.conn.Notify(ctx, "exit", nil)
			}
			return nil
		})
		cancel()
		select {
		case <-p.exited:
		case <-time.After(shutdownWait):
		}
	}
	s.kill(p)
}

// kill ends p's process and everything it started.
func (s *server) kill(p *proc) {
	p.end()
	p.conn.Close()
	<-p.exited
}

// handle answers what the server sends: diagnostics are kept for the
// documents hostd has open (a flood of them costs their parse, nothing
// more), the few requests a client must answer get empty answers.
func (s *server) handle(_ context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
	switch req.Method {
	case "textDocument/publishDiagnostics":
		var pd publishDiagnosticsParams
		if req.Params == nil || json.Unmarshal(*req.Params, &pd) != nil {
			return nil, nil
		}
		s.pushed(conn, pd)
		return nil, nil
	case "workspace/configuration":
		var cp configurationParams
		if req.Params != nil {
			json.Unmarshal(*req.Params, &cp)
		}
		return make([]any, len(cp.Items)), nil
	case "workspace/workspaceFolders":
		return []workspaceFolder{{URI: fileURI(s.root), Name: filepath.Base(s.root)}}, nil
	case "window/workDoneProgress/create", "client/registerCapability", "client/unregisterCapability",
		"window/showMessageRequest", "workspace/diagnostic/refresh", "workspace/semanticTokens/refresh",
		"workspace/inlayHint/refresh", "workspace/codeLens/refresh":
		return nil, nil
	}
	if req.Notif {
		return nil, nil
	}
	return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "hostd does not serve " + clip(req.Method, 80)}
}

// pushed keeps a push for an open document and wakes its waiters. A
// push of any file in which the running process says its view is stale
// marks the server stale.
func (s *server) pushed(conn *jsonrpc2.Conn, pd publishDiagnosticsParams) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lang.stale != "" && s.stale == "" && s.wrote && s.current != nil && s.current.conn == conn {
		for _, d := range pd.Diagnostics {
			if strings.Contains(d.Message, s.lang.stale) {
				s.stale = clip(d.Message, messageClip)
				break
			}
		}
	}
	d := s.docs[pd.URI]
	if d == nil {
		return
	}
	s.pushes++
	d.pushed = pd.Diagnostics[:min(len(pd.Diagnostics), maxDiagnostics)]
	d.pushedVersion, d.pushSeq, d.pushAt = pd.Version, s.pushes, time.Now()
	close(s.notify)
	s.notify = make(chan struct{})
}

// open makes the server hold text for path: opened, or changed when it
// held another text. It returns the document, and the count of pushes
// before the change was sent (a push after it may be for it); changed
// is false when the server already held text. A server that only pushes
// errors, and pushes again only those that changed, is sent the text it
// holds once more (a new version) when other texts changed since its
// errors were known: a push for that version is its word on them now.
func (s *server) open(p *proc, path, langID, text string) (d *document, seq uint64, changed bool, err error) {
	uri := fileURI(path)
	s.mu.Lock()
	d = s.docs[uri]
	seq = s.pushes
	now := time.Now()
	pushOnly := !s.lang.tsserver && !p.pull
	if d != nil && d.text == text && (!pushOnly || d.known == d.version && d.knownEdits == s.edits) {
		d.used = now
		s.mu.Unlock()
		return d, seq, false, nil
	}
	var method string
	var params any
	if d == nil || d.text != text {
		s.edits++
	}
	if d == nil {
		if len(s.docs) >= maxOpenDocuments {
			s.closeOldest(p)
		}
		d = &document{uri: uri, path: path, langID: langID, version: 1, text: text, used: now}
		s.docs[uri] = d
		method, params = "textDocument/didOpen", didOpenParams{TextDocument: textDocumentItem{URI: uri, LanguageID: langID, Version: 1, Text: text}}
	} else {
		d.version++
		d.text, d.used, d.known, d.errs = text, now, 0, nil
		method, params = "textDocument/didChange", didChangeParams{TextDocument: versionedTextDocumentIdentifier{URI: uri, Version: d.version}, ContentChanges: []contentChange{{Text: text}}}
	}
	s.mu.Unlock()
	err = s.watch(p, s.m.opt.StartTimeout, func() error { return p.conn.Notify(context.Background(), method, params) })
	return d, seq, true, err
}

// closeOldest closes the least recently used document (s.mu held).
func (s *server) closeOldest(p *proc) {
	var old *document
	for _, d := range s.docs {
		if old == nil || d.used.Before(old.used) {
			old = d
		}
	}
	if old != nil {
		delete(s.docs, old.uri)
		s.edits++
		go p.conn.Notify(context.Background(), "textDocument/didClose", didCloseParams{TextDocument: textDocumentIdentifier{URI: old.uri}})
	}
}

// missedFile is a file whose change the server was not told of.
type missedFile struct {
	langID  string
	created bool // new: reported as created when it is not open
	told    bool // reported as changed on disk (it was not open)
}

// maxMissed bounds the files remembered as missed; past it a change is
// not remembered (the server's view of that file may stay behind until
// it is written again).
const maxMissed = 4096

// noteMissed notes path's change (refused: the queue turned it away) or
// forgets an earlier refused one (a job now queued carries the news).
func (s *server) noteMissed(path, langID string, created, refused bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !refused {
		delete(s.behind, path)
		return
	}
	if f := s.behind[path]; f != nil {
		f.told = false
		return
	}
	if len(s.behind) >= maxMissed {
		s.m.log.Warn("language server too far behind to remember a change", zap.String("root", s.root), zap.String("path", path))
		return
	}
	s.behind[path] = &missedFile{langID: langID, created: created}
}

// sync tells the server, after a job, of the files whose news its queue
// refused, from what is on disk now: an open document is sent its text
// (or closed when the file is gone), and a file the server reads from
// disk is reported created, changed or deleted
// (workspace/didChangeWatchedFiles). They are forgotten once no job
// queued before them remains (one could still send an older text).
func (s *server) sync(p *proc) {
	s.mu.Lock()
	if len(s.behind) == 0 {
		s.mu.Unlock()
		return
	}
	paths := make(map[string]missedFile, len(s.behind))
	for path, f := range s.behind {
		paths[path] = *f
	}
	if s.queued == 0 {
		clear(s.behind)
	}
	s.mu.Unlock()
	s.tellingOfWrite()
	var events []fileEvent
	for _, path := range slices.Sorted(maps.Keys(paths)) {
		f := paths[path]
		uri := fileURI(path)
		b, err := os.ReadFile(path)
		s.mu.Lock()
		d, open := s.docs[uri]
		same := open && err == nil && d.text == string(b)
		s.mu.Unlock()
		typ := 0
		switch {
		case same:
		case err != nil:
			if open {
				s.close1(p, uri)
			}
			typ = fileDeleted
		case open:
			if d, _, changed, err := s.open(p, path, f.langID, string(b)); err == nil && changed {
				s.saved(p, d)
			}
		case f.created:
			typ = fileCreated
		default:
			typ = fileChanged
		}
		if typ != 0 && !f.told {
			events = append(events, fileEvent{URI: uri, Type: typ})
			s.mu.Lock()
			if g := s.behind[path]; g != nil {
				g.told = true
			}
			s.mu.Unlock()
		}
	}
	if len(events) == 0 {
		return
	}
	s.mu.Lock()
	s.edits++
	s.mu.Unlock()
	s.watch(p, s.m.opt.StartTimeout, func() error {
		return p.conn.Notify(context.Background(), "workspace/didChangeWatchedFiles", didChangeWatchedFilesParams{Changes: events})
	})
}

// close1 closes uri's document, when the server has it open.
func (s *server) close1(p *proc, uri string) {
	s.mu.Lock()
	_, open := s.docs[uri]
	delete(s.docs, uri)
	if open {
		s.edits++
	}
	s.mu.Unlock()
	if open {
		s.watch(p, s.m.opt.StartTimeout, func() error {
			return p.conn.Notify(context.Background(), "textDocument/didClose", didCloseParams{TextDocument: textDocumentIdentifier{URI: uri}})
		})
	}
}

// deleted tells the server the file at uri is gone from disk: every
// file's errors may change with it.
func (s *server) deleted(p *proc, uri string) {
	s.tellingOfWrite()
	s.mu.Lock()
	s.edits++
	s.mu.Unlock()
	s.watch(p, s.m.opt.StartTimeout, func() error {
		return p.conn.Notify(context.Background(), "workspace/didChangeWatchedFiles", didChangeWatchedFilesParams{Changes: []fileEvent{{URI: uri, Type: fileDeleted}}})
	})
}

// saved tells the server the document's text is now on disk.
func (s *server) saved(p *proc, d *document) error {
	return s.watch(p, s.m.opt.StartTimeout, func() error {
		return p.conn.Notify(context.Background(), "textDocument/didSave", didSaveParams{TextDocument: textDocumentIdentifier{URI: d.uri}})
	})
}

// errStale: the process said, while its errors were being found, that
// its view of the workspace is stale; they are not given (the answer is
// pending), and the next job starts it again.
var errStale = errors.New("the language server's view of the workspace is stale")

// errorsOf finds the errors of the version the server holds of d (sent
// after push count seq), by the server's way: a pull, tsserver's own
// requests, or the push for that version. ok false: none in time (the
// server is slow, or hung and ended).
func (s *server) errorsOf(p *proc, d *document, seq uint64, limit time.Duration) ([]Diagnostic, error) {
	s.mu.Lock()
	version, edits := d.version, s.edits
	if d.known == version && d.knownEdits == edits {
		errs := d.errs
		s.mu.Unlock()
		return errs, nil
	}
	s.mu.Unlock()
	var raw []lspDiagnostic
	var err error
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	switch {
	case s.lang.tsserver:
		raw, err = s.tsserverErrors(ctx, p, d)
	case p.pull:
		var rep documentDiagnosticReport
		err = p.conn.Call(ctx, "textDocument/diagnostic", documentDiagnosticParams{TextDocument: textDocumentIdentifier{URI: d.uri}}, &rep)
		raw = rep.Items
	default:
		raw, err = s.awaitPush(ctx, p, d, version, seq)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("no diagnostics within %v", limit)
		}
		return nil, err
	}
	errs := s.lang.errorsIn(raw)
	s.mu.Lock()
	if s.stale != "" {
		s.mu.Unlock()
		return nil, errStale
	}
	if d.version == version {
		d.errs, d.known, d.knownEdits = errs, version, edits
	}
	s.mu.Unlock()
	return errs, nil
}

// awaitPush waits for the server's push of version's diagnostics: one
// that names the version, or, from a server that names none, the last
// of the pushes after the change once they pause.
func (s *server) awaitPush(ctx context.Context, p *proc, d *document, version int, seq uint64) ([]lspDiagnostic, error) {
	for {
		s.mu.Lock()
		wake := s.notify
		var wait time.Duration = -1
		if d.pushSeq > seq {
			switch {
			case d.pushedVersion != nil && *d.pushedVersion == version:
				wait = 0
			case d.pushedVersion == nil:
				wait = max(0, pushSettle-time.Since(d.pushAt))
			}
		}
		pushed := d.pushed
		s.mu.Unlock()
		if wait == 0 {
			return pushed, nil
		}
		var settle <-chan time.Time
		if wait > 0 {
			settle = time.After(wait)
		}
		select {
		case <-wake:
		case <-settle:
		case <-p.exited:
			return nil, fmt.Errorf("the server ended: %s", p.reason())
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// tsserverErrors asks typescript-language-server's tsserver for the
// syntactic and semantic errors of d's file.
func (s *server) tsserverErrors(ctx context.Context, p *proc, d *document) ([]lspDiagnostic, error) {
	var out []lspDiagnostic
	for _, command := range []string{"syntacticDiagnosticsSync", "semanticDiagnosticsSync"} {
		var res json.RawMessage
		params := map[string]any{"command": tsserverCommandID, "arguments": []any{command, map[string]any{"file": d.path}}}
		if err := p.conn.Call(ctx, "workspace/executeCommand", params, &res); err != nil {
			return nil, err
		}
		var body []tsDiagnostic
		var wrapped struct {
			Body []tsDiagnostic `json:"body"`
		}
		if json.Unmarshal(res, &wrapped) == nil && wrapped.Body != nil {
			body = wrapped.Body
		} else if err := json.Unmarshal(res, &body); err != nil {
			return nil, fmt.Errorf("tsserver's answer to %s is not a list of diagnostics: %s", command, clip(string(res), 120))
		}
		for _, t := range body {
			sev := severityError
			if t.Category != "error" {
				sev = severityWarning
			}
			code, _ := json.Marshal(t.Code)
			out = append(out, lspDiagnostic{Range: lspRange{Start: position{Line: t.Start.Line - 1}, End: position{Line: t.End.Line - 1}},
				Severity: sev, Code: code, Source: "typescript", Message: t.Text})
		}
	}
	return out, nil
}

// tsDiagnostic is a diagnostic in tsserver's protocol (1-based lines).
type tsDiagnostic struct {
	Start    struct{ Line int } `json:"start"`
	End      struct{ Line int } `json:"end"`
	Text     string             `json:"text"`
	Code     int                `json:"code"`
	Category string             `json:"category"`
}

// errorsIn are the errors among a server's diagnostics of a file: none
// where the server says the file is in no package of its build
// (language.unbuilt), else those of errorsIn.
func (l *language) errorsIn(raw []lspDiagnostic) []Diagnostic {
	if l.unbuilt != "" {
		for _, r := range raw {
			if strings.Contains(r.Message, l.unbuilt) {
				return []Diagnostic{}
			}
		}
	}
	return errorsIn(raw)
}

// errorsIn are the errors among a server's diagnostics (a diagnostic
// without a severity counts as one), in line order.
func errorsIn(raw []lspDiagnostic) []Diagnostic {
	out := []Diagnostic{}
	for _, r := range raw {
		if r.Severity != 0 && r.Severity != severityError {
			continue
		}
		code := strings.Trim(string(r.Code), `"`)
		if code == "null" {
			code = ""
		}
		out = append(out, Diagnostic{Line: r.Range.Start.Line + 1, EndLine: max(r.Range.End.Line, r.Range.Start.Line) + 1,
			Message: clip(r.Message, messageClip), Code: clip(code, 40), Source: clip(r.Source, 40)})
	}
	slices.SortStableFunc(out, func(a, b Diagnostic) int { return a.Line - b.Line })
	return out
}

// fileURI is path's file URI.
func fileURI(path string) string {
	p := filepath.ToSlash(path)
	if runtime.GOOS == "windows" {
		p = "/" + p
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

// clip cuts s to n bytes at a rune boundary, its line breaks as spaces.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

// close stops the server for good and waits for its goroutine.
func (s *server) close() {
	s.mu.Lock()
	s.shutdown = true
	if p := s.current; p != nil && s.state == StateStarting {
		// Not initialized: nothing to shut down politely.
		p.asked.Store(true)
		p.end()
	}
	s.mu.Unlock()
	close(s.quit)
	<-s.gone
}

// discard drops jsonrpc2's own log lines (a server that ends mid-read):
// what matters reaches the server's state and hostd's log.
var discard = log.New(io.Discard, "", 0)
