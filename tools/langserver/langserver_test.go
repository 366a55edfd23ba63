package langserver

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/internal/testenv"
)

// far is a deadline no answer of a behaving server comes near; a test
// that waits on it waits for an event, not for time.
func far() time.Time { return time.Now().Add(2 * time.Minute) }

// fake returns a manager whose "go" server is this test binary in mode.
func fake(t *testing.T, mode string, opt Options) *Manager {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(fakeEnv, mode)
	opt.Servers = map[string][]string{"go": {exe}}
	m := New(opt)
	t.Cleanup(m.Close)
	return m
}

// change runs one Changed and waits for it.
func change(t *testing.T, m *Manager, root, path, before string, hadBefore bool, after string) (b, a []Diagnostic, err error) {
	t.Helper()
	if err := os.WriteFile(path, []byte(after), 0o644); err != nil {
		t.Fatal(err)
	}
	c := m.Changed(root, path, before, hadBefore, after)
	if c == nil {
		t.Fatalf("no server serves %s", path)
	}
	b, a, ok, err := c.Wait(far())
	if !ok && err == nil {
		t.Fatalf("no answer for %s by the far deadline", path)
	}
	return b, a, err
}

func lines(ds []Diagnostic) []int {
	out := []int{}
	for _, d := range ds {
		out = append(out, d.Line)
	}
	return out
}

func status(t *testing.T, m *Manager) Status {
	t.Helper()
	st := m.Status()
	if len(st) != 1 {
		t.Fatalf("status: want one server, got %+v", st)
	}
	return st[0]
}

func TestFakeServerErrorsOfEachVersion(t *testing.T) {
	m := fake(t, "ok", Options{})
	root := testenv.TempDir(t)
	p := filepath.Join(root, "a.go")
	b, a, err := change(t, m, root, p, "", false, "one\nERR two\n")
	if err != nil || b != nil || !slices.Equal(lines(a), []int{2}) {
		t.Fatalf("new file: before %v after %v err %v; want no before, an error at line 2", b, a, err)
	}
	b, a, err = change(t, m, root, p, "one\nERR two\n", true, "zero\none\nERR two\nERR three\n")
	if err != nil || !slices.Equal(lines(b), []int{2}) || !slices.Equal(lines(a), []int{3, 4}) {
		t.Fatalf("change: before %v after %v err %v", b, a, err)
	}
	if !strings.Contains(a[1].Message, "ERR three") {
		t.Fatalf("message %q", a[1].Message)
	}
	errs, ok, err := m.Errors(root, p, "zero\none\nERR two\nERR three\n", far())
	if !ok || err != nil || !slices.Equal(lines(errs), []int{3, 4}) {
		t.Fatalf("Errors: %v %v %v", errs, ok, err)
	}
	if st := status(t, m); st.State != StateReady || st.Documents != 1 || st.Restarts != 0 || st.PID == 0 {
		t.Fatalf("status %+v", st)
	}
}

func TestCrashingServerIsRestartedAFewTimesThenFailed(t *testing.T) {
	m := fake(t, "crash", Options{MaxRestarts: 2})
	root := testenv.TempDir(t)
	p := filepath.Join(root, "a.go")
	for i := range 4 {
		_, _, err := change(t, m, root, p, "", false, "x\n")
		if err == nil {
			t.Fatalf("change %d: no error from a server that crashes", i)
		}
	}
	st := status(t, m)
	if st.State != StateFailed || st.Restarts != 2 || !strings.Contains(st.LastError, "crashed on a document") || !strings.Contains(st.LastError, "maxRestarts") {
		t.Fatalf("status %+v: want failed after 2 restarts, naming the crash", st)
	}
}

func TestServerThatEndsAtStartIsFailed(t *testing.T) {
	m := fake(t, "crashstart", Options{})
	root := testenv.TempDir(t)
	_, _, err := change(t, m, root, filepath.Join(root, "a.go"), "", false, "x\n")
	if err == nil || !strings.Contains(err.Error(), "cannot start") {
		t.Fatalf("err %v: want the server's own words", err)
	}
	if st := status(t, m); st.State != StateFailed {
		t.Fatalf("status %+v", st)
	}
}

