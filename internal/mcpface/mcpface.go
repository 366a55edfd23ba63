// Package mcpface is hostd's face on the Model Context Protocol. One MCP
// connection is one hostd session, and each MCP tool call is one
// tools.execute on that session, so review and rollback see MCP work like
// any other client's. It owns only the mapping: the tool list (taken from
// the daemon's tools.definitions, the one embedded source of tool text,
// with output schemas from the result schemas of its rpc.discover), the
// session's roots (fixed ones, or the client's roots/list), a tool result
// turned into an MCP result carrying the same text the model sees over
// JSON-RPC, how many MCP sessions it holds (limits.maxMcpSessions, least
// recently used idle ones ended past it), and the streamable HTTP handler
// with its token check. It must not run tools, touch files or keep
// records: those stay with the daemon it reaches through a Daemon.
package mcpface

//lint:file-ignore SA1019 MCP 2026-07-28 deprecates roots (SEP-2577), but clients still name their workspace with them and older protocol versions are the common case; --workspace is the way that does not need them.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hostd-dev/hostd/internal/client"
	"github.com/hostd-dev/hostd/rpc/wire"
)

// Meta keys of a tool result's _meta: the hostd session the call ran in
// and the call's id (MetaToolCallID), which review and rollback name it
// by, and with Options.Structured the whole hostd result except content
// (ok, toolCallId, warnings, error, tag, terminate, ...). Clients that
// know them can offer review and rollback; others ignore them.
const (
	MetaResult    = "dev.hostd/result"
	MetaSessionID = "dev.hostd/sessionId"
)

// Meta keys a client may put in a tools/call's _meta to name the call's
// user turn and its review id (tools.execute's promptId and toolCallId).
// A result's _meta names its call's id under MetaToolCallID too.
const (
	MetaPromptID   = "dev.hostd/promptId"
	MetaToolCallID = "dev.hostd/toolCallId"
)

// Options configure a Face.
type Options struct {
	// Daemon runs the tools.
	Daemon Daemon
	// Roots are the session's roots, the first its workspace and the
	// others writable approved roots. Empty: the client's roots/list.
	Roots []string
	// Version is reported to MCP clients as the server's version.
	Version string
	// MaxFrameBytes is the daemon's frame cap (limits.maxFrameBytes): a
	// call whose arguments would not fit in one frame is refused here,
	// since the daemon closes a connection that sends a larger one.
	// 0: no check.
	MaxFrameBytes int64
	// MaxSessions bounds the MCP sessions (and so the hostd sessions)
	// the face holds at once (limits.maxMcpSessions); it is lowered to
	// half the daemon's maxSessions when that is less, so one face never
	// fills the daemon. Past it the least recently used idle session is
	// ended. 0: half the daemon's maxSessions.
	MaxSessions int
	// EditResult is the form of the MCP sessions' edit results when a
	// call does not choose one (session.create's editResult): "compact"
	// (also when empty) or "full".
	EditResult string
	// Structured gives each tool an outputSchema and each result the
	// whole tools.execute result as structuredContent and in _meta. Off,
	// a result is its text block, and _meta carries only the session and
	// the call's id: hosts that give the model structuredContent instead
	// of the text (Claude Code), or beside it, made it pay for the result
	// several times over: the token benchmark's compact edit results
	// about 2,770 tokens instead of 66 (docs/benchmarks.md, section 1).
	Structured bool
}

// Face serves hostd's tools to MCP clients. Each MCP session gets its
// own hostd session on first use, deleted when the MCP session ends (its
// review records stay with the daemon).
type Face struct {
	daemon   Daemon
	roots    []string
	form     string // the sessions' edit result form
	server   *mcp.Server
	maxFrame int64
	maxHeld  int
	// structured: Options.Structured, and the daemon described the
	// tool's results, so it has an outputSchema and its results carry
	// structuredContent.
	structured map[string]bool

	// mu guards the fields below and every held session's bookkeeping;
	// a binding's own lock is taken after it is released, never under it.
	mu sync.Mutex
	// sessions are the MCP sessions the face serves (those reclaimed but
	// not yet closed included), each with its hostd session.
	sessions map[*mcp.ServerSession]*held
	live     int    // sessions counted and not reclaimed: at most maxHeld
	clock    uint64 // ticks at every request, for least-recently-used order
	closed   bool   // Close ran: no new session is admitted
	// ending counts the sessions whose hostd session is being deleted
	// (ended, reclaimed or closed); Close waits for them, so a process
	// that returns from Close leaves no session behind. Add is called
	// under mu, when the session stops counting as live.
	ending sync.WaitGroup
}

