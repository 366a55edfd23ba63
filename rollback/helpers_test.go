package rollback

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/zap/zaptest"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/review"
	"github.com/hostd-dev/hostd/workspace"
)

// fixture is a workspace and a store, with helpers that act as the tool
// layer does around a mutation.
type fixture struct {
	t        *testing.T
	ws       string
	stateDir string
	store    *review.Store
}

func newFixture(t *testing.T) *fixture {
	ws, err := filepath.EvalSymlinks(t.TempDir()) // the workspace's canonical root, as review records it
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, ws: ws, stateDir: t.TempDir()}
	f.open()
	t.Cleanup(func() { f.store.Close() })
	return f
}

func (f *fixture) open() {
	s, err := review.Open(f.stateDir, config.DefaultLimits(), zaptest.NewLogger(f.t))
	if err != nil {
		f.t.Fatal(err)
	}
	f.store = s
}

// restart closes the store and opens it again, as a daemon restart does.
func (f *fixture) restart() {
	f.t.Helper()
	if err := f.store.Close(); err != nil {
		f.t.Fatal(err)
	}
	f.open()
}

func (f *fixture) path(rel string) string { return filepath.Join(f.ws, rel) }

func (f *fixture) write(rel, content string, mode fs.FileMode) {
	f.t.Helper()
	p := f.path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		f.t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		f.t.Fatal(err)
	}
}

// state reads the live side of rel for a Change.
func (f *fixture) state(rel string) (data []byte, exists bool, mode fs.FileMode) {
	info, err := os.Stat(f.path(rel))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, 0o644 // the mode a new file gets
	}
	if err != nil {
		f.t.Fatal(err)
	}
	data, err = os.ReadFile(f.path(rel))
	if err != nil {
		f.t.Fatal(err)
	}
	return data, true, info.Mode().Perm()
}

// change is an Edit of rel, as it is now, to content (absent when nil).
func (f *fixture) change(rel string, content *string) review.Edit {
	f.t.Helper()
	data, exists, mode := f.state(rel)
	ws, err := workspace.New(f.ws, "", nil)
	if err != nil {
		f.t.Fatal(err)
	}
	p, err := ws.Resolve(f.path(rel), workspace.Write)
	if err != nil {
		f.t.Fatal(err)
	}
	e := review.Edit{Path: p, Before: data, Existed: exists, Mode: mode, Remove: content == nil}
	if content != nil {
		e.After = []byte(*content)
	}
	return e
}

// mutate runs one recorded mutation as the tools do, through review's
// one change API.
func (f *fixture) mutate(session, callID string, edits ...review.Edit) {
	f.t.Helper()
	f.apply(review.Call{Session: session, ToolCallID: callID, Tool: "edit"}, edits)
}

// apply makes edits with Store.Apply under call in the fixture's
// workspace, the writes before the removals (so a move never leaves its
// content nowhere).
func (f *fixture) apply(call review.Call, edits []review.Edit) {
	f.t.Helper()
	var writes, removals []review.Edit
	for _, e := range edits {
		if e.Remove {
			removals = append(removals, e)
		} else {
			writes = append(writes, e)
		}
	}
	call.Workspace, call.MaxLanded = f.ws, 1<<20
	if _, err := f.store.Apply(call, append(writes, removals...)); err != nil {
		f.t.Fatal(err)
	}
}

// want asserts rel's content and mode, or its absence when content is nil.
func (f *fixture) want(rel string, content *string, mode fs.FileMode) {
	f.t.Helper()
	data, exists, got := f.state(rel)
	switch {
	case content == nil && exists:
		f.t.Errorf("%s exists with %q, want it absent", rel, data)
	case content == nil:
	case !exists:
		f.t.Errorf("%s is absent, want %q", rel, *content)
	case !bytes.Equal(data, []byte(*content)) || got != mode:
		f.t.Errorf("%s holds %q mode %04o, want %q mode %04o", rel, data, got, *content, mode)
	}
}

func (f *fixture) rolledBack(session, callID string) []bool {
	f.t.Helper()
	entries, err := f.store.List(session, "")
	if err != nil {
		f.t.Fatal(err)
	}
	var out []bool
	for _, e := range entries {
		if e.ToolCallID == callID {
			out = append(out, e.RolledBack)
		}
	}
	return out
}

func str(s string) *string { return &s }
