package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpHTTP is one `hostd mcp --http` process: its endpoint, token file
// and token.
type mcpHTTP struct {
	*daemon
	url, tokenFile, token string
}

var (
	urlLine   = regexp.MustCompile(`at (http://\S+/mcp) `)
	tokenLine = regexp.MustCompile(`the token \(new at every start\) is in (\S+)\n`)
)

// startMCPHTTP runs `hostd mcp --http ADDR args...` with its state
// directory under stateHome and waits for the lines that name its URL
// and token file.
func startMCPHTTP(t *testing.T, stateHome, addr string, args ...string) *mcpHTTP {
	t.Helper()
	t.Setenv("XDG_STATE_HOME", stateHome)
	p := &mcpHTTP{daemon: launch(t, append([]string{"mcp", "--http", addr}, args...)...)}
	if !p.waitStderr("the token (new at every start) is in", 30*time.Second) {
		t.Fatalf("hostd mcp --http did not start:\n%s", p.output())
	}
	p.url = urlLine.FindStringSubmatch(p.output())[1]
	p.tokenFile = tokenLine.FindStringSubmatch(p.output())[1]
	b, err := os.ReadFile(p.tokenFile)
	if err != nil {
		t.Fatal(err)
	}
	p.token = string(b)
	return p
}

// connectHTTP connects a Go SDK client named name, sending token.
func connectHTTP(t *testing.T, url, token, name string) (*mcp.ClientSession, error) {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, nil)
	hc := &http.Client{Transport: bearer{token}}
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc, MaxRetries: -1}, nil)
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// postMCP sends one POST of body to url with the Authorization header
// auth (none when empty) and returns the status and body.
func postMCP(t *testing.T, url, auth, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// oneShot is what a client that opens an MCP session per call sends: one
// POST with initialize, notifications/initialized and one tool call
// (batched, as protocol 2025-03-26 allows), and never a DELETE.
func oneShot(tool, args string) string {
	return `[{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"oneshot","version":"1"}}},` +
		`{"jsonrpc":"2.0","method":"notifications/initialized"},` +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}]`
}

// `hostd mcp --http 127.0.0.1:0` serves streamable HTTP on loopback to
// requests that carry the token it wrote, 0600 in a 0700 directory under
// the state directory; a client with the token runs tools in the shared
// daemon's session, one without is answered 401 and runs nothing. The
// token file goes when the server does.
func TestE2EMCPOverHTTP(t *testing.T) {
	socket := filepath.Join(shortDir(t), "s.sock")
	d := startDaemon(t, socket)
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("a\n"), 0o644)
	state := t.TempDir()
	p := startMCPHTTP(t, state, "127.0.0.1:0", "--socket", socket, "--workspace", ws, "--structured-results")

	if !strings.HasPrefix(p.url, "http://127.0.0.1:") || filepath.Dir(p.tokenFile) != filepath.Join(state, "hostd", "mcp") || len(p.token) != 64 {
		t.Fatalf("url %s, token file %s, token %q", p.url, p.tokenFile, p.token)
	}
	for path, want := range map[string]os.FileMode{p.tokenFile: 0o600, filepath.Dir(p.tokenFile): 0o700} {
		if info, err := os.Stat(path); err != nil || info.Mode().Perm() != want {
			t.Errorf("%s: mode %v (%v), want %04o", path, info.Mode().Perm(), err, want)
		}
	}

	for _, auth := range []string{"", "Bearer " + strings.Repeat("0", 64)} {
		status, body := postMCP(t, p.url, auth, oneShot("write", `{"path":"b.txt","content":"b\n"}`))
		if status != http.StatusUnauthorized || !strings.Contains(body, p.tokenFile) {
			t.Errorf("auth %q: %d %q, want 401 naming the token file", auth, status, body)
		}
	}
	if _, err := os.Stat(filepath.Join(ws, "b.txt")); !os.IsNotExist(err) {
		t.Errorf("a request without the token wrote b.txt (%v)", err)
	}

	cs, err := connectHTTP(t, p.url, p.token, "http-e2e")
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read", Arguments: map[string]any{"path": "a.txt"}})
	if err != nil || res.IsError || !strings.HasSuffix(res.Content[0].(*mcp.TextContent).Text, "\n1:a") {
		t.Fatalf("read: %v %+v", err, res)
	}
	if sc, _ := res.StructuredContent.(map[string]any); sc["path"] != "a.txt" || sc["tag"] == nil {
		t.Errorf("structuredContent %v", res.StructuredContent)
	}
	var list struct{ Sessions []struct{ SessionID string } }
	mustCall(t, d.client(), "session.list", nil, &list)
	if len(list.Sessions) != 1 || !strings.HasPrefix(list.Sessions[0].SessionID, "mcp-http-e2e-") {
		t.Errorf("session.list %+v", list.Sessions)
	}

	cs.Close()
	p.Cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.Exited():
	case <-time.After(15 * time.Second):
		t.Fatal("hostd mcp --http did not exit on SIGINT")
	}
	if _, err := os.Stat(p.tokenFile); !os.IsNotExist(err) {
		t.Errorf("the token file outlived the server (%v)", err)
	}
}

// --http [::1]:0 serves on IPv6 loopback.
func TestE2EMCPOverHTTPOnIPv6(t *testing.T) {
	if l, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp6", "[::1]:0"); err != nil {
		t.Skipf("no IPv6 loopback here: %v", err)
	} else {
		l.Close()
	}
	socket := filepath.Join(shortDir(t), "s.sock")
	startDaemon(t, socket)
	p := startMCPHTTP(t, t.TempDir(), "[::1]:0", "--socket", socket, "--workspace", t.TempDir())
	if !strings.HasPrefix(p.url, "http://[::1]:") || !strings.Contains(p.tokenFile, "http-ipv6-loopback-") {
		t.Fatalf("url %s, token file %s", p.url, p.tokenFile)
	}
	cs, err := connectHTTP(t, p.url, p.token, "v6")
	if err != nil {
		t.Fatal(err)
	}
	if res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "write", Arguments: map[string]any{"path": "a.txt", "content": "a\n"}}); err != nil || res.IsError {
		t.Fatalf("write over [::1]: %v %+v", err, res)
	}
}

// The flood: 260 one-shot MCP sessions (initialize and one read
// in one POST, never a DELETE) against a daemon of 256 sessions. The face
// holds at most maxMcpSessions (64) of them, ending the least recently
// used, so a plain session.create still succeeds afterwards and a new MCP
// client is still served.
func TestE2EMCPOneShotFloodLeavesRoom(t *testing.T) {
	socket := filepath.Join(shortDir(t), "s.sock")
	d := startDaemon(t, socket)
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("a\n"), 0o644)
	p := startMCPHTTP(t, t.TempDir(), "127.0.0.1:0", "--socket", socket, "--workspace", ws)

	start := time.Now()
	for i := range 260 {
		status, body := postMCP(t, p.url, "Bearer "+p.token, oneShot("read", `{"path":"a.txt"}`))
		if status != http.StatusOK || !strings.Contains(body, `1:a`) {
			t.Fatalf("one-shot %d: %d %q", i, status, body)
		}
	}
	t.Logf("260 one-shot sessions in %v", time.Since(start).Round(time.Millisecond))

	c := d.client()
	var list struct{ Sessions []struct{ SessionID string } }
	mustCall(t, c, "session.list", nil, &list)
	if len(list.Sessions) > 64 {
		t.Errorf("the daemon holds %d sessions of one MCP face, more than maxMcpSessions (64)", len(list.Sessions))
	}
	mustCall(t, c, "session.create", map[string]string{"sessionId": "app-window", "workspace": ws}, nil)
	cs, err := connectHTTP(t, p.url, p.token, "after-flood")
	if err != nil {
		t.Fatal(err)
	}
	if res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read", Arguments: map[string]any{"path": "a.txt"}}); err != nil || res.IsError {
		t.Fatalf("a new MCP client after the flood: %v %+v", err, res)
	}
}

// lockedBuffer is a log one goroutine writes while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
