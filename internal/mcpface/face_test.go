package mcpface

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/internal/budget"
	"github.com/hostd-dev/hostd/review"
	"github.com/hostd-dev/hostd/rpc"
	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/session"
	"github.com/hostd-dev/hostd/tools"
)

// daemon starts an in-process hostd (the real rpc server, executor and
// review store, without the tree-sitter grammars) and returns a Remote
// connected to it, as `hostd mcp` connects to the shared daemon.
func daemon(t *testing.T) *Remote {
	t.Helper()
	return daemonWith(t, config.DefaultLimits())
}

// daemonWith is daemon with limits lim.
func daemonWith(t *testing.T, lim config.Limits) *Remote {
	t.Helper()
	store, err := review.Open(t.TempDir(), lim, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	sessions := session.NewManager(lim)
	mem := budget.New(lim.MaxMemoryBytes, lim.BudgetWait())
	exec := tools.NewExecutor(tools.Options{Sessions: sessions, Limits: lim, Review: store, Tools: tools.Builtin(), Budget: mem})
	srv := rpc.NewServer(rpc.Options{Limits: lim, Sessions: sessions, Executor: exec, Review: store, Version: "test", Budget: mem})
	a, b := net.Pipe()
	go srv.ServeConn(a)
	r := NewRemote(b, 0)
	t.Cleanup(func() {
		r.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		store.Close()
	})
	return r
}

// connect serves f to a new Go SDK client over the in-memory transport.
func connect(t *testing.T, f *Face, client *mcp.Client) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := f.Server().Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	if client == nil {
		client = mcp.NewClient(&mcp.Implementation{Name: "gotest", Version: "1"}, nil)
	}
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func newFace(t *testing.T, d Daemon, roots ...string) *Face {
	t.Helper()
	return newFaceWith(t, Options{Daemon: d, Roots: roots, Version: "test"})
}

// newStructuredFace is newFace with Options.Structured.
func newStructuredFace(t *testing.T, d Daemon, roots ...string) *Face {
	t.Helper()
	return newFaceWith(t, Options{Daemon: d, Roots: roots, Version: "test", Structured: true})
}

func newFaceWith(t *testing.T, o Options) *Face {
	t.Helper()
	f, err := New(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close(context.Background()) })
	return f
}

// project is a workspace holding main.go.
func project(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return res
}

func text(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("want one content block, got %d", len(res.Content))
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content is %T, want text", res.Content[0])
	}
	return tc.Text
}

var header = regexp.MustCompile(`^\[main\.go#([0-9A-F]{4})\]\n`)

// sessions is session.list's ids and workspaces.
func sessions(t *testing.T, d Daemon) map[string]string {
	t.Helper()
	var res struct {
		Sessions []struct{ SessionID, Workspace string }
	}
	if err := d.Call(context.Background(), "session.list", nil, &res); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, s := range res.Sessions {
		out[s.SessionID] = s.Workspace
	}
	return out
}

func sessionOf(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	id, _ := res.Meta[MetaSessionID].(string)
	if id == "" {
		t.Fatalf("result has no %s: %v", MetaSessionID, res.Meta)
	}
	return id
}

// The tools an MCP client lists are the daemon's tools.definitions: same
// names, descriptions and input schemas, from the one embedded source.
func TestToolsAreTheDaemonsDefinitions(t *testing.T) {
	d := daemon(t)
	cs := connect(t, newFace(t, d, project(t)), nil)
	listed, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var defs struct{ Tools []wire.ToolDefinition }
	if err := d.Call(context.Background(), "tools.definitions", nil, &defs); err != nil {
		t.Fatal(err)
	}
	if len(listed.Tools) != len(defs.Tools) || len(defs.Tools) != 5 {
		t.Fatalf("listed %d tools, the daemon defines %d", len(listed.Tools), len(defs.Tools))
	}
	for i, tool := range listed.Tools {
		def := defs.Tools[i]
		if tool.Name != def.Name || tool.Description != def.Description {
			t.Errorf("tool %d: %q (%d bytes of description), want %q (%d bytes)", i, tool.Name, len(tool.Description), def.Name, len(def.Description))
		}
		got, _ := json.Marshal(tool.InputSchema)
		var want any
		json.Unmarshal(def.InputSchema, &want)
		wantJSON, _ := json.Marshal(want)
		if string(got) != string(wantJSON) {
			t.Errorf("%s: input schema %s, want %s", tool.Name, got, wantJSON)
		}
		a := tool.Annotations
		if a == nil || a.Title == "" || a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("%s: annotations %+v, want a title and a closed world", tool.Name, a)
			continue
		}
		readOnly := tool.Name == "read" || tool.Name == "grep" || tool.Name == "diagnostics"
		if a.ReadOnlyHint != readOnly || (!readOnly && (a.DestructiveHint == nil || !*a.DestructiveHint)) {
			t.Errorf("%s: readOnly %v, destructive %v", tool.Name, a.ReadOnlyHint, a.DestructiveHint)
		}
		if a.IdempotentHint != (tool.Name == "write") {
			t.Errorf("%s: idempotent %v: only write is", tool.Name, a.IdempotentHint)
		}
	}
}

