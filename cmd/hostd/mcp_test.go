package main

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hostd-dev/hostd/internal/mcpface"
)

// mcpProcess is one `hostd mcp` with the Go SDK's client on its stdin
// and stdout.
type mcpProcess struct {
	*stdioClient // the process, its stderr and exit
	session      *mcp.ClientSession
}

func startMCP(t *testing.T, env []string, args ...string) *mcpProcess {
	t.Helper()
	return startMCPIn(t, append(os.Environ(), env...), args...)
}

// startMCPIn runs `hostd mcp` with exactly the environment env, as an MCP
// host's launcher does.
func startMCPIn(t *testing.T, env []string, args ...string) *mcpProcess {
	t.Helper()
	p := &mcpProcess{stdioClient: &stdioClient{Daemon: startStdioProcess(t, env, "mcp", args...)}}
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: p.Stdout, Writer: p.Stdin}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, p.errText())
	}
	p.session = cs
	return p
}

func (p *mcpProcess) callTool(t *testing.T, name string, args map[string]any) (string, *mcp.CallToolResult) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := p.session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v\n%s", name, err, p.errText())
	}
	return res.Content[0].(*mcp.TextContent).Text, res
}

// exitWithin waits for the process and returns its exit status.
func (p *mcpProcess) exitWithin(t *testing.T, d time.Duration) int {
	t.Helper()
	return p.ExitCode(d)
}

// `hostd mcp` starts the shared daemon when none runs and works in a
// session there: `hostctl sessions` (session.list on the socket) lists
// it and review.list shows its edit. When the daemon goes away, hostd mcp
// says so and exits 1, so its MCP client does not wait forever.
func TestE2EMCPRunsInTheSharedDaemon(t *testing.T) {
	runtime := shortDir(t)
	env := []string{"XDG_STATE_HOME=" + t.TempDir()}
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startMCP(t, env, "--socket", sharedSocket(runtime), "--workspace", ws)

	tools, err := p.session.ListTools(context.Background(), nil)
	if err != nil || len(tools.Tools) != 5 {
		t.Fatalf("tools/list: %v %v", err, tools)
	}
	read, res := p.callTool(t, "read", map[string]any{"path": "a.txt"})
	tag := strings.TrimSuffix(strings.TrimPrefix(strings.SplitN(read, "\n", 2)[0], "[a.txt#"), "]")
	if res.IsError || len(tag) != 4 {
		t.Fatalf("read: %q", read)
	}
	id, _ := res.Meta[mcpface.MetaSessionID].(string)
	edit, res := p.callTool(t, "edit", map[string]any{"path": "a.txt", "tag": tag, "ops": "PUT 2.=2:\n+TWO"})
	// The compact result, the default: a change in place is its new tag.
	if res.IsError || !regexp.MustCompile(`^#[0-9A-F]{4}$`).MatchString(edit) {
		t.Fatalf("edit: %q", edit)
	}
	// And the text alone (no --structured-results): no output schema, no
	// structuredContent, the call named in _meta for review.
	callID, _ := res.Meta[mcpface.MetaToolCallID].(string)
	if res.StructuredContent != nil || res.Meta[mcpface.MetaResult] != nil || callID == "" || tools.Tools[0].OutputSchema != nil {
		t.Errorf("edit: structuredContent %v, _meta %v, output schema %v", res.StructuredContent, res.Meta, tools.Tools[0].OutputSchema)
	}

	nc, err := net.Dial("unix", sharedSocket(runtime))
	if err != nil {
		t.Fatalf("the shared daemon's socket: %v\n%s", err, p.errText())
	}
	c := newClient(t, nc)
	var list struct{ Sessions []struct{ SessionID string } }
	mustCall(t, c, "session.list", nil, &list)
	if len(list.Sessions) != 1 || list.Sessions[0].SessionID != id || !strings.HasPrefix(id, "mcp-e2e-") {
		t.Errorf("session.list %+v, want the MCP session %s", list.Sessions, id)
	}
	var rv struct {
		Entries []struct{ Tool, Path, ToolCallID string }
	}
	mustCall(t, c, "review.list", map[string]string{"sessionId": id}, &rv)
	if len(rv.Entries) != 1 || rv.Entries[0].Tool != "edit" || rv.Entries[0].ToolCallID != callID {
		t.Errorf("review.list %+v, want the edit %s", rv.Entries, callID)
	}

	mustCall(t, c, "host.shutdown", nil, nil)
	if code := p.exitWithin(t, 30*time.Second); code != 1 {
		t.Errorf("exit %d after the daemon went away, want 1", code)
	}
	if !strings.Contains(p.errText(), "the shared hostd closed the connection") {
		t.Errorf("stderr does not say the daemon went away:\n%s", p.errText())
	}
}

