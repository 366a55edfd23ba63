package rpc

import (
	"cmp"
	"context"
	"runtime"
	"slices"
	"time"

	"github.com/hostd-dev/hostd/internal/budget"
	"github.com/hostd-dev/hostd/internal/memgov"
	"github.com/hostd-dev/hostd/review"
	"github.com/hostd-dev/hostd/session"
)

// The debug.* methods are typed views for a person inspecting the daemon
// (hostctl stats, hostctl session). They are marked unstable in
// rpc.discover: their shape may change without a protocol version bump.

// Stats is the result of debug.stats.
type Stats struct {
	Sessions      int                  `json:"sessions"`
	RetainedBytes int64                `json:"retainedBytes" doc:"snapshot text retained across every session"`
	Snapshots     int                  `json:"snapshots"`
	Registers     int                  `json:"registers" doc:"named registers across every session"`
	UptimeMs      int64                `json:"uptimeMs"`
	Goroutines    int                  `json:"goroutines"`
	HeapBytes     uint64               `json:"heapBytes"`
	Calls         map[string]CallStats `json:"calls" doc:"per method; (unknown) counts calls of methods that do not exist"`
	Review        *ReviewStats         `json:"review,omitempty" doc:"the durable review store's usage; absent without one"`
	Connections   ConnectionStats      `json:"connections"`
	Budget        *budget.Stats        `json:"budget,omitempty" doc:"the daemon-wide memory budget (limits.maxMemoryBytes); absent without one"`
	Collector     memgov.Collector     `json:"collector" doc:"the Go collector's limit and target, which the daemon's memory governor sets, and its work so far"`
}

// ConnectionStats are the connections' outgoing queues in debug.stats.
type ConnectionStats struct {
	Open                 int          `json:"open"`
	DroppedNotifications int64        `json:"droppedNotifications" doc:"notifications not sent because a client's queue was full, since the daemon started"`
	SlowClosed           int64        `json:"slowClosed" doc:"connections closed because a frame was not accepted within the write timeout"`
	Queues               []QueueStats `json:"queues" doc:"one per open connection, oldest first"`
}

// QueueStats is one connection's outgoing queue.
type QueueStats struct {
	Conn                 uint64 `json:"conn" doc:"the connection's number in the daemon's log"`
	QueuedFrames         int    `json:"queuedFrames"`
	QueuedBytes          int    `json:"queuedBytes"`
	DroppedNotifications int64  `json:"droppedNotifications"`
}

// ReviewStats is the review store's usage in debug.stats.
type ReviewStats struct {
	Entries        int   `json:"entries"`
	Calls          int   `json:"calls"`
	Bytes          int64 `json:"bytes"`
	PendingIntents int   `json:"pendingIntents" doc:"mutations or rollbacks not yet settled"`
	EvictedCalls   int64 `json:"evictedCalls" doc:"calls dropped by retention since the daemon started"`
	// The same notices as host.info's review field.
	Recovered *review.Recovery `json:"recovered,omitempty" doc:"the store was damaged at start and moved aside; a fresh one started"`
	Broken    string           `json:"broken,omitempty" doc:"the store turned out damaged while running"`
}

func (s *Server) debugStats(context.Context, NoParams) (Stats, error) {
	st := Stats{
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
		st.Review = &ReviewStats{Entries: rs.Entries, Calls: rs.Calls, Bytes: rs.Bytes, PendingIntents: rs.PendingIntents, EvictedCalls: rs.EvictedCalls,
			Recovered: rs.Recovered, Broken: rs.Broken}
	}
	st.Connections = s.connectionStats()
	if b := s.opts.Budget; b != nil {
		bs := b.Stats()
		st.Budget = &bs
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	st.HeapBytes = ms.HeapAlloc
	st.Collector = memgov.Current()
	return st, nil
}

func (s *Server) connectionStats() ConnectionStats {
	s.mu.Lock()
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	st := ConnectionStats{Open: len(conns), DroppedNotifications: s.droppedGone.Load(), SlowClosed: s.slowClosed.Load(), Queues: []QueueStats{}}
	s.mu.Unlock()
	slices.SortFunc(conns, func(a, b *conn) int { return cmp.Compare(a.id, b.id) })
	for _, c := range conns {
		frames, bytes := c.out.queued()
		q := QueueStats{Conn: c.id, QueuedFrames: frames, QueuedBytes: bytes, DroppedNotifications: c.out.dropped.Load()}
		st.DroppedNotifications += q.DroppedNotifications
		st.Queues = append(st.Queues, q)
	}
	return st
}

// SessionDump is the result of debug.session.
type SessionDump struct {
	SessionID     string                 `json:"sessionId"`
	Workspace     string                 `json:"workspace"`
	RetainedBytes int64                  `json:"retainedBytes"`
	Paths         []PathDump             `json:"paths" doc:"coldest first"`
	Registers     []session.RegisterInfo `json:"registers" doc:"coldest first"`
}

// PathDump is one path's retained history.
type PathDump struct {
	Path     string        `json:"path" doc:"as the model sees it: workspace-relative, or absolute outside the workspace"`
	Versions []VersionDump `json:"versions" doc:"newest first"`
}

// VersionDump is one recorded version of a path.
type VersionDump struct {
	Tag        string          `json:"tag"`
	Bytes      int64           `json:"bytes"`
	Lines      int             `json:"lines"`
	SeenLines  session.LineSet `json:"seenLines"`
	Retained   bool            `json:"retained" doc:"the full text is kept (false: tagged only, over limits.maxRetainedFileBytes)"`
	RecordedAt time.Time       `json:"recordedAt"`
}

func (s *Server) debugSession(_ context.Context, p SessionIDParams) (SessionDump, error) {
	sess, err := s.opts.Sessions.Get(p.SessionID)
	if err != nil {
		return SessionDump{}, err
	}
	state := sess.State()
	out := SessionDump{
		SessionID:     sess.ID,
		Workspace:     state.Workspace.Root(),
		RetainedBytes: state.Store.Stats().RetainedBytes,
		Paths:         []PathDump{},
		Registers:     state.Registers.List(),
	}
	if out.Registers == nil {
		out.Registers = []session.RegisterInfo{}
	}
	for _, pv := range state.Store.Dump() {
		pd := PathDump{Path: state.Workspace.Display(pv.Path), Versions: make([]VersionDump, len(pv.Versions))}
		for i, v := range pv.Versions {
			pd.Versions[i] = VersionDump{Tag: v.Tag, Bytes: v.Bytes, Lines: v.Lines, SeenLines: v.Seen, Retained: v.Retained, RecordedAt: v.RecordedAt}
		}
		out.Paths = append(out.Paths, pd)
	}
	return out, nil
}
