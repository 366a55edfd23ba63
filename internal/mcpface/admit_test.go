package mcpface

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hostd-dev/hostd/config"
)

// faceWith is a face of at most max MCP sessions on d.
func faceWith(t *testing.T, d Daemon, max int, roots ...string) *Face {
	t.Helper()
	f, err := New(context.Background(), Options{Daemon: d, Roots: roots, Version: "test", MaxSessions: max})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close(context.Background()) })
	return f
}

// httpClient connects a Go SDK client named name to the face at url.
func httpClient(t *testing.T, url, token, name string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: withToken(token), MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("%s: connect: %v", name, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// tryRead is a read that may fail at the protocol level (a reclaimed
// session); ok is false then.
func tryRead(cs *mcp.ClientSession) (string, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read", Arguments: map[string]any{"path": "main.go"}})
	if err != nil || res.IsError {
		return "", false
	}
	id, _ := res.Meta[MetaSessionID].(string)
	return id, true
}

// One-shot clients (each opens an MCP session, reads once and goes
// without a DELETE) never make the face hold more than its cap: each new
// one ends the least recently used idle session, whose hostd session is
// deleted before the new one runs anything. The sessions in use stay.
func TestFaceHoldsAtMostItsCap(t *testing.T) {
	d := daemon(t)
	url, token := serveHTTP(t, faceWith(t, d, 3, project(t)), time.Hour)
	var clients []*mcp.ClientSession
	var ids []string
	for i := range 10 {
		cs := httpClient(t, url, token, fmt.Sprintf("oneshot%d", i))
		id, ok := tryRead(cs)
		if !ok {
			t.Fatalf("client %d: the read failed", i)
		}
		clients, ids = append(clients, cs), append(ids, id)
		if n := len(sessions(t, d)); n > 3 {
			t.Fatalf("after client %d the daemon holds %d sessions of a face capped at 3", i, n)
		}
	}
	live := sessions(t, d)
	for i, id := range ids {
		if _, ok := live[id]; ok != (i >= 7) {
			t.Errorf("client %d's hostd session live=%v; want only the 3 most recent", i, ok)
		}
	}
	// The reclaimed clients are told their session is gone; the held ones
	// go on in the same hostd session.
	if _, ok := tryRead(clients[0]); ok {
		t.Error("a reclaimed session still ran a call")
	}
	for i := 7; i < 10; i++ {
		if id, ok := tryRead(clients[i]); !ok || id != ids[i] {
			t.Errorf("client %d: ok=%v in %s, want its session %s", i, ok, id, ids[i])
		}
	}
}

// The session reclaimed is the least recently used, not the oldest.
func TestFaceReclaimsTheLeastRecentlyUsed(t *testing.T) {
	d := daemon(t)
	url, token := serveHTTP(t, faceWith(t, d, 3, project(t)), time.Hour)
	var clients []*mcp.ClientSession
	var ids []string
	for i := range 3 {
		cs := httpClient(t, url, token, fmt.Sprintf("c%d", i))
		id, _ := tryRead(cs)
		clients, ids = append(clients, cs), append(ids, id)
	}
	tryRead(clients[0]) // c0 is now more recent than c1
	httpClient(t, url, token, "c3")
	live := sessions(t, d)
	if _, ok := live[ids[1]]; ok {
		t.Error("c1, the least recently used, was kept")
	}
	if _, ok := live[ids[0]]; !ok {
		t.Error("c0, used after c1, was reclaimed")
	}
}

// blockingDaemon holds every tools.execute until release is closed.
type blockingDaemon struct {
	Daemon
	started chan struct{}
	release chan struct{}
}

func (d blockingDaemon) Call(ctx context.Context, method string, params, result any) error {
	if method == "tools.execute" {
		d.started <- struct{}{}
		<-d.release
	}
	return d.Daemon.Call(ctx, method, params, result)
}

// A session with a call running is never reclaimed: when every held
// session is busy, a new one is refused with SESSION_LIMIT (and can come
// back once a call has finished).
func TestFaceNeverReclaimsABusySession(t *testing.T) {
	d := blockingDaemon{daemon(t), make(chan struct{}, 1), make(chan struct{})}
	url, token := serveHTTP(t, faceWith(t, d, 1, project(t)), time.Hour)
	busy := httpClient(t, url, token, "busy")
	var wg sync.WaitGroup
	var ok bool
	wg.Go(func() { _, ok = tryRead(busy) })
	<-d.started

	client := mcp.NewClient(&mcp.Implementation{Name: "late", Version: "1"}, nil)
	_, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: withToken(token), MaxRetries: -1}, nil)
	if err == nil || !strings.Contains(err.Error(), "each has a call running") {
		t.Errorf("a new session while the only one is busy: %v, want SESSION_LIMIT", err)
	}
	close(d.release)
	wg.Wait()
	if !ok {
		t.Fatal("the busy session's call failed")
	}
	d.started = make(chan struct{}, 8)
	late := httpClient(t, url, token, "late")
	if _, ok := tryRead(late); !ok {
		t.Error("a new session after the call finished was not served")
	}
}