// When the MCP client closes stdin, hostd mcp deletes its session (the
// review record stays) and exits 0.
func TestE2EMCPClientHangingUpEndsTheSession(t *testing.T) {
	runtime := shortDir(t)
	socket := filepath.Join(runtime, "s.sock")
	d := startDaemon(t, socket)
	p := startMCP(t, nil, "--socket", socket, "--workspace", t.TempDir())
	// A write larger than the SDK's default 16 MiB message goes through,
	// as it does over JSON-RPC.
	big := strings.Repeat("0123456789abcdef0123456789abcdef0123456789abcdef012345678\n", 300000)
	if out, res := p.callTool(t, "write", map[string]any{"path": "big.txt", "content": big}); res.IsError {
		t.Fatalf("write of %d bytes: %s", len(big), out)
	}
	_, res := p.callTool(t, "write", map[string]any{"path": "n.txt", "content": "n\n"})
	id, _ := res.Meta[mcpface.MetaSessionID].(string)
	c := d.client()
	var list struct{ Sessions []struct{ SessionID string } }
	mustCall(t, c, "session.list", nil, &list)
	if len(list.Sessions) != 1 || list.Sessions[0].SessionID != id {
		t.Fatalf("session.list %+v, want %s", list.Sessions, id)
	}
	p.session.Close()
	if code := p.exitWithin(t, 30*time.Second); code != 0 {
		t.Errorf("exit %d, want 0\n%s", code, p.errText())
	}
	mustCall(t, c, "session.list", nil, &list)
	if len(list.Sessions) != 0 {
		t.Errorf("sessions left: %+v", list.Sessions)
	}
	var rv struct{ Entries []struct{ Path string } }
	mustCall(t, c, "review.list", map[string]string{"sessionId": id}, &rv)
	if len(rv.Entries) != 2 {
		t.Errorf("review.list %+v", rv.Entries)
	}
}

// `hostd mcp --edit-result full` makes its sessions' edit results full:
// the header and every changed line, unless a call asks for compact.
func TestE2EMCPEditResultFull(t *testing.T) {
	runtime := shortDir(t)
	env := []string{"XDG_STATE_HOME=" + t.TempDir()}
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startMCP(t, env, "--socket", sharedSocket(runtime), "--workspace", ws, "--edit-result", "full")
	read, res := p.callTool(t, "read", map[string]any{"path": "a.txt"})
	tag := strings.TrimSuffix(strings.TrimPrefix(strings.SplitN(read, "\n", 2)[0], "[a.txt#"), "]")
	if res.IsError || len(tag) != 4 {
		t.Fatalf("read: %q", read)
	}
	edit, res := p.callTool(t, "edit", map[string]any{"path": "a.txt#" + tag, "ops": "PUT 2:\n+TWO"})
	m := regexp.MustCompile(`^\[a\.txt#([0-9A-F]{4})\]\n2:TWO$`).FindStringSubmatch(edit)
	if res.IsError || m == nil {
		t.Fatalf("edit: %q", edit)
	}
	edit, res = p.callTool(t, "edit", map[string]any{"path": "a.txt#" + m[1], "ops": "PUT 1:\n+ONE", "result": "compact"})
	if res.IsError || !regexp.MustCompile(`^#[0-9A-F]{4}$`).MatchString(edit) {
		t.Fatalf("the call's own form: %q", edit)
	}
}

func TestMCPCommandLines(t *testing.T) {
	code, out, errOut := runHostd(t, "mcp", "--help")
	if code != 0 || !strings.Contains(out, "Usage: hostd mcp") || errOut != "" {
		t.Errorf("--help: exit %d\n%s\n%s", code, out, errOut)
	}
	// Flags are spelt with two dashes, as hostd --help and the docs do.
	for _, flag := range []string{"workspace dir", "socket path", "config file", "http address", "edit-result form"} {
		if !strings.Contains(out, "\n  --"+flag+"\n") {
			t.Errorf("--help does not list --%s:\n%s", flag, out)
		}
	}
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, nil, 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"mcp", "--workspace", "/no/such/dir"}, `--workspace "/no/such/dir" is not an existing directory`},
		{[]string{"mcp", "--workspace", file}, "is not an existing directory"},
		{[]string{"mcp", "extra"}, `unexpected argument "extra"`},
		{[]string{"mcp", "--stdio"}, "unknown flag --stdio; run hostd mcp --help"},
		{[]string{"mcp", "--http", "0.0.0.0:8080"}, `--http "0.0.0.0:8080": give a loopback address and a port, 127.0.0.1:PORT or [::1]:PORT`},
		{[]string{"mcp", "--http", "[::]:8080"}, "give a loopback address"},
		{[]string{"mcp", "--http", "8080"}, "give a loopback address"},
		{[]string{"mcp", "--http", "127.0.0.1:"}, "give a loopback address"},
		{[]string{"mcp", "--http", "127.0.0.1:70000"}, "give a loopback address"},
		{[]string{"mcp", "--edit-result", "short"}, `--edit-result "short": give compact or full`},
	} {
		code, out, errOut := runHostd(t, c.args...)
		if code != 2 || out != "" || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", c.args, code, out, errOut, c.want)
		}
	}
}

// --http takes any loopback address, IPv4 or IPv6, and localhost.
func TestLoopbackAddr(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1:0":    "tcp4 127.0.0.1:0",
		"localhost:8765": "tcp4 127.0.0.1:8765",
		"127.0.0.2:80":   "tcp4 127.0.0.2:80",
		"[::1]:0":        "tcp6 [::1]:0",
		"[::1]:8765":     "tcp6 [::1]:8765",
		"0.0.0.0:80":     "",
		"[::]:80":        "",
		"10.0.0.1:80":    "",
		"example.com:80": "",
		"[::1]":          "",
		"::1:80":         "",
	} {
		network, hostport, err := loopbackAddr(addr)
		if got := network + " " + hostport; (want == "" && err == nil) || (want != "" && got != want) {
			t.Errorf("%s: %q %v, want %q", addr, got, err, want)
		}
	}
}
