package rpc

import (
	"context"

	"github.com/hostd-dev/hostd/rpc/wire"
)

// hostLanguageServers lists the language servers (hostctl lsp).
func (s *Server) hostLanguageServers(context.Context, wire.NoParams) (wire.LanguageServers, error) {
	out := wire.LanguageServers{Enabled: s.opts.LanguageServers != nil, Servers: []wire.LanguageServer{}}
	for _, st := range s.opts.LanguageServers.Status() {
		out.Servers = append(out.Servers, wire.LanguageServer{Root: st.Root, Language: st.Language, Command: st.Command, State: st.State, PID: st.PID,
			RSSBytes: st.RSSBytes, Restarts: st.Restarts, Refreshes: st.Refreshes, Documents: st.Documents, IdleMs: st.IdleMs, LastError: st.LastError})
	}
	return out, nil
}
