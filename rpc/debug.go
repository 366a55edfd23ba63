package rpc

import (
	"cmp"
	"context"
	"runtime"
	"slices"
	"time"

	"github.com/hostd-dev/hostd/internal/memgov"
	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/session"
)

// The debug.* methods are typed views for a person inspecting the daemon
// (hostctl stats, hostctl session). They are marked unstable in
// rpc.discover: their shape may change without a protocol version bump.

func (s *Server) debugStats(context.Context, wire.NoParams) (wire.Stats, error) {
	st := wire.Stats{
		UptimeMs:   time.Since(s.started).Milliseconds(),
		Goroutines: runtime.NumGoroutine(),
		Calls:      s.stats.snapshot(),
	}
	for _, info := range s.opts.Sessions.List() {
		sess, err := s.opts.Sessions.Get(info.SessionID)
		if err != nil {
			continue // deleted since List
		}
		state := sess.State()
		ss := state.Store.Stats()
		st.Sessions++
		st.RetainedBytes += ss.RetainedBytes
		st.Snapshots += ss.Snapshots
		st.Registers += state.Registers.Len()
	}
	if s.opts.Review != nil {
		rs := s.opts.Review.Stats()
		st.Review = &wire.ReviewStats{Entries: rs.Entries, Calls: rs.Calls, Bytes: rs.Bytes, PendingIntents: rs.PendingIntents, EvictedCalls: rs.EvictedCalls,
			Recovered: (*wire.ReviewRecovery)(rs.Recovered), Broken: rs.Broken}
	}
	st.Connections = s.connectionStats()
	if b := s.opts.Budget; b != nil {
		bs := wire.BudgetStats(b.Stats())
		st.Budget = &bs
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	st.HeapBytes = ms.HeapAlloc
	st.Collector = wire.Collector(memgov.Current())
	return st, nil
}

func (s *Server) connectionStats() wire.ConnectionStats {
	s.mu.Lock()
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	st := wire.ConnectionStats{Open: len(conns), DroppedNotifications: s.droppedGone.Load(), SlowClosed: s.slowClosed.Load(), Queues: []wire.QueueStats{}}
	s.mu.Unlock()
	slices.SortFunc(conns, func(a, b *conn) int { return cmp.Compare(a.id, b.id) })
	for _, c := range conns {
		frames, bytes := c.out.queued()
		q := wire.QueueStats{Conn: c.id, QueuedFrames: frames, QueuedBytes: bytes, DroppedNotifications: c.out.dropped.Load()}
		st.DroppedNotifications += q.DroppedNotifications
		st.Queues = append(st.Queues, q)
	}
	return st
}

func (s *Server) debugSession(_ context.Context, p wire.SessionIDParams) (wire.SessionDump, error) {
	sess, err := s.opts.Sessions.Get(p.SessionID)
	if err != nil {
		return wire.SessionDump{}, err
	}
	state := sess.State()
	out := wire.SessionDump{
		SessionID:     sess.ID,
		Workspace:     state.Workspace.Root(),
		RetainedBytes: state.Store.Stats().RetainedBytes,
		Paths:         []wire.PathDump{},
		Registers:     []wire.RegisterInfo{},
	}
	for _, r := range state.Registers.List() {
		out.Registers = append(out.Registers, wire.RegisterInfo(r))
	}
	for _, pv := range state.Store.Dump() {
		pd := wire.PathDump{Path: state.Workspace.Display(pv.Path), Versions: make([]wire.VersionDump, len(pv.Versions))}
		for i, v := range pv.Versions {
			pd.Versions[i] = wire.VersionDump{Tag: v.Tag, Bytes: v.Bytes, Lines: v.Lines, SeenLines: seenLines(v.Seen), Retained: v.Retained, RecordedAt: v.RecordedAt}
		}
		out.Paths = append(out.Paths, pd)
	}
	return out, nil
}

// seenLines is a version's provenance as debug.session shows it: nil
// (null) when none was recorded, else its ranges ([] for none seen).
func seenLines(seen session.LineSet) wire.LineSet {
	if !seen.Known() {
		return nil
	}
	out := wire.LineSet{}
	for _, r := range seen.Ranges() {
		out = append(out, wire.LineRange{r.From, r.To})
	}
	return out
}
