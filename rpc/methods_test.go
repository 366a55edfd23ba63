package rpc

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/session"
	"github.com/hostd-dev/hostd/workspace"
)

func TestHostInfoReportsTheLimitsInForce(t *testing.T) {
	lim := config.DefaultLimits()
	lim.MaxSessions = 7
	h := newHarness(t, func(o *Options) { o.Limits = lim })
	var raw map[string]json.RawMessage
	mustCall(t, h.client(), "host.info", nil, &raw)

	var info wire.HostInfo
	b, _ := json.Marshal(raw)
	json.Unmarshal(b, &info)
	if info.Name != "hostd" || info.ProtocolVersion != 1 || info.PID != os.Getpid() || info.Version != "test" || info.StartedAt.IsZero() {
		t.Errorf("identity: %+v", info)
	}
	if string(raw["grammars"]) != "[]" {
		t.Errorf("grammars = %s, want [] until block grammars exist", raw["grammars"])
	}
	var limits map[string]any
	json.Unmarshal(raw["limits"], &limits)
	if limits["maxSessions"] != 7.0 {
		t.Errorf("limits.maxSessions = %v, want the configured 7", limits["maxSessions"])
	}
	// Every limit is reported, by the name the config file uses.
	for i := range reflect.TypeFor[config.Limits]().NumField() {
		name, _, _ := strings.Cut(reflect.TypeFor[config.Limits]().Field(i).Tag.Get("json"), ",")
		if _, ok := limits[name]; !ok {
			t.Errorf("limits lacks %s", name)
		}
	}
}

func TestHostInfoGrammarsComeFromTheCaller(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.Grammars, o.Commit = []string{"go", "rust"}, "0123abcd+modified" })
	var info wire.HostInfo
	mustCall(t, h.client(), "host.info", nil, &info)
	if !reflect.DeepEqual(info.Grammars, []string{"go", "rust"}) {
		t.Errorf("grammars = %v", info.Grammars)
	}
	if info.Commit != "0123abcd+modified" {
		t.Errorf("commit = %q", info.Commit)
	}
}

func TestSessionLifecycle(t *testing.T) {
	h := newHarness(t)
	c := h.client()
	ws, other, scratch := t.TempDir(), t.TempDir(), t.TempDir()

	var ref wire.SessionRef
	mustCall(t, c, "session.create", wire.SessionCreateParams{Workspace: ws, Scratch: scratch, SessionID: "agent-1"}, &ref)
	if ref.SessionID != "agent-1" || ref.Workspace != canon(t, ws) {
		t.Fatalf("create: %+v", ref)
	}
	var gen wire.SessionRef
	mustCall(t, c, "session.create", wire.SessionCreateParams{Workspace: ws}, &gen)
	if gen.SessionID == "" || gen.SessionID == "agent-1" {
		t.Errorf("generated id %q", gen.SessionID)
	}

	// Re-attaching with the same id and workspace finds the same session.
	var again wire.SessionRef
	mustCall(t, c, "session.create", wire.SessionCreateParams{Workspace: ws, SessionID: "agent-1"}, &again)
	if again != ref {
		t.Errorf("re-attach: %+v, want %+v", again, ref)
	}
	// The same id on another workspace is a conflict, not a silent switch.
	wantError(t, call(t, c, "session.create", wire.SessionCreateParams{Workspace: other, SessionID: "agent-1"}, nil), wire.CodeInvalidParams, "setWorkspace")

	var list wire.SessionList
	mustCall(t, c, "session.list", nil, &list)
	if len(list.Sessions) != 2 || list.Sessions[0].SessionID != "agent-1" {
		t.Fatalf("list: %+v", list)
	}

	// setWorkspace drops the snapshot store and registers and keeps the
	// scratch root.
	sess, _ := h.sess.Get("agent-1")
	sess.State().Store.Record(filepath.Join(ref.Workspace, "a.txt"), session.Snapshot{Digest: workspace.Sum("a\n"), Text: "a\n", HasText: true, Lines: 1, Bytes: 2, Seen: session.Span(1, 1)})
	sess.State().Registers.Set("fn", []string{"x"})
	mustCall(t, c, "session.setWorkspace", wire.SetWorkspaceParams{SessionID: "agent-1", Workspace: other}, &ref)
	if ref.Workspace != canon(t, other) {
		t.Errorf("setWorkspace: %+v", ref)
	}
	var dump wire.SessionDump
	mustCall(t, c, "debug.session", wire.SessionIDParams{SessionID: "agent-1"}, &dump)
	if len(dump.Paths) != 0 || len(dump.Registers) != 0 || dump.Workspace != canon(t, other) {
		t.Errorf("after setWorkspace the store and registers must be empty: %+v", dump)
	}
	roots := sess.State().Workspace.Roots()
	if len(roots) != 2 || roots[1].Kind != workspace.KindScratch || roots[1].Path != canon(t, scratch) {
		t.Errorf("scratch root not carried over: %+v", roots)
	}

	mustCall(t, c, "session.delete", wire.SessionIDParams{SessionID: "agent-1"}, nil)
	wantError(t, call(t, c, "session.delete", wire.SessionIDParams{SessionID: "agent-1"}, nil), wire.CodeSessionNotFound, "agent-1")
	mustCall(t, c, "session.list", nil, &list)
	if len(list.Sessions) != 1 {
		t.Errorf("after delete: %+v", list)
	}
}