func TestMissingServer(t *testing.T) {
	m := New(Options{Servers: map[string][]string{"go": {"hostd-test-no-such-language-server"}}})
	defer m.Close()
	root := testenv.TempDir(t)
	_, _, err := change(t, m, root, filepath.Join(root, "a.go"), "", false, "x\n")
	if err == nil || !strings.Contains(err.Error(), "not on the PATH") {
		t.Fatalf("err %v", err)
	}
	if st := status(t, m); st.State != StateFailed || !strings.Contains(st.LastError, "not on the PATH") {
		t.Fatalf("status %+v", st)
	}
}

func TestServerTurnedOff(t *testing.T) {
	root := testenv.TempDir(t)
	m := New(Options{Servers: map[string][]string{"go": {}}, Off: []string{root}})
	defer m.Close()
	if m.Serves(root, filepath.Join(root, "a.py")) || m.Serves(filepath.Join(root, "sub"), filepath.Join(root, "sub", "a.py")) {
		t.Fatal("a root turned off is served")
	}
	if !m.Serves(root+"x", filepath.Join(root+"x", "a.py")) {
		t.Fatal("a sibling of a root turned off is not served")
	}
	if c := m.Changed(root, filepath.Join(root, "a.txt"), "", false, "x"); c != nil {
		t.Fatal("a file of no known language is served")
	}
	var nilM *Manager
	if nilM.Changed(root, filepath.Join(root, "a.go"), "", false, "x") != nil || len(nilM.Status()) != 0 {
		t.Fatal("a nil manager serves")
	}
	other := testenv.TempDir(t)
	_, _, err := change(t, m, other, filepath.Join(other, "a.go"), "", false, "x\n")
	if err == nil || !strings.Contains(err.Error(), "servers.go is []") {
		t.Fatalf("err %v: want the language turned off", err)
	}
}

// A server that never answers: the caller's wait ends at its deadline
// (pending), and the start-up deadline ends the server.
func TestHungServerDelaysNoCall(t *testing.T) {
	m := fake(t, "hang", Options{StartTimeout: 300 * time.Millisecond})
	root := testenv.TempDir(t)
	p := filepath.Join(root, "a.go")
	c := m.Changed(root, p, "", false, "x\n")
	if _, _, ok, err := c.Wait(time.Now()); ok || err != nil {
		t.Fatalf("an already passed deadline: ok %v err %v; want pending", ok, err)
	}
	<-c.done
	if c.err == nil || !strings.Contains(c.err.Error(), "did not answer initialize") {
		t.Fatalf("err %v", c.err)
	}
	if st := status(t, m); st.State != StateFailed {
		t.Fatalf("status %+v", st)
	}
}

// A server that stops reading: a document larger than a pipe holds
// blocks the write, until the bound ends the server.
func TestStalledServerIsEnded(t *testing.T) {
	m := fake(t, "stall", Options{StartTimeout: 500 * time.Millisecond, MaxRestarts: 1})
	root := testenv.TempDir(t)
	big := strings.Repeat("a line of a large file\n", 200000)
	_, _, err := change(t, m, root, filepath.Join(root, "a.go"), "", false, big)
	if err == nil {
		t.Fatal("no error from a server that stopped reading")
	}
	// The next need restarts it.
	_, _, err = change(t, m, root, filepath.Join(root, "b.go"), "", false, "x\n")
	if err == nil {
		t.Fatal("no error from a restarted server that stopped reading")
	}
	st := status(t, m)
	if st.Restarts != 1 || !strings.Contains(st.LastError, "read what hostd sent") {
		t.Fatalf("status %+v", st)
	}
}

func TestFloodingServer(t *testing.T) {
	m := fake(t, "flood", Options{})
	root := testenv.TempDir(t)
	p := filepath.Join(root, "a.go")
	for i := range 3 {
		_, a, err := change(t, m, root, p, "", false, strings.Repeat("x\n", i)+"ERR\n")
		if err != nil || !slices.Equal(lines(a), []int{i + 1}) {
			t.Fatalf("%d: after %v err %v", i, a, err)
		}
	}
	if st := status(t, m); st.Documents != 1 || st.State != StateReady {
		t.Fatalf("status %+v: the pushes for files nobody opened were kept", st)
	}
}

