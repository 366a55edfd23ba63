package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/internal/testenv"
)

func TestE2EHostInfoAndDiscover(t *testing.T) {
	d := startDaemon(t, "")
	c := d.client()
	var info struct {
		Name            string         `json:"name"`
		ProtocolVersion int            `json:"protocolVersion"`
		PID             int            `json:"pid"`
		Grammars        []string       `json:"grammars"`
		Limits          map[string]any `json:"limits"`
	}
	mustCall(t, c, "host.info", nil, &info)
	if info.Name != "hostd" || info.ProtocolVersion != 1 || info.PID != d.Cmd.Process.Pid || info.Limits["maxFrameBytes"] != float64(64<<20) {
		t.Errorf("host.info: %+v", info)
	}
	// The grammars block ops resolve with (edit-contract §8.2 names these).
	for _, g := range []string{"rust", "typescript", "python", "markdown", "json", "go", "java", "cpp"} {
		if !slices.Contains(info.Grammars, g) {
			t.Errorf("host.info grammars %v lack %s", info.Grammars, g)
		}
	}
	var doc struct {
		OpenRPC string `json:"openrpc"`
		Methods []struct {
			Name string `json:"name"`
		} `json:"methods"`
	}
	mustCall(t, c, "rpc.discover", nil, &doc)
	var names []string
	for _, m := range doc.Methods {
		names = append(names, m.Name)
	}
	for _, want := range []string{"host.info", "host.shutdown", "rpc.discover", "session.create", "session.delete", "session.list", "session.setWorkspace", "tools.definitions", "tools.execute", "review.list", "review.rollback", "debug.stats", "debug.session"} {
		if !slices.Contains(names, want) {
			t.Errorf("rpc.discover lacks %s", want)
		}
	}
	// On start hostd says where it listens and how to talk to it: on a
	// socket not the default, the hint names it (a plain hostctl would
	// reach the default daemon, and its shutdown would stop that one).
	if out := d.output(); !strings.Contains(out, "hostctl --socket "+d.socket+" info") || !strings.Contains(out, "hostctl --socket "+d.socket+" shutdown") || !strings.Contains(out, "pid "+strconv.Itoa(d.Cmd.Process.Pid)) {
		t.Errorf("startup message:\n%s", out)
	}
}

func TestE2ESessionLifecycle(t *testing.T) {
	d := startDaemon(t, "")
	c := d.client()
	ws, other := t.TempDir(), t.TempDir()
	var ref struct{ SessionID, Workspace string }
	mustCall(t, c, "session.create", map[string]any{"workspace": ws}, &ref)
	if ref.SessionID == "" {
		t.Fatal("no session id")
	}
	mustCall(t, c, "session.setWorkspace", map[string]any{"sessionId": ref.SessionID, "workspace": other}, &ref)
	// Another connection sees the session: sessions belong to the daemon.
	var list struct {
		Sessions []struct{ SessionID, Workspace string } `json:"sessions"`
	}
	mustCall(t, d.client(), "session.list", nil, &list)
	if len(list.Sessions) != 1 || list.Sessions[0].SessionID != ref.SessionID || !strings.HasSuffix(list.Sessions[0].Workspace, filepath.Base(other)) {
		t.Fatalf("session.list: %+v", list)
	}
	mustCall(t, c, "session.delete", map[string]any{"sessionId": ref.SessionID}, nil)
	mustCall(t, c, "session.list", nil, &list)
	if len(list.Sessions) != 0 {
		t.Errorf("after delete: %+v", list)
	}
}

func TestE2EUnknownTool(t *testing.T) {
	d := startDaemon(t, "")
	c := d.client()
	var ref struct{ SessionID string }
	mustCall(t, c, "session.create", map[string]any{"workspace": t.TempDir()}, &ref)
	wantCode(t, call(t, c, "tools.execute", map[string]any{"sessionId": ref.SessionID, "tool": "teleport", "args": map[string]any{}}, nil), -32005, "UNKNOWN_TOOL")
}

