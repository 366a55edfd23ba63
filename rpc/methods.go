package rpc

import (
	"context"

	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/session"
	"github.com/hostd-dev/hostd/tools"
	"github.com/hostd-dev/hostd/workspace"
)

// methodTable is every method hostd serves, in the order rpc.discover
// lists them. A new method is one row here and one handler.
func (s *Server) methodTable() []*Method {
	table := []*Method{
		method("host.info", "The daemon's identity and the limits in force.", s.hostInfo).inline(),
		method("host.shutdown", "Answer {}, then shut down: stop accepting, finish calls in flight within limits.shutdownGraceMs, remove the socket, exit 0.", s.hostShutdown).then(s.shutdownRequested).inline(),
		method("rpc.discover", "This OpenRPC document, generated from the table that dispatches calls.", s.discover).inline(),
		method("session.create", "Create a session on a workspace, or re-attach to a live one by sessionId.", s.sessionCreate).errors(wire.CodeWorkspaceInvalid, wire.CodeSessionLimit),
		method("session.delete", "Delete a session; its snapshot store and registers are dropped.", s.sessionDelete).errors(wire.CodeSessionNotFound),
		method("session.list", "Every live session, oldest first.", s.sessionList).inline(),
		method("session.setWorkspace", "Switch a session to another workspace root, keeping its scratch and external roots; its snapshot store and registers are dropped.", s.sessionSetWorkspace).errors(wire.CodeSessionNotFound, wire.CodeWorkspaceInvalid),
		method("tools.definitions", "The model-facing name, description and input schema of every tool.", s.toolsDefinitions).inline(),
		method("tools.execute", "Run one tool in a session. A tool that runs and fails answers ok:false, not a JSON-RPC error.", s.toolsExecute).errors(wire.CodeSessionNotFound, wire.CodeUnknownTool),
		method("debug.stats", "Unstable: daemon-wide counters and per-method call figures.", s.debugStats).unstable().inline(),
		method("debug.session", "Unstable: one session's snapshot store and registers.", s.debugSession).unstable().errors(wire.CodeSessionNotFound).inline(),
	}
	if s.opts.Review != nil {
		table = append(table, s.reviewMethods()...)
	}
	table = append(table, method("host.languageServers", "The language servers the daemon runs: each one's workspace root, language, state and last error.", s.hostLanguageServers).inline())
	return table
}

// reviewHealth is nil while the review store is healthy.
func (s *Server) reviewHealth() *wire.ReviewHealth {
	if s.opts.Review == nil {
		return nil
	}
	h := wire.ReviewHealth{Recovered: (*wire.ReviewRecovery)(s.opts.Review.Recovered()), Broken: s.opts.Review.Broken()}
	if h.Recovered == nil && h.Broken == "" {
		return nil
	}
	return &h
}

func (s *Server) hostInfo(context.Context, wire.NoParams) (wire.HostInfo, error) {
	return s.hostInfoResult(), nil
}

func (s *Server) hostInfoResult() wire.HostInfo {
	return wire.HostInfo{
		Name:            "hostd",
		Version:         s.opts.Version,
		Commit:          s.opts.Commit,
		ProtocolVersion: wire.ProtocolVersion,
		PID:             pid(),
		StartedAt:       s.started,
		Grammars:        s.opts.Grammars,
		Limits:          wire.Limits(s.opts.Limits),
		Review:          s.reviewHealth(),
	}
}

func (s *Server) hostShutdown(context.Context, wire.NoParams) (wire.Empty, error) {
	return wire.Empty{}, nil
}

func (s *Server) sessionCreate(_ context.Context, p wire.SessionCreateParams) (wire.SessionRef, error) {
	form, err := session.ParseResultForm(string(p.EditResult))
	if err != nil {
		return wire.SessionRef{}, err
	}
	ext := make([]workspace.External, len(p.ExternalRoots))
	for i, e := range p.ExternalRoots {
		ext[i] = workspace.External{Path: e.Path, Writable: e.Writable}
	}
	ws, err := workspace.New(p.Workspace, p.Scratch, ext)
	if err != nil {
		return wire.SessionRef{}, err
	}
	defer ws.Close() // a new session takes its own reference
	ws = ws.WithEncodings(s.opts.Encodings)
	sess, err := s.opts.Sessions.CreateWith(p.SessionID, ws, session.Prefs{EditResult: form})
	if err != nil {
		return wire.SessionRef{}, err
	}
	return wire.SessionRef{SessionID: sess.ID, Workspace: sess.State().Workspace.Root(), EditResult: string(sess.Prefs.EditResult)}, nil
}

func (s *Server) sessionDelete(_ context.Context, p wire.SessionIDParams) (wire.Empty, error) {
	return wire.Empty{}, s.opts.Sessions.Delete(p.SessionID)
}

func (s *Server) sessionList(context.Context, wire.NoParams) (wire.SessionList, error) {
	infos := s.opts.Sessions.List()
	out := wire.SessionList{Sessions: make([]wire.SessionInfo, len(infos))}
	for i, info := range infos {
		out.Sessions[i] = wire.SessionInfo(info)
	}
	return out, nil
}

func (s *Server) sessionSetWorkspace(_ context.Context, p wire.SetWorkspaceParams) (wire.SessionRef, error) {
	st, err := s.opts.Sessions.SwitchWorkspace(p.SessionID, p.Workspace)
	if err != nil {
		return wire.SessionRef{}, err
	}
	return wire.SessionRef{SessionID: p.SessionID, Workspace: st.Workspace.Root()}, nil
}

func (s *Server) toolsDefinitions(context.Context, wire.NoParams) (wire.ToolDefinitions, error) {
	defs, err := s.opts.Executor.Definitions()
	return wire.ToolDefinitions{Tools: defs}, err
}

func (s *Server) toolsExecute(ctx context.Context, p wire.ExecuteParams) (tools.Outcome, error) {
	return s.opts.Executor.Execute(ctx, tools.Request{
		SessionID:  p.SessionID,
		Tool:       p.Tool,
		Args:       p.Args,
		PromptID:   p.PromptID,
		ToolCallID: p.ToolCallID,
	})
}