func TestSessionListIsAnEmptyArrayNotNull(t *testing.T) {
	h := newHarness(t)
	var raw json.RawMessage
	mustCall(t, h.client(), "session.list", nil, &raw)
	if string(raw) != `{"sessions":[]}` {
		t.Errorf("session.list = %s", raw)
	}
}

func TestSessionsBelongToTheDaemonNotTheConnection(t *testing.T) {
	h := newHarness(t)
	a := h.client()
	var ref wire.SessionRef
	mustCall(t, a, "session.create", wire.SessionCreateParams{Workspace: t.TempDir()}, &ref)
	a.Close()
	var list wire.SessionList
	mustCall(t, h.client(), "session.list", nil, &list)
	if len(list.Sessions) != 1 || list.Sessions[0].SessionID != ref.SessionID {
		t.Errorf("a reconnecting client must find its session: %+v", list)
	}
}

func TestDomainErrorsMapToTheirCodes(t *testing.T) {
	lim := config.DefaultLimits()
	lim.MaxSessions = 1
	h := newHarness(t, func(o *Options) { o.Limits = lim })
	c := h.client()
	ws := t.TempDir()
	file := filepath.Join(ws, "file.txt")
	os.WriteFile(file, []byte("x"), 0o644)
	mustCall(t, c, "session.create", wire.SessionCreateParams{Workspace: ws, SessionID: "s1"}, nil)

	tests := []struct {
		name   string
		method string
		params any
		code   wire.Code
		says   []string
	}{
		{"unknown session", "tools.execute", wire.ExecuteParams{SessionID: "nope", Tool: "block"}, wire.CodeSessionNotFound, []string{`"nope"`, "session.create"}},
		{"unknown session on debug", "debug.session", wire.SessionIDParams{SessionID: "nope"}, wire.CodeSessionNotFound, nil},
		{"unknown session on setWorkspace", "session.setWorkspace", wire.SetWorkspaceParams{SessionID: "nope", Workspace: ws}, wire.CodeSessionNotFound, nil},
		{"workspace is a file", "session.setWorkspace", wire.SetWorkspaceParams{SessionID: "s1", Workspace: file}, wire.CodeWorkspaceInvalid, []string{"not a directory"}},
		{"workspace missing", "session.create", wire.SessionCreateParams{Workspace: filepath.Join(ws, "missing")}, wire.CodeWorkspaceInvalid, []string{"missing"}},
		{"workspace relative", "session.create", wire.SessionCreateParams{Workspace: "some/dir"}, wire.CodeWorkspaceInvalid, []string{"absolute"}},
		{"external root is a file", "session.create", wire.SessionCreateParams{Workspace: ws, ExternalRoots: []wire.ExternalRoot{{Path: file}}}, wire.CodeWorkspaceInvalid, nil},
		{"unknown tool", "tools.execute", wire.ExecuteParams{SessionID: "s1", Tool: "frobnicate"}, wire.CodeUnknownTool, []string{"frobnicate", "block"}},
		{"session limit", "session.create", wire.SessionCreateParams{Workspace: ws}, wire.CodeSessionLimit, []string{"session.delete"}},
		{"bad session id", "session.create", wire.SessionCreateParams{Workspace: ws, SessionID: "a b"}, wire.CodeInvalidParams, nil},
		{"unknown method", "host.frobnicate", nil, wire.CodeMethodNotFound, []string{"host.frobnicate", "rpc.discover"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantError(t, call(t, c, tt.method, tt.params, nil), tt.code, tt.says...)
		})
	}
}

