package rpc

import (
	"context"
	"encoding/json"
	"time"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/review"
	"github.com/hostd-dev/hostd/session"
	"github.com/hostd-dev/hostd/tools"
	"github.com/hostd-dev/hostd/workspace"
)

// ProtocolVersion is the wire contract's version (host.info).
const ProtocolVersion = 1

// methodTable is every method hostd serves, in the order rpc.discover
// lists them. A new method is one row here and one handler.
func (s *Server) methodTable() []*Method {
	table := []*Method{
		method("host.info", "The daemon's identity and the limits in force.", s.hostInfo).inline(),
		method("host.shutdown", "Answer {}, then shut down: stop accepting, finish calls in flight within limits.shutdownGraceMs, remove the socket, exit 0.", s.hostShutdown).then(s.shutdownRequested).inline(),
		method("rpc.discover", "This OpenRPC document, generated from the table that dispatches calls.", s.discover).inline(),
		method("session.create", "Create a session on a workspace, or re-attach to a live one by sessionId.", s.sessionCreate).errors(CodeWorkspaceInvalid, CodeSessionLimit),
		method("session.delete", "Delete a session; its snapshot store and registers are dropped.", s.sessionDelete).errors(CodeSessionNotFound),
		method("session.list", "Every live session, oldest first.", s.sessionList).inline(),
		method("session.setWorkspace", "Switch a session to another workspace root, keeping its scratch and external roots; its snapshot store and registers are dropped.", s.sessionSetWorkspace).errors(CodeSessionNotFound, CodeWorkspaceInvalid),
		method("tools.definitions", "The model-facing name, description and input schema of every tool.", s.toolsDefinitions).inline(),
		method("tools.execute", "Run one tool in a session. A tool that runs and fails answers ok:false, not a JSON-RPC error.", s.toolsExecute).errors(CodeSessionNotFound, CodeUnknownTool),
		method("debug.stats", "Unstable: daemon-wide counters and per-method call figures.", s.debugStats).unstable().inline(),
		method("debug.session", "Unstable: one session's snapshot store and registers.", s.debugSession).unstable().errors(CodeSessionNotFound).inline(),
	}
	if s.opts.Review != nil {
		table = append(table, s.reviewMethods()...)
	}
	return table
}

// HostInfo is the result of host.info.
type HostInfo struct {
	Name            string        `json:"name"`
	Version         string        `json:"version"`
	Commit          string        `json:"commit,omitempty" doc:"the commit the daemon was built from, when the build recorded it; a trailing +modified marks uncommitted changes"`
	ProtocolVersion int           `json:"protocolVersion"`
	PID             int           `json:"pid"`
	StartedAt       time.Time     `json:"startedAt"`
	Grammars        []string      `json:"grammars" doc:"languages block ops (N*) can resolve"`
	Limits          config.Limits `json:"limits" doc:"every limit in force, by its config-file name"`
	Review          *ReviewHealth `json:"review,omitempty" doc:"present only when the review store needs attention"`
}

// ReviewHealth says that the review store was found damaged, at start or
// while running.
type ReviewHealth struct {
	Recovered *review.Recovery `json:"recovered,omitempty" doc:"the store was damaged at start: the file was moved aside (from) and a fresh, empty store started"`
	Broken    string           `json:"broken,omitempty" doc:"the store turned out damaged while running: review calls and changes fail until hostd restarts"`
}

// reviewHealth is nil while the review store is healthy.
func (s *Server) reviewHealth() *ReviewHealth {
	if s.opts.Review == nil {
		return nil
	}
	h := ReviewHealth{Recovered: s.opts.Review.Recovered(), Broken: s.opts.Review.Broken()}
	if h.Recovered == nil && h.Broken == "" {
		return nil
	}
	return &h
}

func (s *Server) hostInfo(context.Context, NoParams) (HostInfo, error) {
	return s.hostInfoResult(), nil
}

func (s *Server) hostInfoResult() HostInfo {
	return HostInfo{
		Name:            "hostd",
		Version:         s.opts.Version,
		Commit:          s.opts.Commit,
		ProtocolVersion: ProtocolVersion,
		PID:             pid(),
		StartedAt:       s.started,
		Grammars:        s.opts.Grammars,
		Limits:          s.opts.Limits,
		Review:          s.reviewHealth(),
	}
}

func (s *Server) hostShutdown(context.Context, NoParams) (Empty, error) {
	return Empty{}, nil
}

// ExternalRoot is an approved root outside the workspace.
type ExternalRoot struct {
	Path     string `json:"path" doc:"absolute directory"`
	Writable bool   `json:"writable,omitempty" doc:"tools may write under it (default false: read-only)"`
}