// New asks the daemon for its tool definitions, the schemas of their
// results and its session limit, and builds the MCP server that lists
// the tools.
func New(ctx context.Context, opts Options) (*Face, error) {
	defs, err := client.Typed(opts.Daemon).ToolsDefinitions(ctx)
	if err != nil {
		return nil, fmt.Errorf("ask hostd for its tools: %w", err)
	}
	var outputs map[string]map[string]any
	if opts.Structured {
		if outputs, err = outputSchemas(ctx, opts.Daemon); err != nil {
			return nil, err
		}
	}
	maxHeld, err := sessionCap(ctx, opts.Daemon, opts.MaxSessions)
	if err != nil {
		return nil, err
	}
	form := opts.EditResult
	switch form {
	case "":
		form = "compact"
	case "compact", "full":
	default:
		return nil, fmt.Errorf("edit result form %q is neither \"compact\" nor \"full\"", form)
	}
	f := &Face{daemon: opts.Daemon, roots: opts.Roots, form: form, maxFrame: opts.MaxFrameBytes, maxHeld: maxHeld,
		structured: map[string]bool{}, sessions: map[*mcp.ServerSession]*held{}}
	f.server = mcp.NewServer(&mcp.Implementation{Name: "hostd", Title: "hostd file tools", Version: opts.Version}, &mcp.ServerOptions{
		// Tools only: no logging capability, and the tool list never
		// changes while the daemon runs.
		Capabilities:            &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
		Instructions:            instructions,
		RootsListChangedHandler: f.rootsChanged,
	})
	f.server.AddReceivingMiddleware(f.admit)
	for _, d := range defs.Tools {
		tool := &mcp.Tool{Name: d.Name, Description: d.Description, InputSchema: d.InputSchema, Annotations: annotations[d.Name]}
		if a := annotations[d.Name]; a != nil {
			tool.Title = a.Title
		}
		if s, ok := outputs[d.Name]; ok {
			tool.OutputSchema = s
			f.structured[d.Name] = true
		}
		f.server.AddTool(tool, f.handler(d.Name))
	}
	return f, nil
}

// instructions tell the host (and, through it, the model) how the tools
// go together and what is particular to this face, that tags belong to
// the MCP session; the rules themselves stay in the tool descriptions
// (edit-contract §13.9).
const instructions = "These tools edit files by line number: read or grep a file first, then pass the " +
	"[PATH#TAG] tag its result shows, with the line numbers you saw, to edit. Tags belong to this " +
	"MCP session: after connecting again, read a file again before editing it."

// sessionCap is how many MCP sessions one face holds: want
// (limits.maxMcpSessions), at most half of the daemon's maxSessions, so
// the desktop app and other clients always find room there.
func sessionCap(ctx context.Context, d Daemon, want int) (int, error) {
	info, err := client.Typed(d).HostInfo(ctx)
	if err != nil {
		return 0, fmt.Errorf("ask hostd for its limits: %w", err)
	}
	half := max(1, info.Limits.MaxSessions/2)
	if want <= 0 || want > half {
		return half, nil
	}
	return want, nil
}

