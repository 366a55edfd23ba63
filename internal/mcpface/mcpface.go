// Package mcpface is hostd's face on the Model Context Protocol. One MCP
// connection is one hostd session, and each MCP tool call is one
// tools.execute on that session, so review and rollback see MCP work like
// any other client's. It owns only the mapping: the tool list (taken from
// the daemon's tools.definitions, the one embedded source of tool text),
// the session's roots (fixed ones, or the client's roots/list), and a
// tool result turned into an MCP result carrying the same text the model
// sees over JSON-RPC. It must not run tools, touch files or keep records:
// those stay with the daemon it reaches through a Daemon.
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
)

// Meta keys of a tool result's _meta: the whole hostd result except
// content (ok, toolCallId, warnings, error, tag, terminate, ...) and the
// hostd session the call ran in. Clients that know them can offer review
// and rollback; others ignore them.
const (
	MetaResult    = "dev.hostd/result"
	MetaSessionID = "dev.hostd/sessionId"
)

// Meta keys a client may put in a tools/call's _meta to name the call's
// user turn and its review id (tools.execute's promptId and toolCallId).
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
}

// Face serves hostd's tools to MCP clients. Each MCP session gets its
// own hostd session on first use, deleted when the MCP session ends (its
// review records stay with the daemon).
type Face struct {
	daemon   Daemon
	roots    []string
	server   *mcp.Server
	maxFrame int64

	// mu guards sessions; a binding's own lock is taken after it, never
	// while holding it.
	mu       sync.Mutex
	sessions map[*mcp.ServerSession]*binding
	// ending counts the bindings whose MCP session ended and whose hostd
	// session is being deleted; Close waits for them, so a process that
	// returns from Close leaves no session behind. Add is called under mu,
	// when the binding leaves sessions.
	ending sync.WaitGroup
}