func TestToolsDefinitionsListsTheExecutorsTools(t *testing.T) {
	h := newHarness(t)
	var raw json.RawMessage
	// The test executor's only tool has no embedded definition: that is a
	// server bug, reported as INTERNAL_ERROR rather than a partial list.
	e := call(t, h.client(), "tools.definitions", nil, &raw)
	wantError(t, e, wire.CodeInternal, "block")
}

func TestToolsExecuteReturnsTheToolResult(t *testing.T) {
	h := newHarness(t)
	c := h.client()
	mustCall(t, c, "session.create", wire.SessionCreateParams{Workspace: t.TempDir(), SessionID: "s"}, nil)
	close(h.block.release)
	var res map[string]any
	mustCall(t, c, "tools.execute", wire.ExecuteParams{SessionID: "s", Tool: "block", ToolCallID: "tc-1"}, &res)
	if res["ok"] != true || res["content"] != "released" || res["toolCallId"] != "tc-1" {
		t.Errorf("result: %v", res)
	}
	if w, ok := res["warnings"].([]any); !ok || len(w) != 0 {
		t.Errorf("warnings must be [], got %v", res["warnings"])
	}
}

func canon(t *testing.T, p string) string {
	t.Helper()
	c, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// session.create's editResult sets the session's edit result form,
// compact by default, and the answer reports the form; a re-attach keeps
// the form the session was created with, and rpc.discover describes the
// param with its two values.
func TestSessionCreateEditResult(t *testing.T) {
	h := newHarness(t)
	c := h.client()
	ws := t.TempDir()
	var ref wire.SessionRef
	mustCall(t, c, "session.create", wire.SessionCreateParams{Workspace: ws, SessionID: "full-1", EditResult: wire.ResultFull}, &ref)
	if ref.EditResult != "full" {
		t.Fatalf("create: %+v", ref)
	}
	if s, _ := h.sess.Get("full-1"); s.Prefs.EditResult != session.FormFull {
		t.Fatalf("session prefs %+v", s.Prefs)
	}
	var again wire.SessionRef
	mustCall(t, c, "session.create", wire.SessionCreateParams{Workspace: ws, SessionID: "full-1", EditResult: wire.ResultCompact}, &again)
	if again.EditResult != "full" {
		t.Fatalf("re-attach changed the form: %+v", again)
	}
	var compact wire.SessionRef
	mustCall(t, c, "session.create", wire.SessionCreateParams{Workspace: ws}, &compact)
	if s, _ := h.sess.Get(compact.SessionID); compact.EditResult != "compact" || s.Prefs.EditResult != session.FormCompact {
		t.Fatalf("default: %+v %+v", compact, s.Prefs)
	}
	wantError(t, call(t, c, "session.create", map[string]any{"workspace": ws, "editResult": "short"}, nil), wire.CodeInvalidParams, `"short"`, "compact")
	if n := len(h.sess.List()); n != 2 {
		t.Fatalf("%d sessions after a refused create, want 2", n)
	}

	var doc map[string]any
	mustCall(t, c, "rpc.discover", nil, &doc)
	raw, _ := json.Marshal(doc)
	if !strings.Contains(string(raw), `"editResult":{"description":`) || !strings.Contains(string(raw), `"enum":["full","compact"]`) {
		t.Fatalf("rpc.discover does not describe editResult with its values")
	}
}
