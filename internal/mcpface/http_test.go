package mcpface

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Over streamable HTTP each MCP session has its own hostd session, and a
// client that ends its MCP session (DELETE) ends the hostd one.
func TestHTTPSessionsAreHostdSessions(t *testing.T) {
	d := daemon(t)
	f := newFace(t, d, project(t))
	srv := httptest.NewServer(f.HTTPHandler(time.Hour, 1<<20))
	defer srv.Close()

	var ids []string
	var css []*mcp.ClientSession
	for range 2 {
		client := mcp.NewClient(&mcp.Implementation{Name: "http", Version: "1"}, nil)
		cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp"}, nil)
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
	deadline := time.Now().Add(10 * time.Second)
	for {
		s := sessions(t, d)
		if _, ok := s[ids[0]]; !ok {
			if _, ok := s[ids[1]]; !ok {
				t.Fatal("closing one MCP session ended the other's hostd session")
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("hostd session %s outlived its MCP session", ids[0])
		}
		time.Sleep(10 * time.Millisecond)
	}
	css[1].Close()
}

// A browser page on another site cannot drive the tools: cross-origin
// requests, and requests naming a non-loopback Host (DNS rebinding), are
// refused before they reach a session.
func TestHTTPRefusesBrowsersAndRebinding(t *testing.T) {
	f := newFace(t, daemon(t), project(t))
	srv := httptest.NewServer(f.HTTPHandler(time.Hour, 1<<20))
	defer srv.Close()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	for name, set := range map[string]func(*http.Request){
		"cross-site": func(r *http.Request) { r.Header.Set("Sec-Fetch-Site", "cross-site") },
		"origin":     func(r *http.Request) { r.Header.Set("Origin", "https://evil.example") },
		"rebinding":  func(r *http.Request) { r.Host = "evil.example:80" },
		"allowed":    func(*http.Request) {},
	} {
		req, _ := http.NewRequest("POST", srv.URL+"/mcp", strings.NewReader(body))
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
	srv := httptest.NewServer(newFace(t, d, project(t)).HTTPHandler(200*time.Millisecond, 1<<20))
	defer srv.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "idle", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	id := sessionOf(t, call(t, cs, "read", map[string]any{"path": "main.go"}))
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, ok := sessions(t, d)[id]; !ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("hostd session still live after its MCP session idled out")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