// New asks the daemon for its tool definitions and builds the MCP server
// that lists them.
func New(ctx context.Context, opts Options) (*Face, error) {
	var defs struct {
		Tools []struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := opts.Daemon.Call(ctx, "tools.definitions", struct{}{}, &defs); err != nil {
		return nil, fmt.Errorf("ask hostd for its tools: %w", err)
	}
	f := &Face{daemon: opts.Daemon, roots: opts.Roots, maxFrame: opts.MaxFrameBytes, sessions: map[*mcp.ServerSession]*binding{}}
	f.server = mcp.NewServer(&mcp.Implementation{Name: "hostd", Version: opts.Version}, &mcp.ServerOptions{
		// Tools only: no logging capability, and the tool list never
		// changes while the daemon runs.
		Capabilities:            &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
		RootsListChangedHandler: f.rootsChanged,
	})
	for _, d := range defs.Tools {
		f.server.AddTool(&mcp.Tool{Name: d.Name, Description: d.Description, InputSchema: d.InputSchema, Annotations: annotations[d.Name]}, f.handler(d.Name))
	}
	return f, nil
}

// annotations tell an MCP client what each tool does to the files, so it
// can, for example, run read and grep without asking the user. Every tool
// works on local files only (a closed world). write replaces a file whole
// and the same call twice leaves the same file; edit's ops are relative
// to a version, so a repeat is refused or changes more, and REM deletes.
// A tool the daemon adds later is listed without hints until it is
// described here.
var annotations = map[string]*mcp.ToolAnnotations{
	"read":  {Title: "Read a file", ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	"grep":  {Title: "Search files", ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	"write": {Title: "Write a whole file", DestructiveHint: ptr(true), IdempotentHint: true, OpenWorldHint: ptr(false)},
	"edit":  {Title: "Edit a file by line number", DestructiveHint: ptr(true), OpenWorldHint: ptr(false)},
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

// Close deletes the hostd session of every MCP session still bound, and
// waits for the deletions of sessions that ended on their own.
func (f *Face) Close(ctx context.Context) {
	f.mu.Lock()
	bs := make([]*binding, 0, len(f.sessions))
	for ss, b := range f.sessions {
		bs = append(bs, b)
		delete(f.sessions, ss)
	}
	f.mu.Unlock()
	for _, b := range bs {
		b.close(ctx, f.daemon)
	}
	f.ending.Wait()
}

// bind returns the binding of an MCP session, making it on first use.
// When the MCP session ends, its hostd session is deleted.
func (f *Face) bind(ss *mcp.ServerSession) *binding {
	f.mu.Lock()
	defer f.mu.Unlock()
	if b, ok := f.sessions[ss]; ok {
		return b
	}
	b := &binding{}
	f.sessions[ss] = b
	go func() {
		ss.Wait()
		f.mu.Lock()
		_, live := f.sessions[ss]
		delete(f.sessions, ss)
		if live {
			f.ending.Add(1)
		}
		f.mu.Unlock()
		if live {
			defer f.ending.Done()
			ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
			defer cancel()
			b.close(ctx, f.daemon)
		}
	}()
	return b
}

// rootsChanged marks the session's roots as stale: the next tool call
// asks the client for them again.
func (f *Face) rootsChanged(_ context.Context, req *mcp.RootsListChangedRequest) {
	f.mu.Lock()
	b := f.sessions[req.Session]
	f.mu.Unlock()
	if b != nil {
		b.markStale()
	}
}

// handler runs one tool through tools.execute.
func (f *Face) handler(tool string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		params := executeParams{Tool: tool, Args: req.Params.Arguments}
		if len(params.Args) == 0 || string(params.Args) == "null" {
			params.Args = json.RawMessage("{}")
		}
		if f.maxFrame > 0 && int64(len(params.Args)) > f.maxFrame-envelopeBytes {
			return failure(&CallError{Name: "FILE_TOO_LARGE", Message: fmt.Sprintf("the arguments are %d bytes; one call to hostd carries at most %d: write a large file in parts (write, then edit to add the rest)", len(params.Args), f.maxFrame-envelopeBytes)}), nil
		}
		params.PromptID, _ = req.Params.Meta[MetaPromptID].(string)
		params.ToolCallID, _ = req.Params.Meta[MetaToolCallID].(string)
		res, err := f.execute(ctx, f.bind(req.Session), rootsOf(req), &params)
		switch {
		case errors.Is(err, errAskRoots):
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{rootsRequest: &mcp.ListRootsParams{}}}, nil
		case err != nil && ctx.Err() != nil:
			return nil, ctx.Err()
		case err != nil:
			return failure(err), nil
		}
		return toolResult(res, params.SessionID)
	}
}

// execute runs params in the binding's hostd session, making the session
// first when needed, and again when the daemon lost it (hostctl session
// delete): under the same id, so its review history stays one.
func (f *Face) execute(ctx context.Context, b *binding, roots clientRoots, params *executeParams) (res map[string]json.RawMessage, err error) {
	for attempt := 0; ; attempt++ {
		if params.SessionID, err = b.ensure(ctx, f.daemon, f.roots, roots); err != nil {
			return nil, err
		}
		err = f.daemon.Call(ctx, "tools.execute", params, &res)
		if attempt > 0 || !notFound(err) {
			return res, err
		}
		b.lost(params.SessionID)
	}
}

// envelopeBytes is room for tools.execute's frame around the arguments:
// its header, method, session and call ids.
const envelopeBytes = 64 << 10

// executeParams are tools.execute's params.
type executeParams struct {
	SessionID  string          `json:"sessionId"`
	Tool       string          `json:"tool"`
	Args       json.RawMessage `json:"args"`
	PromptID   string          `json:"promptId,omitempty"`
	ToolCallID string          `json:"toolCallId,omitempty"`
}

// toolResult turns a tools.execute result into an MCP result: content is
// the one text block the model sees, error and warnings folded in as the
// daemon folded them (wire-contract §4); a failed tool is isError.
func toolResult(res map[string]json.RawMessage, sessionID string) (*mcp.CallToolResult, error) {
	var content string
	var ok bool
	if err := json.Unmarshal(res["content"], &content); err != nil {
		return nil, fmt.Errorf("hostd answered tools.execute without a content string: %w", err)
	}
	if err := json.Unmarshal(res["ok"], &ok); err != nil {
		return nil, fmt.Errorf("hostd answered tools.execute without ok: %w", err)
	}
	delete(res, "content")
	return &mcp.CallToolResult{
		Content: []mcp.Content{&mcp.TextContent{Text: content}},
		IsError: !ok,
		Meta:    mcp.Meta{MetaResult: res, MetaSessionID: sessionID},
	}, nil
}

// failure is a call the daemon could not run, as the model reads it: the
// error's code name first, as a failed tool's content starts.
func failure(err error) *mcp.CallToolResult {
	var text string
	var ce *CallError
	var re *rootsError
	switch {
	case errors.As(err, &ce):
		text = "Error " + ce.Name + ": " + ce.Message
	case errors.As(err, &re):
		text = "Error WORKSPACE_INVALID: " + re.Error()
	default:
		// The connection to the daemon failed: the call may or may not
		// have run there.
		text = "Error TOOL_FAILED: hostd did not answer (" + err.Error() + "); the call may have run: read the file again before editing it"
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: true}
}
