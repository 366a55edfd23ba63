package mcpface

//lint:file-ignore SA1019 MCP 2026-07-28 deprecates roots (SEP-2577), but clients still name their workspace with them and older protocol versions are the common case; --workspace is the way that does not need them.

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hostd-dev/hostd/internal/testenv"
)

func fileURI(dir string) string { return (&url.URL{Scheme: "file", Path: dir}).String() }

func rootsClient(dirs ...string) *mcp.Client {
	c := mcp.NewClient(&mcp.Implementation{Name: "gotest", Version: "1"}, nil)
	for _, d := range dirs {
		c.AddRoots(&mcp.Root{URI: fileURI(d)})
	}
	return c
}

func canonical(t *testing.T, dir string) string {
	t.Helper()
	c, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Without --workspace the session is made on the client's roots: the
// first is the workspace, the others are approved and writable.
func TestSessionOnTheClientsRoots(t *testing.T) {
	d := daemon(t)
	ws, other := project(t), t.TempDir()
	cs := connect(t, newFace(t, d), rootsClient(ws, other))
	res := call(t, cs, "read", map[string]any{"path": "main.go"})
	if res.IsError {
		t.Fatal(text(t, res))
	}
	if got := sessions(t, d)[sessionOf(t, res)]; got != canonical(t, ws) {
		t.Errorf("workspace %q, want %q", got, ws)
	}
	w := call(t, cs, "write", map[string]any{"path": filepath.Join(other, "notes.txt"), "content": "x\n"})
	if w.IsError {
		t.Fatalf("write into the second root: %s", text(t, w))
	}
}

// When the client says its roots changed, the next call runs on the new
// ones, in the same hostd session id (one review history).
func TestRootsChangedMovesTheSession(t *testing.T) {
	d := daemon(t)
	first, second := project(t), project(t)
	client := rootsClient(first)
	cs := connect(t, newFace(t, d), client)
	id := sessionOf(t, call(t, cs, "read", map[string]any{"path": "main.go"}))

	client.RemoveRoots(fileURI(first))
	client.AddRoots(&mcp.Root{URI: fileURI(second)})
	// The notification travels on its own; wait for the face to see it.
	testenv.Until(t, 10*time.Second, "the session to move to "+second, func() bool {
		res := call(t, cs, "read", map[string]any{"path": "main.go"})
		if sessionOf(t, res) != id {
			t.Fatalf("session id changed: %s, then %s", id, sessionOf(t, res))
		}
		return sessions(t, d)[id] == canonical(t, second)
	})
}

// Roots hostd cannot serve give the model a failed result that names
// the fix; no session is made.
func TestUnusableRootsAreAClearError(t *testing.T) {
	for name, c := range map[string]*mcp.Client{
		"none": rootsClient(),
		"remote": func() *mcp.Client {
			c := rootsClient()
			c.AddRoots(&mcp.Root{URI: "https://example.com/repo"})
			return c
		}(),
		"host": func() *mcp.Client { c := rootsClient(); c.AddRoots(&mcp.Root{URI: "file://server/share"}); return c }(),
	} {
		t.Run(name, func(t *testing.T) {
			d := daemon(t)
			cs := connect(t, newFace(t, d), c)
			res := call(t, cs, "read", map[string]any{"path": "main.go"})
			if !res.IsError || !strings.HasPrefix(text(t, res), "Error WORKSPACE_INVALID: ") || !strings.Contains(text(t, res), "hostd mcp --workspace DIR") {
				t.Errorf("isError=%v %q", res.IsError, text(t, res))
			}
			if n := len(sessions(t, d)); n != 0 {
				t.Errorf("%d sessions made", n)
			}
		})
	}
}

// A session deleted behind the MCP client's back (hostctl session
// delete) is made again under the same id, and the call goes through.
func TestDeletedSessionIsMadeAgain(t *testing.T) {
	d := daemon(t)
	dir := project(t)
	cs := connect(t, newFace(t, d, dir), nil)
	id := sessionOf(t, call(t, cs, "read", map[string]any{"path": "main.go"}))
	if err := d.Call(context.Background(), "session.delete", map[string]string{"sessionId": id}, nil); err != nil {
		t.Fatal(err)
	}
	res := call(t, cs, "read", map[string]any{"path": "main.go"})
	if res.IsError {
		t.Fatalf("after the delete: %s", text(t, res))
	}
	if got := sessionOf(t, res); got != id {
		t.Errorf("session %s, want %s again", got, id)
	}
	if sessions(t, d)[id] != canonical(t, dir) {
		t.Errorf("session.list: %v", sessions(t, d))
	}
}

// The hostd session lives as long as the MCP session: when the client
// disconnects it is deleted, and its review records stay.
func TestSessionEndsWithTheMCPSession(t *testing.T) {
	d := daemon(t)
	cs := connect(t, newFace(t, d, project(t)), nil)
	res := call(t, cs, "write", map[string]any{"path": "new.txt", "content": "x\n"})
	id := sessionOf(t, res)
	if _, ok := sessions(t, d)[id]; !ok {
		t.Fatalf("session %s not listed while connected", id)
	}
	cs.Close()
	testenv.Until(t, 10*time.Second, "the session to end once the client disconnected", func() bool {
		_, ok := sessions(t, d)[id]
		return !ok
	})
	var rv struct{ Entries []struct{ Path string } }
	if err := d.Call(context.Background(), "review.list", map[string]string{"sessionId": id}, &rv); err != nil || len(rv.Entries) != 1 {
		t.Errorf("review.list after the end: %v %+v", err, rv.Entries)
	}
}

// slowDelete is a daemon whose session.delete takes a while to answer.
type slowDelete struct{ Daemon }

func (d slowDelete) Call(ctx context.Context, method string, params, result any) error {
	if method == "session.delete" {
		time.Sleep(300 * time.Millisecond)
	}
	return d.Daemon.Call(ctx, method, params, result)
}

// A session that ended on its own is still being deleted when the face
// closes (hostd mcp exiting once its client hangs up); Close waits for
// the deletion, so no session outlives the process.
func TestCloseWaitsForSessionsEnding(t *testing.T) {
	d := daemon(t)
	f := newFace(t, slowDelete{d}, project(t))
	cs := connect(t, f, nil)
	id := sessionOf(t, call(t, cs, "write", map[string]any{"path": "new.txt", "content": "x\n"}))
	cs.Close()
	testenv.Until(t, 10*time.Second, "the MCP session to end", func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		return len(f.sessions) == 0 // the session's own end took it: its delete is under way
	})
	f.Close(context.Background())
	if _, ok := sessions(t, d)[id]; ok {
		t.Fatalf("session %s still live after Close returned", id)
	}
}