// annotations tell an MCP client what each tool does to the files, so it
// can, for example, run read and grep without asking the user. Every tool
// works on local files only (a closed world). write replaces a file whole
// and the same call twice leaves the same file; edit's ops are relative
// to a version, so a repeat is refused or changes more, and REM deletes.
// A tool the daemon adds later is listed without hints until it is
// described here. Each title is also the tool's top-level title.
var annotations = map[string]*mcp.ToolAnnotations{
	"read":  {Title: "Read a file", ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	"grep":  {Title: "Search files", ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	"write": {Title: "Write a whole file", DestructiveHint: ptr(true), IdempotentHint: true, OpenWorldHint: ptr(false)},
	"edit":  {Title: "Edit a file by line number", DestructiveHint: ptr(true), OpenWorldHint: ptr(false)},
	// diagnostics records the version it shows, as read does, and changes
	// no file.
	"diagnostics": {Title: "A file's errors from its language server", ReadOnlyHint: true, OpenWorldHint: ptr(false)},
}

func ptr[T any](v T) *T { return &v }

// Server is the MCP server, for a transport to run.
func (f *Face) Server() *mcp.Server { return f.server }

// Run serves one MCP connection on t until the client closes it or ctx
// ends, then deletes the hostd session it used.
func (f *Face) Run(ctx context.Context, t mcp.Transport) error {
	err := f.server.Run(ctx, t)
	done, cancel := context.WithTimeout(context.WithoutCancel(ctx), closeTimeout)
	defer cancel()
	f.Close(done)
	return err
}

// closeTimeout bounds the session.delete that ends an MCP session's hostd
// session, so a daemon that stopped answering cannot hold hostd mcp up.
const closeTimeout = 10 * time.Second

// Close deletes the hostd session of every MCP session still held, and
// waits for the deletions of sessions that ended or were reclaimed. No
// session is admitted after it.
func (f *Face) Close(ctx context.Context) {
	f.mu.Lock()
	f.closed = true
	var hs []*held
	for ss, h := range f.sessions {
		if !h.reclaimed {
			hs = append(hs, h)
			delete(f.sessions, ss)
			if h.counted {
				f.live--
			}
		}
	}
	f.mu.Unlock()
	for _, h := range hs {
		h.b.close(ctx, f.daemon)
	}
	f.ending.Wait()
}

// rootsChanged marks the session's roots as stale: the next tool call
// asks the client for them again.
func (f *Face) rootsChanged(_ context.Context, req *mcp.RootsListChangedRequest) {
	if h := f.heldFor(req.Session); h != nil {
		h.b.markStale()
	}
}

// handler runs one tool through tools.execute.
func (f *Face) handler(tool string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		params := wire.ExecuteParams{Tool: tool, Args: req.Params.Arguments}
		if len(params.Args) == 0 || string(params.Args) == "null" {
			params.Args = json.RawMessage("{}")
		}
		structured := f.structured[tool]
		if f.maxFrame > 0 && int64(len(params.Args)) > f.maxFrame-envelopeBytes {
			return failure(structured, &CallError{Name: wire.ToolFileTooLarge, Message: fmt.Sprintf("the arguments are %d bytes; one call to hostd carries at most %d: write a large file in parts (write, then edit to add the rest)", len(params.Args), f.maxFrame-envelopeBytes)}), nil
		}
		params.PromptID, _ = req.Params.Meta[MetaPromptID].(string)
		params.ToolCallID, _ = req.Params.Meta[MetaToolCallID].(string)
		h := f.heldFor(req.Session)
		if h == nil {
			return failure(structured, errEnded), nil
		}
		res, err := f.execute(ctx, h, rootsOf(req), &params)
		switch {
		case errors.Is(err, errAskRoots):
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{rootsRequest: &mcp.ListRootsParams{}}}, nil
		case err != nil && ctx.Err() != nil:
			return nil, ctx.Err()
		case err != nil:
			return failure(structured, err), nil
		}
		return toolResult(res, params.SessionID, structured)
	}
}

// execute runs params in the held session's hostd session, making the
// session first when needed, and again when the daemon lost it (hostctl
// session delete): under the same id, so its review history stays one.
// When the daemon is full (SESSION_LIMIT), the face's least recently used
// idle MCP session is ended to make room, once.
func (f *Face) execute(ctx context.Context, h *held, roots clientRoots, params *wire.ExecuteParams) (res wire.ExecuteResult, err error) {
	reclaimed, lost := false, false
	for {
		params.SessionID, err = h.b.ensure(ctx, f.daemon, f.roots, f.form, roots)
		if client.Is(err, wire.CodeSessionLimit) && !reclaimed && f.reclaimFor(h) {
			reclaimed = true
			continue
		}
		if err != nil {
			return res, err
		}
		res, err = client.Typed(f.daemon).ToolsExecute(ctx, *params)
		if lost || !client.Is(err, wire.CodeSessionNotFound) {
			return res, err
		}
		lost = true
		h.b.lost(params.SessionID)
	}
}

// envelopeBytes is room for tools.execute's frame around the arguments:
// its header, method, session and call ids.
const envelopeBytes = 64 << 10
