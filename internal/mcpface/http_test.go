package mcpface

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hostd-dev/hostd/internal/testenv"
)

// serveHTTP serves f over streamable HTTP with a fresh token, and returns
// the endpoint and the token.
func serveHTTP(t *testing.T, f *Face, idle time.Duration) (url, token string) {
	t.Helper()
	token = NewToken()
	h, err := f.HTTPHandler(HTTPOptions{Token: token, TokenFile: "/run/hostd/t.token", Idle: idle, MaxBody: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp", token
}

// withToken is an HTTP client that sends token as the bearer credential.
func withToken(token string) *http.Client {
	return &http.Client{Transport: bearerTransport{token}}
}

type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// Over streamable HTTP each MCP session has its own hostd session, and a
// client that ends its MCP session (DELETE) ends the hostd one.
func TestHTTPSessionsAreHostdSessions(t *testing.T) {
	d := daemon(t)
	f := newFace(t, d, project(t))
	url, token := serveHTTP(t, f, time.Hour)

	var ids []string
	var css []*mcp.ClientSession
	for range 2 {
		client := mcp.NewClient(&mcp.Implementation{Name: "http", Version: "1"}, nil)
		cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: withToken(token)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		res := call(t, cs, "read", map[string]any{"path": "main.go"})
		if res.IsError || !header.MatchString(text(t, res)) {
			t.Fatalf("read over HTTP: %q", text(t, res))
		}
		ids = append(ids, sessionOf(t, res))
		css = append(css, cs)
	}
	if ids[0] == ids[1] || len(sessions(t, d)) != 2 {
		t.Fatalf("two MCP sessions, hostd sessions %v (ids %v)", sessions(t, d), ids)
	}
	css[0].Close()
	testenv.Until(t, 10*time.Second, "hostd session "+ids[0]+" to end with its MCP session", func() bool {
		s := sessions(t, d)
		if _, ok := s[ids[0]]; ok {
			return false
		}
		if _, ok := s[ids[1]]; !ok {
			t.Fatal("closing one MCP session ended the other's hostd session")
		}
		return true
	})
	css[1].Close()
}

// A browser page on another site cannot drive the tools: cross-origin
// requests, and requests naming a non-loopback Host (DNS rebinding), are
// refused before they reach a session.
func TestHTTPRefusesBrowsersAndRebinding(t *testing.T) {
	url, token := serveHTTP(t, newFace(t, daemon(t), project(t)), time.Hour)
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	for name, set := range map[string]func(*http.Request){
		"cross-site": func(r *http.Request) { r.Header.Set("Sec-Fetch-Site", "cross-site") },
		"origin":     func(r *http.Request) { r.Header.Set("Origin", "https://evil.example") },
		"rebinding":  func(r *http.Request) { r.Host = "evil.example:80" },
		"allowed":    func(*http.Request) {},
	} {
		req, _ := http.NewRequest("POST", url, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		set(req)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if want := http.StatusForbidden; name != "allowed" && res.StatusCode != want {
			t.Errorf("%s: status %d, want %d", name, res.StatusCode, want)
		}
		if name == "allowed" && res.StatusCode != http.StatusOK {
			t.Errorf("same-site request: status %d", res.StatusCode)
		}
	}
}

// An HTTP MCP session left idle past the bound ends, and its hostd
// session with it.
func TestHTTPIdleSessionEnds(t *testing.T) {
	d := daemon(t)
	url, token := serveHTTP(t, newFace(t, d, project(t)), 200*time.Millisecond)
	client := mcp.NewClient(&mcp.Implementation{Name: "idle", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: withToken(token)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	id := sessionOf(t, call(t, cs, "read", map[string]any{"path": "main.go"}))
	testenv.Until(t, 10*time.Second, "the hostd session to end once its MCP session idled out", func() bool {
		_, ok := sessions(t, d)[id]
		return !ok
	})
}

// attackBatch is one POST that opens an MCP session and writes a file:
// initialize, notifications/initialized and tools/call write, batched
// (protocol 2025-03-26 allows batches).
const attackBatch = `[{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"x","version":"1"}}},` +
	`{"jsonrpc":"2.0","method":"notifications/initialized"},` +
	`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write","arguments":{"path":"pwned.txt","content":"x\n"}}}]`

// post sends body to url with the Authorization header auth (none when
// empty) and returns the status and the response body.
func post(t *testing.T, url, auth, body string) (int, string) {
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

// A request without the token, or with another, is answered 401 and
// nothing runs: no MCP session, no hostd session, no file. The token
// must come in the Authorization header: not in the URL, not under
// another scheme.
func TestHTTPRefusesRequestsWithoutTheToken(t *testing.T) {
	d := daemon(t)
	dir := project(t)
	url, token := serveHTTP(t, newFace(t, d, dir), time.Hour)
	wrong := []byte(token)
	wrong[len(wrong)-1] ^= 1
	for name, c := range map[string]struct{ url, auth string }{
		"no header":      {url, ""},
		"wrong token":    {url, "Bearer " + string(wrong)},
		"token prefix":   {url, "Bearer " + token[:32]},
		"token and more": {url, "Bearer " + token + "0"},
		"empty bearer":   {url, "Bearer "},
		"basic scheme":   {url, "Basic " + token},
		"bare token":     {url, token},
		"token in query": {url + "?token=" + token, ""},
	} {
		status, body := post(t, c.url, c.auth, attackBatch)
		if status != http.StatusUnauthorized || !strings.Contains(body, "Authorization: Bearer TOKEN") || !strings.Contains(body, "/run/hostd/t.token") {
			t.Errorf("%s: status %d %q, want 401 naming the header and the token file", name, status, body)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "pwned.txt")); !os.IsNotExist(err) {
		t.Fatalf("a request without the token wrote the file (%v)", err)
	}
	if s := sessions(t, d); len(s) != 0 {
		t.Fatalf("a request without the token made sessions %v", s)
	}

	// The same request with the token runs: the refusals above were the
	// token's. The scheme's name is case-insensitive.
	status, body := post(t, url, "bearer "+token, attackBatch)
	if status != http.StatusOK {
		t.Fatalf("with the token: status %d %q", status, body)
	}
	// On the wire, the result is the text the model reads, once.
	if !strings.Contains(body, `"content":[{"type":"text","text":"[pwned.txt#`) || strings.Contains(body, "structuredContent") {
		t.Errorf("the result is not its text block alone: %s", body)
	}
	if _, err := os.Stat(filepath.Join(dir, "pwned.txt")); err != nil {
		t.Fatalf("with the token the write did not land: %v", err)
	}
}

// The handler refuses to run without a token worth the name.
func TestHTTPHandlerNeedsAToken(t *testing.T) {
	f := newFace(t, daemon(t), project(t))
	for _, token := range []string{"", "short"} {
		if _, err := f.HTTPHandler(HTTPOptions{Token: token, Idle: time.Hour, MaxBody: 1 << 20}); err == nil {
			t.Errorf("token %q accepted", token)
		}
	}
	if a, b := NewToken(), NewToken(); len(a) != 64 || a == b {
		t.Errorf("NewToken: %q, %q", a, b)
	}
}