// Calls that arrive together on a new connection make one session.
func TestConcurrentFirstCallsMakeOneSession(t *testing.T) {
	d := daemon(t)
	cs := connect(t, newFace(t, d, project(t)), nil)
	var wg sync.WaitGroup
	ids := make([]string, 8)
	for i := range ids {
		wg.Go(func() {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read", Arguments: map[string]any{"path": "main.go"}})
			if err != nil || res.IsError {
				t.Errorf("call %d: %v %v", i, err, res)
				return
			}
			ids[i], _ = res.Meta[MetaSessionID].(string)
		})
	}
	wg.Wait()
	for _, id := range ids[1:] {
		if id != ids[0] {
			t.Errorf("sessions %v", ids)
			break
		}
	}
	if n := len(sessions(t, d)); n != 1 {
		t.Errorf("%d sessions made, want 1", n)
	}
}

// A client's _meta names the call's turn and review id.
func TestMetaNamesTheToolCall(t *testing.T) {
	d := daemon(t)
	cs := connect(t, newFace(t, d, project(t)), nil)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{
		Meta:      mcp.Meta{MetaToolCallID: "call-7", MetaPromptID: "turn-1"},
		Name:      "write",
		Arguments: map[string]any{"path": "a.txt", "content": "a\n"},
	})
	if err != nil || res.IsError {
		t.Fatal(err, res)
	}
	var rv struct{ Entries []struct{ ToolCallID string } }
	if err := d.Call(context.Background(), "review.list", map[string]string{"sessionId": sessionOf(t, res)}, &rv); err != nil {
		t.Fatal(err)
	}
	if len(rv.Entries) != 1 || rv.Entries[0].ToolCallID != "call-7" {
		t.Errorf("review entries %+v, want toolCallId call-7", rv.Entries)
	}
}

// fakeDaemon serves one tool, and fails tools.execute with err.
type fakeDaemon struct{ err error }

