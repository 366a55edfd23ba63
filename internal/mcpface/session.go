package mcpface

//lint:file-ignore SA1019 MCP 2026-07-28 deprecates roots (SEP-2577), but clients still name their workspace with them and older protocol versions are the common case; --workspace is the way that does not need them.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hostd-dev/hostd/internal/client"
	"github.com/hostd-dev/hostd/internal/quote"
	"github.com/hostd-dev/hostd/rpc/wire"
)

// binding is the hostd session of one MCP session.
type binding struct {
	// mu guards the fields below and is held while the hostd session is
	// created, re-created or deleted, so concurrent first calls make one.
	mu    sync.Mutex
	id    string   // the hostd sessionId, chosen at the first tool call and kept
	live  bool     // the daemon holds session id, made with roots
	roots []string // the roots it was created with
	stale bool     // the client said its roots changed
	gone  bool     // the MCP session ended: nothing is created any more
}

// rootsError is a problem with the roots the session would get: the next
// step is the user's (give --workspace, or fix the client's roots).
type rootsError struct{ msg string }

func (e *rootsError) Error() string { return e.msg }

// errEnded: a tool call arrived after its MCP session ended.
var errEnded = errors.New("the MCP session has ended; reconnect")

func (b *binding) markStale() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.stale = true
}

// ensure returns the hostd session's id, creating the session on first
// use, after the daemon lost it, and again (same id, so one review
// history) when the client's roots changed.
func (b *binding) ensure(ctx context.Context, d Daemon, fixed []string, form string, cr clientRoots) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.gone {
		return "", errEnded
	}
	if b.live && !b.stale {
		return b.id, nil
	}
	roots := fixed
	switch {
	case len(roots) > 0:
	case !b.live && !b.stale && b.roots != nil:
		roots = b.roots // lost by the daemon: made again as it was
	default:
		var err error
		if roots, err = cr.paths(ctx); err != nil {
			return "", err
		}
	}
	b.stale = false
	if b.live {
		if slices.Equal(roots, b.roots) {
			return b.id, nil
		}
		// session.setWorkspace keeps the approved roots; new roots need
		// a new session. Its snapshots go either way.
		if err := client.Typed(d).SessionDelete(ctx, wire.SessionIDParams{SessionID: b.id}); err != nil && !client.Is(err, wire.CodeSessionNotFound) {
			return "", fmt.Errorf("move the session to the client's new roots: %w", err)
		}
		b.live = false
	}
	if b.id == "" {
		b.id = newSessionID(cr.session)
	}
	if _, err := client.Typed(d).SessionCreate(ctx, createParams(b.id, roots, form)); err != nil {
		return "", err
	}
	b.live, b.roots = true, roots
	return b.id, nil
}

// lost records that the daemon no longer has session id (hostctl deleted
// it), so the next ensure makes it again.
func (b *binding) lost(id string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.id == id {
		b.live = false
	}
}

// close deletes the hostd session; its review records stay.
func (b *binding) close(ctx context.Context, d Daemon) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.gone = true
	if b.live {
		client.Typed(d).SessionDelete(ctx, wire.SessionIDParams{SessionID: b.id})
		b.live = false
	}
}

// createParams are session.create's params: the first root is the
// workspace, the others are approved and writable, as the user gave them;
// form is the edit result form.
func createParams(id string, roots []string, form string) wire.SessionCreateParams {
	p := wire.SessionCreateParams{SessionID: id, Workspace: roots[0]}
	setString(&p.EditResult, form)
	for _, r := range roots[1:] {
		p.ExternalRoots = append(p.ExternalRoots, wire.ExternalRoot{Path: r, Writable: true})
	}
	return p
}

// setString sets a string-kinded wire field, whatever the name of its
// type.
func setString[T ~string](dst *T, s string) { *dst = T(s) }

// errAskRoots: the client's roots are needed and the client takes the
// request for them only as an input request of the tool call's result
// (protocol 2026-07-28, multi round-trip requests).
var errAskRoots = errors.New("ask the client for its roots")

// rootsRequest is the id of the roots/list input request.
const rootsRequest = "roots"

// clientRoots are the roots of the MCP client behind one tool call: the
// list it sent with the call (listed, when have is true) or the one it
// will send when asked.
type clientRoots struct {
	session *mcp.ServerSession
	listed  []*mcp.Root
	have    bool
}

// rootsOf takes the roots a retried call carries.
func rootsOf(req *mcp.CallToolRequest) clientRoots {
	c := clientRoots{session: req.Session}
	if r, ok := req.Params.InputResponses[rootsRequest].(*mcp.ListRootsResult); ok {
		c.listed, c.have = r.Roots, true
	}
	return c
}

// paths are the client's roots as absolute paths. A client of protocol
// 2026-07-28 or later gets the request as an input request of the tool
// call (errAskRoots); an older one is sent roots/list.
func (c clientRoots) paths(ctx context.Context) ([]string, error) {
	if !c.have {
		if p := c.session.InitializeParams(); p == nil || p.ProtocolVersion >= "2026-07-28" {
			return nil, errAskRoots
		}
		res, err := c.session.ListRoots(ctx, nil)
		if err != nil {
			// The SDK does not tell a server whether the client declared
			// the roots capability; a client without it refuses the
			// request.
			return nil, &rootsError{fmt.Sprintf("hostd was started without a workspace and the MCP client gave no roots (%v): start it as `hostd mcp --workspace DIR`", err)}
		}
		c.listed = res.Roots
	}
	var paths []string
	for _, r := range c.listed {
		p, err := rootPath(r.URI)
		if err != nil {
			return nil, &rootsError{err.Error()}
		}
		paths = append(paths, p)
	}
	if len(paths) == 0 {
		return nil, &rootsError{"the MCP client listed no roots: open a folder in the client, or start hostd as `hostd mcp --workspace DIR`"}
	}
	return paths, nil
}

// rootPath turns a root's file:// URI into an absolute path.
func rootPath(uri string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || (u.Host != "" && u.Host != "localhost") {
		return "", fmt.Errorf("root %s is not a local file:// URI; hostd serves local directories only: start it as `hostd mcp --workspace DIR`", quote.Short(uri))
	}
	if !filepath.IsAbs(u.Path) {
		return "", fmt.Errorf("root %s names no absolute path; give file:///abs/dir", quote.Short(uri))
	}
	return filepath.Clean(u.Path), nil
}

// newSessionID names the hostd session after the MCP client, so
// `hostctl sessions` tells them apart: mcp-CLIENT-RANDOM.
func newSessionID(ss *mcp.ServerSession) string {
	var name string
	if p := ss.InitializeParams(); p != nil && p.ClientInfo != nil {
		name = p.ClientInfo.Name
	}
	return sessionIDFor(name)
}

// sessionIDFor is a fresh session id for a client of that name, spelt
// with the characters session.create takes.
func sessionIDFor(name string) string {
	if name == "" {
		name = "client"
	}
	name = strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '-'
	}, name)
	if len(name) > 40 {
		name = name[:40]
	}
	var b [6]byte
	rand.Read(b[:])
	return "mcp-" + name + "-" + hex.EncodeToString(b[:])
}