// read -> edit -> read: the content is the text tools.execute gives over
// JSON-RPC, byte for byte, and a failed tool is isError with its code
// first, as the model reads it there.
func TestReadEditReadCarriesTheJSONRPCText(t *testing.T) {
	d := daemon(t)
	dir := project(t)
	cs := connect(t, newFace(t, d, dir), nil)

	first := call(t, cs, "read", map[string]any{"path": "main.go"})
	if first.IsError {
		t.Fatal(text(t, first))
	}
	m := header.FindStringSubmatch(text(t, first))
	if m == nil {
		t.Fatalf("read: %q", text(t, first))
	}
	// The same read over JSON-RPC, in a session of its own.
	if err := d.Call(context.Background(), "session.create", map[string]string{"workspace": dir, "sessionId": "direct"}, nil); err != nil {
		t.Fatal(err)
	}
	var direct struct{ Content string }
	if err := d.Call(context.Background(), "tools.execute", map[string]any{"sessionId": "direct", "tool": "read", "args": map[string]any{"path": "main.go"}}, &direct); err != nil {
		t.Fatal(err)
	}
	if direct.Content != text(t, first) {
		t.Errorf("MCP content %q\nJSON-RPC content %q", text(t, first), direct.Content)
	}

	stale := call(t, cs, "edit", map[string]any{"path": "main.go", "tag": "0000", "ops": "PUT 4.=4:\n+x"})
	if m[1] == "0000" {
		t.Skip("the file's tag happens to be 0000")
	}
	if !stale.IsError || !strings.HasPrefix(text(t, stale), "Error EDIT_TAG_UNKNOWN: ") {
		t.Errorf("stale tag: isError=%v %q", stale.IsError, text(t, stale))
	}
	// The text alone by default: _meta names the session and the call.
	meta, _ := json.Marshal(stale.Meta)
	var named map[string]any
	json.Unmarshal(meta, &named)
	if id, _ := named[MetaToolCallID].(string); id == "" || named[MetaSessionID] == nil || named[MetaResult] != nil || stale.StructuredContent != nil {
		t.Errorf("_meta %s, structuredContent %v", meta, stale.StructuredContent)
	}

	edit := call(t, cs, "edit", map[string]any{"path": "main.go", "tag": m[1], "ops": "PUT 4.=4:\n+\tprintln(\"hello\")"})
	// The compact result by default: a change in place is its new tag.
	if edit.IsError || !regexp.MustCompile(`^#[0-9A-F]{4}$`).MatchString(text(t, edit)) {
		t.Fatalf("edit: isError=%v %q", edit.IsError, text(t, edit))
	}
	second := call(t, cs, "read", map[string]any{"path": "main.go", "offset": 4, "limit": 1})
	if !strings.HasSuffix(header.ReplaceAllString(text(t, second), ""), "4:\tprintln(\"hello\")\n(showing lines 4-4 of 5; read on with offset=5)") {
		t.Errorf("second read: %q", text(t, second))
	}
	got, _ := os.ReadFile(filepath.Join(dir, "main.go"))
	if string(got) != "package main\n\nfunc main() {\n\tprintln(\"hello\")\n}\n" {
		t.Errorf("file: %q", got)
	}

	// The change is in the review record of the session the result names.
	id := sessionOf(t, edit)
	var rv struct{ Entries []struct{ Tool, Path string } }
	if err := d.Call(context.Background(), "review.list", map[string]string{"sessionId": id}, &rv); err != nil {
		t.Fatal(err)
	}
	if len(rv.Entries) != 1 || rv.Entries[0].Tool != "edit" || rv.Entries[0].Path != "main.go" {
		t.Errorf("review.list: %+v", rv.Entries)
	}
}

// Arguments that do not fit a tool are the tool's own INVALID_ARGUMENT,
// as over JSON-RPC: the MCP face validates nothing itself.
func TestBadArgumentsAreTheToolsError(t *testing.T) {
	d := daemon(t)
	cs := connect(t, newFace(t, d, project(t)), nil)
	for _, args := range []map[string]any{nil, {"path": 7}, {"path": "main.go", "bogus": true}} {
		res := call(t, cs, "read", args)
		if !res.IsError || !strings.HasPrefix(text(t, res), "Error INVALID_ARGUMENT: ") {
			t.Errorf("args %v: isError=%v %q", args, res.IsError, text(t, res))
		}
	}
}

// The face's sessions take its edit result form: compact unless it was
// made with "full", and a call's own result argument wins either way.
func TestEditResultForm(t *testing.T) {
	d := daemon(t)
	compact := regexp.MustCompile(`^#([0-9A-F]{4})$`)
	full := regexp.MustCompile(`^\[main\.go#([0-9A-F]{4})\]\n4:\tprintln\("[a-z]+"\)$`)
	for _, tc := range []struct {
		form             string
		want, overridden *regexp.Regexp
		override         string
	}{
		{"", compact, full, "full"},
		{"full", full, compact, "compact"},
	} {
		t.Run("face "+tc.form, func(t *testing.T) {
			f, err := New(context.Background(), Options{Daemon: d, Roots: []string{project(t)}, Version: "test", EditResult: tc.form})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close(context.Background()) })
			cs := connect(t, f, nil)
			tag := header.FindStringSubmatch(text(t, call(t, cs, "read", map[string]any{"path": "main.go"})))[1]
			e := call(t, cs, "edit", map[string]any{"path": "main.go#" + tag, "ops": "PUT 4:\n+\tprintln(\"one\")"})
			m := tc.want.FindStringSubmatch(text(t, e))
			if e.IsError || m == nil {
				t.Fatalf("the session's form: %q", text(t, e))
			}
			e = call(t, cs, "edit", map[string]any{"path": "main.go#" + m[1], "ops": "PUT 4:\n+\tprintln(\"two\")", "result": tc.override})
			if e.IsError || !tc.overridden.MatchString(text(t, e)) {
				t.Fatalf("the call's own form: %q", text(t, e))
			}
		})
	}
	if _, err := New(context.Background(), Options{Daemon: d, Version: "test", EditResult: "short"}); err == nil {
		t.Error("a face with an unknown form was made")
	}
}