func TestE2EToolsWriteReadReview(t *testing.T) {
	d := startDaemon(t, "")
	c := d.client()
	var defs struct {
		Tools []struct{ Name, Description string } `json:"tools"`
	}
	mustCall(t, c, "tools.definitions", nil, &defs)
	var names []string
	for _, tool := range defs.Tools {
		names = append(names, tool.Name)
	}
	if !slices.Contains(names, "read") || !slices.Contains(names, "write") {
		t.Fatalf("tools.definitions: %v", names)
	}
	ws := t.TempDir()
	var ref struct{ SessionID string }
	mustCall(t, c, "session.create", map[string]any{"workspace": ws}, &ref)
	var res map[string]any
	mustCall(t, c, "tools.execute", map[string]any{"sessionId": ref.SessionID, "tool": "write", "toolCallId": "w1", "args": map[string]any{"path": "notes.txt", "content": "hello\n"}}, &res)
	if res["ok"] != true || res["toolCallId"] != "w1" {
		t.Fatalf("write: %v", res)
	}
	mustCall(t, c, "tools.execute", map[string]any{"sessionId": ref.SessionID, "tool": "read", "args": map[string]any{"path": "notes.txt"}}, &res)
	if res["ok"] != true || !strings.Contains(res["content"].(string), "1:hello") {
		t.Fatalf("read: %v", res)
	}
	// A tool that fails is a result the model reads, not a protocol error.
	mustCall(t, c, "tools.execute", map[string]any{"sessionId": ref.SessionID, "tool": "read", "args": map[string]any{"path": "missing.txt"}}, &res)
	if res["ok"] != false || res["error"].(map[string]any)["code"] != "NOT_FOUND" {
		t.Fatalf("read of a missing file: %v", res)
	}
	// The write was recorded for review, and its rollback removes the
	// file it created.
	var entries struct {
		Entries []struct{ ToolCallID, Change, Path string } `json:"entries"`
	}
	mustCall(t, c, "review.list", map[string]any{"sessionId": ref.SessionID, "path": "notes.txt"}, &entries)
	if len(entries.Entries) != 1 || entries.Entries[0].ToolCallID != "w1" || entries.Entries[0].Change != "create" {
		t.Fatalf("review.list: %+v", entries)
	}
	mustCall(t, c, "review.rollback", map[string]any{"sessionId": ref.SessionID, "toolCallId": "w1"}, nil)
	if _, err := os.Stat(filepath.Join(ws, "notes.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("rolling back a create must remove the file: %v", err)
	}
	var st struct {
		Calls map[string]struct{ Count, Errors int } `json:"calls"`
	}
	mustCall(t, c, "debug.stats", nil, &st)
	if got := st.Calls["tools.execute"]; got.Count != 3 || got.Errors != 1 {
		t.Errorf("tools.execute figures: %+v; want 3 calls, the failed read counted among the errors", got)
	}
}

// A change made through the daemon is recorded for review and can be
// rolled back: the daemon hands its review store to the tools.
func TestE2EEditIsReviewedAndRolledBack(t *testing.T) {
	d := startDaemon(t, "")
	c := d.client()
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("hello\n"), 0o644)
	var ref struct{ SessionID string }
	mustCall(t, c, "session.create", map[string]any{"workspace": ws}, &ref)
	var read map[string]any
	mustCall(t, c, "tools.execute", map[string]any{"sessionId": ref.SessionID, "tool": "read", "args": map[string]any{"path": "a.txt"}}, &read)
	var edit map[string]any
	mustCall(t, c, "tools.execute", map[string]any{"sessionId": ref.SessionID, "tool": "edit", "toolCallId": "e1", "args": map[string]any{"path": "a.txt", "tag": read["tag"], "ops": "PUT 1.=1:\n+world"}}, &edit)
	if edit["ok"] != true {
		t.Fatalf("edit: %v", edit)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(b) != "world\n" {
		t.Fatalf("after edit: %q", b)
	}
	var entries struct {
		Entries []struct{ ToolCallID, Tool, Change, Path string } `json:"entries"`
	}
	mustCall(t, c, "review.list", map[string]any{"sessionId": ref.SessionID}, &entries)
	if len(entries.Entries) != 1 || entries.Entries[0].ToolCallID != "e1" || entries.Entries[0].Change != "modify" || entries.Entries[0].Path != "a.txt" {
		t.Fatalf("review.list: %+v", entries)
	}
	var rb struct{ Restored []string }
	mustCall(t, c, "review.rollback", map[string]any{"sessionId": ref.SessionID, "toolCallId": "e1"}, &rb)
	if b, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(b) != "hello\n" || !slices.Equal(rb.Restored, []string{"a.txt"}) {
		t.Fatalf("after rollback: %q, restored %v", b, rb.Restored)
	}
	// The tag minted before the rollback names content that is gone.
	mustCall(t, c, "tools.execute", map[string]any{"sessionId": ref.SessionID, "tool": "edit", "args": map[string]any{"path": "a.txt", "tag": edit["tag"], "ops": "PUT 1.=1:\n+again"}}, &edit)
	if edit["ok"] != false {
		t.Errorf("an edit with a tag from before the rollback must fail: %v", edit)
	}
}

// Block ops resolve through the daemon's tree-sitter grammars.
func TestE2EBlockOpResolves(t *testing.T) {
	d := startDaemon(t, "")
	c := d.client()
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "a.py"), []byte("def f():\n    return 1\n\nx = 2\n"), 0o644)
	var ref struct{ SessionID string }
	mustCall(t, c, "session.create", map[string]any{"workspace": ws}, &ref)
	var read, edit map[string]any
	mustCall(t, c, "tools.execute", map[string]any{"sessionId": ref.SessionID, "tool": "read", "args": map[string]any{"path": "a.py"}}, &read)
	mustCall(t, c, "tools.execute", map[string]any{"sessionId": ref.SessionID, "tool": "edit", "args": map[string]any{"path": "a.py", "tag": read["tag"], "ops": "PUT 1*:\n+def f():\n+    return 3"}}, &edit)
	if edit["ok"] != true {
		t.Fatalf("edit: %v", edit)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "a.py")); string(b) != "def f():\n    return 3\n\nx = 2\n" {
		t.Errorf("after the block op: %q", b)
	}
}

