package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/review"
	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/session"
	"github.com/hostd-dev/hostd/workspace"
)

// editEnv is a workspace with one session and an executor, for driving the
// edit tool as the daemon does.
type editEnv struct {
	t    testing.TB
	root string
	m    *session.Manager
	s    *session.Session
	x    *Executor
	lim  config.Limits
}

func newEditEnv(t *testing.T) *editEnv {
	t.Helper()
	return newEditEnvLimits(t, config.DefaultLimits())
}

func newEditEnvLimits(t testing.TB, lim config.Limits) *editEnv {
	t.Helper()
	root := t.TempDir()
	ws, err := workspace.New(root, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	m := session.NewManager(lim)
	// The session's edit results are full, so the tests read every
	// changed line; the compact default is edit_compact_test.go's.
	s, err := m.CreateWith("", ws, session.Prefs{EditResult: session.FormFull})
	if err != nil {
		t.Fatal(err)
	}
	x := NewExecutor(Options{Sessions: m, Limits: lim, Tools: []Tool{Edit{}}})
	return &editEnv{t: t, root: ws.Root(), m: m, s: s, x: x, lim: lim}
}

func (e *editEnv) write(rel, content string) {
	e.t.Helper()
	p := filepath.Join(e.root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

func (e *editEnv) file(rel string) string {
	e.t.Helper()
	b, err := os.ReadFile(filepath.Join(e.root, rel))
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}

func (e *editEnv) exists(rel string) bool {
	_, err := os.Lstat(filepath.Join(e.root, rel))
	return err == nil
}

// show records the file as a producer that displayed lines from..to would
// (to < from: nothing displayed, as grep's count mode), returning its tag.
func (e *editEnv) show(rel string, from, to int) string {
	e.t.Helper()
	return e.showIn(e.s, rel, from, to)
}

func (e *editEnv) showIn(s *session.Session, rel string, from, to int) string {
	e.t.Helper()
	st := s.State()
	p, err := st.Workspace.Resolve(rel, workspace.Read)
	if err != nil {
		e.t.Fatal(err)
	}
	raw, err := os.ReadFile(p.Abs)
	if err != nil {
		e.t.Fatal(err)
	}
	txt, err := workspace.Decode(raw)
	if err != nil {
		e.t.Fatal(err)
	}
	lines := workspace.Lines(txt.Body)
	return st.Store.Record(p.Abs, session.Snapshot{
		Digest: workspace.Sum(txt.Body), Text: txt.Body, HasText: true,
		Lines: len(lines), Bytes: int64(len(raw)), Seen: session.Span(from, min(to, len(lines))),
	})
}

// showAll records the whole file as seen.
func (e *editEnv) showAll(rel string) string { return e.show(rel, 1, 1<<30) }

func (e *editEnv) edit(path, tag, ops string) *wire.EditResult {
	e.t.Helper()
	return e.editAs(e.s, "", path, tag, ops)
}

func (e *editEnv) editAs(s *session.Session, prompt, path, tag, ops string) *wire.EditResult {
	e.t.Helper()
	args, _ := json.Marshal(map[string]string{"path": path, "tag": tag, "ops": ops})
	out, err := e.x.Execute(context.Background(), Request{SessionID: s.ID, Tool: "edit", Args: args, PromptID: prompt})
	if err != nil {
		e.t.Fatal(err)
	}
	return out.(*wire.EditResult)
}

func wantOK(t *testing.T, r *wire.EditResult) {
	t.Helper()
	if !r.OK {
		t.Fatalf("edit failed: %s", r.Content)
	}
}

func wantCode(t *testing.T, r *wire.EditResult, code string) {
	t.Helper()
	if r.OK || r.Error == nil || r.Error.Code != code {
		t.Fatalf("want %s, got ok=%v content:\n%s", code, r.OK, r.Content)
	}
}

func wantFile(t *testing.T, e *editEnv, rel, want string) {
	t.Helper()
	if got := e.file(rel); got != want {
		t.Fatalf("%s is\n%q\nwant\n%q", rel, got, want)
	}
}

func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString("line ")
		b.WriteString(strconv.Itoa(i))
		b.WriteString("\n")
	}
	return b.String()
}

func snapOf(body string) session.Snapshot {
	lines := workspace.Lines(body)
	return session.Snapshot{Digest: workspace.Sum(body), Text: body, HasText: true, Lines: len(lines), Bytes: int64(len(body)), Seen: session.Span(1, len(lines))}
}

// reviewedExecutor is an executor of every builtin tool for m that records
// into a review store of its own, closed when the test ends.
func reviewedExecutor(t *testing.T, m *session.Manager, lim config.Limits) (*Executor, *review.Store) {
	t.Helper()
	store, err := review.Open(t.TempDir(), lim, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return NewExecutor(Options{Sessions: m, Limits: lim, Review: store, Tools: Builtin()}), store
}