// When the daemon is full because of other clients, a new MCP session's
// first call ends the face's least recently used idle session to make
// room, and the other clients' sessions are left alone.
func TestFullDaemonReclaimsTheFacesOwnIdleSession(t *testing.T) {
	lim := config.DefaultLimits()
	lim.MaxSessions = 4
	d := daemonWith(t, lim)
	for i := range 3 {
		if err := d.Call(context.Background(), "session.create", map[string]string{"sessionId": fmt.Sprintf("app-%d", i), "workspace": t.TempDir()}, nil); err != nil {
			t.Fatal(err)
		}
	}
	url, token := serveHTTP(t, faceWith(t, d, 2, project(t)), time.Hour)
	idle, ok := tryRead(httpClient(t, url, token, "idle"))
	if !ok {
		t.Fatal("the first MCP read failed")
	}
	fresh, ok := tryRead(httpClient(t, url, token, "fresh"))
	if !ok {
		t.Fatal("a new MCP session found the daemon full and was not given room")
	}
	live := sessions(t, d)
	if _, ok := live[idle]; ok {
		t.Error("the idle MCP session was not reclaimed")
	}
	for _, id := range []string{"app-0", "app-1", "app-2", fresh} {
		if _, ok := live[id]; !ok {
			t.Errorf("session %s is gone", id)
		}
	}
}

// A face holds at most half the daemon's sessions, whatever it was asked
// to hold, so it cannot fill the daemon alone.
func TestFaceCapIsAtMostHalfTheDaemons(t *testing.T) {
	lim := config.DefaultLimits()
	lim.MaxSessions = 8
	d := daemonWith(t, lim)
	for want, asked := range map[int]int{4: 64, 3: 3, 1: 1} {
		if f := faceWith(t, d, asked); f.maxHeld != want {
			t.Errorf("asked for %d on a daemon of 8: holds %d, want %d", asked, f.maxHeld, want)
		}
	}
	if f := faceWith(t, d, 0); f.maxHeld != 4 {
		t.Errorf("no cap asked: holds %d, want 4", f.maxHeld)
	}
}

// A request on a session that never initializes (a client's
// server/discover probe, which the SDK closes once answered) takes no
// place: it never ends a session in use.
func TestProbesTakeNoPlace(t *testing.T) {
	d := daemon(t)
	url, token := serveHTTP(t, faceWith(t, d, 1, project(t)), time.Hour)
	id, ok := tryRead(httpClient(t, url, token, "user"))
	if !ok {
		t.Fatal("the read failed")
	}
	for range 3 {
		post(t, url, "Bearer "+token, `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}`)
		post(t, url, "Bearer "+token, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	}
	if _, ok := sessions(t, d)[id]; !ok {
		t.Error("probes on new sessions ended the session in use")
	}
}