// The model writes a Markdown file of 256 nested block quotes, which
// aborted the grammar and the daemon with it, then edits it with a block
// op and with a range whose last row restates the next line (boundary
// repair would parse). Both answer, and the daemon lives on; the grammar
// cannot judge the text, so the range's rows are written as sent, with a
// warning (edit-contract §8.4).
func TestE2EDeeplyNestedMarkdownKeepsTheDaemon(t *testing.T) {
	d := startDaemon(t, "")
	c := d.client()
	ws := t.TempDir()
	var ref struct{ SessionID string }
	mustCall(t, c, "session.create", map[string]any{"workspace": ws}, &ref)
	deep := strings.Repeat("> ", 256) + "quote"
	exec := func(tool string, args map[string]any) map[string]any {
		var res map[string]any
		if e := call(t, c, "tools.execute", map[string]any{"sessionId": ref.SessionID, "tool": tool, "args": args}, &res); e != nil {
			t.Fatalf("%s: %+v; daemon output:\n%s", tool, e, d.output())
		}
		return res
	}
	w := exec("write", map[string]any{"path": "deep.md", "content": "# Title\n" + deep + "\n"})
	if w["ok"] != true {
		t.Fatalf("write: %v", w)
	}
	block := exec("edit", map[string]any{"path": "deep.md", "tag": w["tag"], "ops": "PUT 1*:\n+# Other"})
	if block["ok"] != false || !strings.Contains(block["content"].(string), "128 levels deep") {
		t.Errorf("block op: %v", block)
	}
	rng := exec("edit", map[string]any{"path": "deep.md", "tag": w["tag"], "ops": "PUT 1.=1:\n+# Other\n+" + deep})
	if rng["ok"] != true || !strings.Contains(fmt.Sprint(rng["warnings"]), "could not run its syntax check") {
		t.Errorf("range edit: %v", rng)
	}
	var info map[string]any
	mustCall(t, c, "host.info", nil, &info)
	if b, _ := os.ReadFile(filepath.Join(ws, "deep.md")); string(b) != "# Other\n"+deep+"\n"+deep+"\n" {
		t.Errorf("after the edits: %q", b)
	}
}