func (f fakeDaemon) Call(_ context.Context, method string, _, result any) error {
	switch method {
	case "tools.definitions":
		return json.Unmarshal([]byte(`{"tools":[{"name":"read","description":"Read.","inputSchema":{"type":"object"}}]}`), result)
	case "tools.execute":
		return f.err
	}
	return nil
}

// A call the daemon refuses (a JSON-RPC error) reaches the model as a
// failed result with the error's code name first; a lost connection
// says the call may have run; a cancelled call is the client's error.
func TestDaemonErrorsAreFailedResults(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{&CallError{Code: -32007, Name: "OVERLOADED", Message: "the memory budget had no room"}, "Error OVERLOADED: the memory budget had no room"},
		{errors.New("jsonrpc2: connection is closed"), "Error TOOL_FAILED: hostd did not answer (jsonrpc2: connection is closed); the call may have run"},
	} {
		cs := connect(t, newFace(t, fakeDaemon{c.err}, t.TempDir()), nil)
		res := call(t, cs, "read", map[string]any{"path": "x"})
		if !res.IsError || !strings.HasPrefix(text(t, res), c.want) {
			t.Errorf("%v: isError=%v %q", c.err, res.IsError, text(t, res))
		}
	}
}

func TestRootPath(t *testing.T) {
	for uri, want := range map[string]string{
		"file:///home/me/app":           "/home/me/app",
		"file://localhost/home/me/app/": "/home/me/app",
		"file:///home/me/my%20app":      "/home/me/my app",
		"file://server/share":           "",
		"https://example.com/repo":      "",
		"file:relative/dir":             "",
		"::":                            "",
	} {
		got, err := rootPath(uri)
		if want == "" {
			if err == nil {
				t.Errorf("%q: %q, want an error", uri, got)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("%q: %q %v, want %q", uri, got, err, want)
		}
	}
}

// Session ids made from a client's name are ids session.create takes.
func TestSessionIDsAreValid(t *testing.T) {
	valid := regexp.MustCompile(`^mcp-[A-Za-z0-9._-]{1,40}-[0-9a-f]{12}$`)
	for _, name := range []string{"claude-code", "Visual Studio Code/1.2 é", strings.Repeat("x", 500), ""} {
		id := sessionIDFor(name)
		if !valid.MatchString(id) || len(id) > 128 {
			t.Errorf("%q: id %q", name, id)
		}
	}
	if a, b := sessionIDFor("c"), sessionIDFor("c"); a == b {
		t.Errorf("two sessions of one client share id %s", a)
	}
}

// A session on the client's roots that the daemon lost is made again on
// the same roots, without asking the client again.
func TestDeletedRootsSessionIsMadeAgainOnItsRoots(t *testing.T) {
	d := daemon(t)
	dir := project(t)
	cs := connect(t, newFace(t, d), rootsClient(dir))
	id := sessionOf(t, call(t, cs, "read", map[string]any{"path": "main.go"}))
	if err := d.Call(context.Background(), "session.delete", map[string]string{"sessionId": id}, nil); err != nil {
		t.Fatal(err)
	}
	res := call(t, cs, "read", map[string]any{"path": "main.go"})
	if res.IsError || sessionOf(t, res) != id || sessions(t, d)[id] != canonical(t, dir) {
		t.Fatalf("after the delete: isError=%v %q, sessions %v", res.IsError, text(t, res), sessions(t, d))
	}
}

// Arguments too large for one frame to the daemon are refused before
// they are sent: the daemon would close the connection, ending every
// session of this hostd mcp.
func TestArgumentsOverTheFrameCapAreRefused(t *testing.T) {
	d := daemon(t)
	f, err := New(context.Background(), Options{Daemon: d, Roots: []string{project(t)}, MaxFrameBytes: 100 << 10})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, f, nil)
	res := call(t, cs, "write", map[string]any{"path": "big.txt", "content": strings.Repeat("x", 40<<10)})
	if !res.IsError || !strings.HasPrefix(text(t, res), "Error FILE_TOO_LARGE: the arguments are 40") {
		t.Errorf("isError=%v %q", res.IsError, text(t, res))
	}
	if n := len(sessions(t, d)); n != 0 {
		t.Errorf("%d sessions made for a refused call", n)
	}
	if res := call(t, cs, "write", map[string]any{"path": "small.txt", "content": strings.Repeat("x", 30<<10)}); res.IsError {
		t.Errorf("a call under the cap: %s", text(t, res))
	}
}