// SessionCreateParams are the params of session.create.
type SessionCreateParams struct {
	Workspace     string             `json:"workspace" doc:"absolute path of the workspace root directory"`
	Scratch       string             `json:"scratch,omitempty" doc:"absolute path of a writable scratch directory"`
	ExternalRoots []ExternalRoot     `json:"externalRoots,omitempty"`
	SessionID     string             `json:"sessionId,omitempty" doc:"re-attach under this id (letters, digits, - _ . :); generated when absent"`
	EditResult    session.ResultForm `json:"editResult,omitempty" doc:"\"full\" (default) or \"compact\": the form of this session's edit results when a call does not choose one; a session re-attached by id keeps its own"`
}

// SessionRef is a session and its canonical workspace root.
type SessionRef struct {
	SessionID string `json:"sessionId"`
	Workspace string `json:"workspace" doc:"canonical workspace root: absolute, symlinks resolved"`
	// EditResult is reported only for a compact session, so the common
	// answer is unchanged.
	EditResult string `json:"editResult,omitempty" doc:"\"compact\" when the session's edit results are compact by default"`
}

func (s *Server) sessionCreate(_ context.Context, p SessionCreateParams) (SessionRef, error) {
	form, err := session.ParseResultForm(string(p.EditResult))
	if err != nil {
		return SessionRef{}, err
	}
	ext := make([]workspace.External, len(p.ExternalRoots))
	for i, e := range p.ExternalRoots {
		ext[i] = workspace.External{Path: e.Path, Writable: e.Writable}
	}
	ws, err := workspace.New(p.Workspace, p.Scratch, ext)
	if err != nil {
		return SessionRef{}, err
	}
	sess, err := s.opts.Sessions.CreateWith(p.SessionID, ws, session.Prefs{EditResult: form})
	if err != nil {
		return SessionRef{}, err
	}
	ref := SessionRef{SessionID: sess.ID, Workspace: sess.State().Workspace.Root()}
	if sess.Prefs.EditResult == session.FormCompact {
		ref.EditResult = string(session.FormCompact)
	}
	return ref, nil
}

// SessionIDParams name one session.
type SessionIDParams struct {
	SessionID string `json:"sessionId"`
}

func (s *Server) sessionDelete(_ context.Context, p SessionIDParams) (Empty, error) {
	return Empty{}, s.opts.Sessions.Delete(p.SessionID)
}

// SessionList is the result of session.list.
type SessionList struct {
	Sessions []session.Info `json:"sessions"`
}

func (s *Server) sessionList(context.Context, NoParams) (SessionList, error) {
	return SessionList{Sessions: s.opts.Sessions.List()}, nil
}

// SetWorkspaceParams are the params of session.setWorkspace.
type SetWorkspaceParams struct {
	SessionID string `json:"sessionId"`
	Workspace string `json:"workspace" doc:"absolute path of the new workspace root directory"`
}

func (s *Server) sessionSetWorkspace(_ context.Context, p SetWorkspaceParams) (SessionRef, error) {
	st, err := s.opts.Sessions.SwitchWorkspace(p.SessionID, p.Workspace)
	if err != nil {
		return SessionRef{}, err
	}
	return SessionRef{SessionID: p.SessionID, Workspace: st.Workspace.Root()}, nil
}

// ToolDefinitions is the result of tools.definitions.
type ToolDefinitions struct {
	Tools []tools.Definition `json:"tools"`
}

func (s *Server) toolsDefinitions(context.Context, NoParams) (ToolDefinitions, error) {
	defs, err := s.opts.Executor.Definitions()
	return ToolDefinitions{Tools: defs}, err
}

// ExecuteParams are the params of tools.execute.
type ExecuteParams struct {
	SessionID  string          `json:"sessionId"`
	Tool       string          `json:"tool" doc:"a name from tools.definitions"`
	Args       json.RawMessage `json:"args,omitempty" doc:"the tool's arguments, as its inputSchema describes"`
	PromptID   string          `json:"promptId,omitempty" doc:"the user prompt (turn) this call belongs to; the repeat guard counts only with it"`
	ToolCallID string          `json:"toolCallId,omitempty" doc:"keys review entries; generated and returned when absent"`
}

func (s *Server) toolsExecute(ctx context.Context, p ExecuteParams) (tools.Outcome, error) {
	return s.opts.Executor.Execute(ctx, tools.Request{
		SessionID:  p.SessionID,
		Tool:       p.Tool,
		Args:       p.Args,
		PromptID:   p.PromptID,
		ToolCallID: p.ToolCallID,
	})
}