func TestE2EMalformedJSON(t *testing.T) {
	d := startDaemon(t, "")
	r := d.raw()
	r.send(`{"jsonrpc":"2.0","id":1,"method":`)
	if code, name := errorOf(r.recv()); code != -32700 || name != "PARSE_ERROR" {
		t.Fatalf("got %v %s", code, name)
	}
	r.send(`{"jsonrpc":"2.0","id":2,"method":"host.info"}`)
	if m := r.recv(); m["result"] == nil {
		t.Fatalf("the connection must survive a parse error: %v", m)
	}
}

func TestE2EWrongParamTypes(t *testing.T) {
	d := startDaemon(t, "")
	e := call(t, d.client(), "session.create", map[string]any{"workspace": 42}, nil)
	wantCode(t, e, -32602, "INVALID_PARAMS")
	if e.Field != "params.workspace" || !strings.Contains(e.Msg, "params.workspace: must be a string") {
		t.Errorf("the error must name the field: %+v", e)
	}
}

func TestE2EUnknownMethod(t *testing.T) {
	d := startDaemon(t, "")
	wantCode(t, call(t, d.client(), "host.teleport", nil, nil), -32601, "METHOD_NOT_FOUND")
}

func TestE2EUnknownSession(t *testing.T) {
	d := startDaemon(t, "")
	wantCode(t, call(t, d.client(), "tools.execute", map[string]any{"sessionId": "s-none", "tool": "read", "args": map[string]any{"path": "x"}}, nil), -32001, "SESSION_NOT_FOUND")
}

func TestE2EWorkspaceNotADirectory(t *testing.T) {
	d := startDaemon(t, "")
	file := filepath.Join(t.TempDir(), "file.txt")
	os.WriteFile(file, []byte("x"), 0o644)
	e := call(t, d.client(), "session.create", map[string]any{"workspace": file}, nil)
	wantCode(t, e, -32002, "WORKSPACE_INVALID")
	if !strings.Contains(e.Msg, "not a directory") {
		t.Errorf("message: %s", e.Msg)
	}
}

func TestE2EOversizedFrame(t *testing.T) {
	d := startDaemon(t, "")
	other := d.client()
	r := d.raw()
	io.WriteString(r.nc, "Content-Length: 99999999999\r\n\r\n")
	if !r.closedByPeer() {
		t.Fatal("an oversized frame must close its connection")
	}
	mustCall(t, other, "host.info", nil, nil)
	mustCall(t, d.client(), "host.info", nil, nil)
}

func TestE2EClientDisconnectMidCall(t *testing.T) {
	d := startDaemon(t, "")
	r := d.raw()
	r.send(`{"jsonrpc":"2.0","id":1,"method":"rpc.discover"}`)
	io.WriteString(r.nc, "Content-Length: 100\r\n\r\n{\"jsonrpc\":") // half a frame
	r.nc.Close()
	c := d.client()
	var st struct {
		Calls map[string]struct{ Count int } `json:"calls"`
	}
	testenv.Poll(10*time.Second, func() bool {
		mustCall(t, c, "debug.stats", nil, &st)
		return st.Calls["rpc.discover"].Count == 1
	})
	if st.Calls["rpc.discover"].Count != 1 {
		t.Errorf("the abandoned call was not served to its end: %+v", st.Calls)
	}
}

