package rpc

import (
	"context"

	"github.com/hostd-dev/hostd/rpc/wire"
)

// LanguageServers and LanguageServer are host.languageServers' types.
type (
	LanguageServers = wire.LanguageServers
	LanguageServer  = wire.LanguageServer
)

// hostLanguageServers lists the language servers (hostctl lsp).
func (s *Server) hostLanguageServers(context.Context, NoParams) (LanguageServers, error) {
	out := LanguageServers{Enabled: s.opts.LanguageServers != nil, Servers: []LanguageServer{}}
	for _, st := range s.opts.LanguageServers.Status() {
		out.Servers = append(out.Servers, LanguageServer{Root: st.Root, Language: st.Language, Command: st.Command, State: st.State, PID: st.PID,
			RSSBytes: st.RSSBytes, Restarts: st.Restarts, Documents: st.Documents, IdleMs: st.IdleMs, LastError: st.LastError})
	}
	return out, nil
}