func TestIdleServerIsShutDownAndStartedAgain(t *testing.T) {
	m := fake(t, "ok", Options{IdleTimeout: time.Millisecond})
	root := testenv.TempDir(t)
	p := filepath.Join(root, "a.go")
	if _, _, err := change(t, m, root, p, "", false, "x\n"); err != nil {
		t.Fatal(err)
	}
	testenv.Until(t, 30*time.Second, "the idle server to be shut down", func() bool { return status(t, m).State == StateIdle })
	if _, a, err := change(t, m, root, p, "x\n", true, "ERR\n"); err != nil || !slices.Equal(lines(a), []int{1}) {
		t.Fatalf("after idle: %v %v", a, err)
	}
	if st := status(t, m); st.State != StateReady || st.Restarts != 0 {
		t.Fatalf("status %+v: an idle shutdown is not a restart", st)
	}
}

func TestServerCountBound(t *testing.T) {
	m := fake(t, "ok", Options{MaxServers: 1})
	r1, r2 := testenv.TempDir(t), testenv.TempDir(t)
	if _, _, err := change(t, m, r1, filepath.Join(r1, "a.go"), "", false, "x\n"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := change(t, m, r2, filepath.Join(r2, "a.go"), "", false, "x\n"); err != nil {
		t.Fatal(err)
	}
	// The first one is shut down by its own goroutine: wait for it.
	testenv.Until(t, 30*time.Second, "the first server to be shut down and the second ready", func() bool {
		st := m.Status()
		if len(st) != 2 {
			t.Fatalf("status %+v: want two servers", st)
		}
		return st[0].State == StateIdle && st[1].State == StateReady || st[1].State == StateIdle && st[0].State == StateReady
	})
}

// The config file's defaults are the ones New applies to zero options,
// and the ones docs/config.md states.
func TestConfigDefaultsAreTheManagers(t *testing.T) {
	d := config.DefaultLanguageServers()
	if !d.Enabled || d.MaxServers != DefaultMaxServers || d.MaxServerBytes != DefaultMaxServerBytes ||
		time.Duration(d.StartMs)*time.Millisecond != DefaultStartTimeout || time.Duration(d.IdleMs)*time.Millisecond != DefaultIdleTimeout ||
		d.MaxRestarts != DefaultMaxRestarts || time.Duration(d.DiagnosticsMs)*time.Millisecond != DefaultDiagnosticsWait {
		t.Fatalf("config %+v differs from langserver's defaults", d)
	}
}

// A removed file's document is closed: the server no longer has it.
func TestRemovedClosesTheDocument(t *testing.T) {
	m := fake(t, "ok", Options{})
	root := testenv.TempDir(t)
	a, b := filepath.Join(root, "a.go"), filepath.Join(root, "b.go")
	change(t, m, root, a, "", false, "x\n")
	change(t, m, root, b, "", false, "y\n")
	m.Removed(root, a)
	// The removal is done before the next job runs.
	if _, _, err := change(t, m, root, b, "y\n", true, "z\n"); err != nil {
		t.Fatal(err)
	}
	if st := status(t, m); st.Documents != 1 {
		t.Fatalf("status %+v: the removed file is still open", st)
	}
}

// hold makes m's server of root busy: one job it runs until release is
// closed, and a full queue behind it.
func hold(t *testing.T, m *Manager, root string) (release chan struct{}) {
	t.Helper()
	m.mu.Lock()
	s := m.servers[key{root, "go"}]
	m.mu.Unlock()
	release = make(chan struct{})
	if s == nil || !s.submit(func(*proc, error) { <-release }) {
		t.Fatal("the holding job was refused")
	}
	for s.submit(func(*proc, error) {}) {
	}
	return release
}

// A server whose queue is full refuses a write's check (busy), but not
// its news: once it is free it holds the text on disk of the file it had
// open. The diagnostics of a busy server are pending, not failed, and
// come once it has room.
func TestBusyServerStillLearnsOfWrites(t *testing.T) {
	m := fake(t, "ok", Options{})
	root := testenv.TempDir(t)
	a, b := filepath.Join(root, "a.go"), filepath.Join(root, "b.go")
	if _, _, err := change(t, m, root, a, "", false, "one\n"); err != nil {
		t.Fatal(err)
	}
	release := hold(t, m, root)
	if err := os.WriteFile(a, []byte("one\nERR two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, ok, err := m.Changed(root, a, "one\n", true, "one\nERR two\n").Wait(far()); ok || err == nil || !strings.Contains(err.Error(), "busy") {
		t.Fatalf("a write to a busy server: ok %v err %v; want busy", ok, err)
	}
	// Its queue stays full past this deadline: pending, no error.
	if errs, ok, err := m.Errors(root, b, "ERR b\n", time.Now()); ok || err != nil || errs != nil {
		t.Fatalf("Errors of a busy server: %v %v %v; want pending", errs, ok, err)
	}
	type answer struct {
		errs []Diagnostic
		ok   bool
		err  error
	}
	asked := make(chan answer, 1)
	go func() {
		errs, ok, err := m.Errors(root, b, "ERR b\n", far())
		asked <- answer{errs, ok, err}
	}()
	close(release)
	if got := <-asked; !got.ok || got.err != nil || !slices.Equal(lines(got.errs), []int{1}) {
		t.Fatalf("Errors once the server is free: %+v", got)
	}
	m.mu.Lock()
	s := m.servers[key{root, "go"}]
	m.mu.Unlock()
	s.mu.Lock()
	d := s.docs[fileURI(a)]
	var held string
	if d != nil {
		held = d.text
	}
	s.mu.Unlock()
	if held != "one\nERR two\n" {
		t.Fatalf("the server holds %q of a.go; want its text on disk", held)
	}
	errs, ok, err := m.Errors(root, a, "one\nERR two\n", far())
	if !ok || err != nil || !slices.Equal(lines(errs), []int{2}) {
		t.Fatalf("a.go: %v %v %v", errs, ok, err)
	}
}

// A server that says its view of the workspace is stale after a write
// (gopls after an import cycle, golang/go#46667) gives no answer from
// that view: the check is pending, and the next need starts it again
// (a refresh, not a restart after a crash), which answers from disk.
func TestStaleServerIsStartedAgain(t *testing.T) {
	m := fake(t, "stale", Options{MaxRestarts: 0})
	root := testenv.TempDir(t)
	p := filepath.Join(root, "a.go")
	if _, a, err := change(t, m, root, p, "", false, "x\n"); err != nil || len(a) != 0 {
		t.Fatalf("new file: %v %v", a, err)
	}
	if err := os.WriteFile(p, []byte("ERR\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b, a, ok, err := m.Changed(root, p, "x\n", true, "ERR\n").Wait(far())
	if ok || err != nil || b != nil || a != nil {
		t.Fatalf("change seen by a stale view: before %v after %v ok %v err %v; want pending", b, a, ok, err)
	}
	errs, ok, err := m.Errors(root, p, "ERR\n", far())
	if !ok || err != nil || !slices.Equal(lines(errs), []int{1}) || strings.Contains(errs[0].Message, "missing metadata") {
		t.Fatalf("after the refresh: %v %v %v; want the file's one error, from a fresh view", errs, ok, err)
	}
	if st := status(t, m); st.State != StateReady || st.Refreshes != 1 || st.Restarts != 0 || st.LastError != "" {
		t.Fatalf("status %+v: want ready after one refresh, no restart", st)
	}
}

// A server that says its view is stale before it was told of any write
// has read the workspace as it is (the program has an import cycle): its
// answer is given, and it is started again at most once per write.
func TestServerStaleFromItsStartIsBelieved(t *testing.T) {
	m := fake(t, "stalealways", Options{})
	root := testenv.TempDir(t)
	p := filepath.Join(root, "a.go")
	if err := os.WriteFile(p, []byte("ERR\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		errs, ok, err := m.Errors(root, p, "ERR\n", far())
		if !ok || err != nil || len(errs) != 2 {
			t.Fatalf("ask %d of a fresh view: %v %v %v; want its two errors", i, errs, ok, err)
		}
	}
	if st := status(t, m); st.Refreshes != 0 {
		t.Fatalf("status %+v: refreshed with no write", st)
	}
	prev := "ERR\n"
	for i := range 2 {
		text := strings.Repeat("x\n", i+1) + "ERR\n"
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, ok, err := m.Changed(root, p, prev, true, text).Wait(far()); ok || err != nil {
			t.Fatalf("write %d: ok %v err %v; want pending", i, ok, err)
		}
		for range 2 {
			if errs, ok, err := m.Errors(root, p, text, far()); !ok || err != nil || len(errs) != 2 {
				t.Fatalf("write %d: %v %v %v", i, errs, ok, err)
			}
		}
		prev = text
	}
	if st := status(t, m); st.Refreshes != 2 || st.Restarts != 0 || st.State != StateReady {
		t.Fatalf("status %+v: want one refresh per write", st)
	}
}