func TestE2ESecondDaemonOnALiveSocket(t *testing.T) {
	first := startDaemon(t, "")
	second := launch(t, "--socket", first.socket, "--state-dir", t.TempDir())
	if code := second.wait(30 * time.Second); code == 0 {
		t.Fatal("a second daemon on a live socket must exit non-zero")
	}
	out := second.output()
	if !strings.Contains(out, first.socket) || !strings.Contains(out, "pid "+strconv.Itoa(first.Cmd.Process.Pid)) {
		t.Errorf("the message must name the socket and the live pid:\n%s", out)
	}
	mustCall(t, first.client(), "host.info", nil, nil)
}

func TestE2EStaleSocketIsReplaced(t *testing.T) {
	socket := filepath.Join(shortDir(t), "hostd.sock")
	stale, err := net.ListenUnix("unix", &net.UnixAddr{Name: socket, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	stale.SetUnlinkOnClose(false)
	stale.Close()
	d := startDaemon(t, socket)
	mustCall(t, d.client(), "host.info", nil, nil)
}

func TestE2ESIGTERMRemovesTheSocketAndExitsZero(t *testing.T) {
	d := startDaemon(t, "")
	mustCall(t, d.client(), "host.info", nil, nil)
	d.Cmd.Process.Signal(syscall.SIGTERM)
	if code := d.wait(30 * time.Second); code != 0 {
		t.Fatalf("exit %d:\n%s", code, d.output())
	}
	if _, err := os.Lstat(d.socket); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the socket file is still there: %v", err)
	}
}

func TestE2EHostShutdown(t *testing.T) {
	d := startDaemon(t, "")
	var res json.RawMessage
	mustCall(t, d.client(), "host.shutdown", nil, &res)
	if string(res) != "{}" {
		t.Errorf("host.shutdown = %s", res)
	}
	if code := d.wait(30 * time.Second); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if _, err := os.Lstat(d.socket); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the socket file is still there: %v", err)
	}
}

func TestE2EStdio(t *testing.T) {
	d := testenv.Start(t, testenv.Options{Bin: hostdBinary(t), Args: []string{"--stdio", "--state-dir", t.TempDir(), "--log-level", "debug"}, Stdio: true})
	// Everything hostd writes to stdout is kept, to check it afterwards.
	var wire strings.Builder
	c := newClient(t, struct {
		io.Reader
		io.Writer
		io.Closer
	}{io.TeeReader(d.Stdout, &wire), d.Stdin, d.Stdin})

	mustCall(t, c, "host.info", nil, nil)
	mustCall(t, c, "rpc.discover", nil, nil)
	var ref struct{ SessionID string }
	mustCall(t, c, "session.create", map[string]any{"workspace": t.TempDir()}, &ref)
	mustCall(t, c, "session.delete", map[string]any{"sessionId": ref.SessionID}, nil)
	wantCode(t, call(t, c, "no.such.method", nil, nil), -32601, "METHOD_NOT_FOUND")

	// Closing stdin ends the connection, and hostd exits 0.
	d.Stdin.Close()
	if code := d.ExitCode(30 * time.Second); code != 0 {
		t.Fatalf("exit %d", code)
	}
	// Logs went to stderr, and stdout holds nothing but frames.
	if !strings.Contains(d.Log(), `"level":"debug"`) {
		t.Errorf("no debug logs on stderr:\n%s", d.Log())
	}
	br := bufioReader(wire.String())
	frames := 0
	for {
		if _, err := readFrame(br); err != nil {
			if err != io.EOF {
				t.Fatalf("stdout is not only frames: %v", err)
			}
			break
		}
		frames++
	}
	if frames != 5 {
		t.Errorf("%d frames on stdout, want the 5 responses", frames)
	}
}
