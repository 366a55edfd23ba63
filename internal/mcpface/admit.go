package mcpface

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hostd-dev/hostd/rpc/wire"
)

// held is one MCP session the face serves: its hostd session, how
// recently it was used and how many of its requests are running. Its
// fields other than ss and b are guarded by Face.mu.
type held struct {
	ss *mcp.ServerSession
	b  *binding
	// used is Face.clock at the session's latest request: the larger, the
	// more recently used.
	used uint64
	// busy counts the session's requests being handled; a busy session
	// is never reclaimed.
	busy int
	// counted: the session holds one of the maxHeld places, taken at its
	// initialize or first tool call. Until then it has no state worth a
	// place: the SDK closes a session whose first request was not an
	// initialize (a client's server/discover probe) when that request
	// is answered.
	counted bool
	// reclaimed: the face closed the session to make room for another;
	// its requests are refused while it closes.
	reclaimed bool
}

// errReclaimed answers a request of a session the face ended to make
// room: the client starts a new MCP session (over HTTP it gets 404 for
// the old Mcp-Session-Id, which tells it to).
var errReclaimed = errors.New("this MCP session was ended to make room for others (it was the least recently used of limits.maxMcpSessions); start a new one")

// errFaceClosed answers a session that arrives while the face shuts down.
var errFaceClosed = errors.New("hostd mcp is shutting down")

// admit is receiving middleware: every request and notification of every
// MCP session passes here first, so the face knows each session from its
// first message (before any hostd session exists), when it was last used
// and whether a request of it is running.
func (f *Face) admit(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		ss, ok := req.GetSession().(*mcp.ServerSession)
		if !ok {
			return next(ctx, method, req)
		}
		h, err := f.enter(ss, method == "initialize" || method == "tools/call")
		if err != nil {
			return nil, err
		}
		defer f.leave(h)
		return next(ctx, method, req)
	}
}

// enter counts a request of ss as running. A request that makes state
// (place: initialize, tools/call) gives its session one of the maxHeld
// places: when all are taken, the least recently used idle session is
// ended for it (its hostd session deleted first), and when every counted
// session is busy the request is refused (an initialize that fails makes
// the SDK close the session).
func (f *Face) enter(ss *mcp.ServerSession, place bool) (*held, error) {
	f.mu.Lock()
	h, ok := f.sessions[ss]
	if !ok {
		if f.closed {
			f.mu.Unlock()
			return nil, errFaceClosed
		}
		h = &held{ss: ss, b: &binding{}}
		f.sessions[ss] = h
		go f.watch(h)
	}
	if h.reclaimed {
		f.mu.Unlock()
		return nil, errReclaimed
	}
	var victim *held
	if place && !h.counted {
		if f.live >= f.maxHeld {
			if victim = f.idlestLocked(h); victim == nil {
				f.mu.Unlock()
				return nil, &jsonrpc.Error{Code: wire.CodeSessionLimit.Num, Data: sessionLimitData,
					Message: fmt.Sprintf("hostd mcp holds %d MCP sessions (limits.maxMcpSessions) and each has a call running; retry when one finishes", f.maxHeld)}
			}
			f.reclaimLocked(victim)
		}
		h.counted = true
		f.live++
	}
	f.clock++
	h.used = f.clock
	h.busy++
	f.mu.Unlock()
	if victim != nil {
		// Before this session runs anything, so the face never holds
		// more than maxHeld hostd sessions.
		f.finish(victim)
	}
	return h, nil
}

// sessionLimitData is the daemon's SESSION_LIMIT error's data
// (wire-contract §2), which a full face answers as the daemon would.
var sessionLimitData, _ = json.Marshal(wire.ErrorData{Code: wire.CodeSessionLimit.Name})

// leave ends a request entered with enter.
func (f *Face) leave(h *held) {
	f.mu.Lock()
	defer f.mu.Unlock()
	h.busy--
	f.clock++
	h.used = f.clock
}

// idlestLocked is the least recently used counted session with no
// request running, other than except; nil when there is none.
func (f *Face) idlestLocked(except *held) *held {
	var best *held
	for _, h := range f.sessions {
		if h == except || !h.counted || h.reclaimed || h.busy > 0 {
			continue
		}
		if best == nil || h.used < best.used {
			best = h
		}
	}
	return best
}

// reclaimLocked marks h as ended to make room; finish then closes it and
// deletes its hostd session. It stays in sessions until its MCP session
// has closed, so its late requests are refused rather than admitted as a
// new session.
func (f *Face) reclaimLocked(h *held) {
	h.reclaimed = true
	f.live--
	f.ending.Add(1)
}

// finish closes a reclaimed session and deletes its hostd session.
func (f *Face) finish(h *held) {
	defer f.ending.Done()
	// Close returns once the session's running requests have returned;
	// none is running (it was idle) and new ones are refused.
	h.ss.Close()
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	h.b.close(ctx, f.daemon)
}

// watch waits for the MCP session to end and then deletes its hostd
// session, unless the face already did (reclaimed, or Close).
func (f *Face) watch(h *held) {
	h.ss.Wait()
	f.mu.Lock()
	cur, ok := f.sessions[h.ss]
	if ok && cur == h {
		delete(f.sessions, h.ss)
	}
	mine := ok && cur == h && !h.reclaimed
	if mine && h.counted {
		f.live--
	}
	if mine {
		f.ending.Add(1)
	}
	f.mu.Unlock()
	if mine {
		defer f.ending.Done()
		ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
		defer cancel()
		h.b.close(ctx, f.daemon)
	}
}

// reclaimFor makes room in the daemon for h's hostd session: it ends the
// least recently used idle MCP session other than h and deletes its
// hostd session, returning once that is done. False: no session was
// idle.
func (f *Face) reclaimFor(h *held) bool {
	f.mu.Lock()
	victim := f.idlestLocked(h)
	if victim != nil {
		f.reclaimLocked(victim)
	}
	f.mu.Unlock()
	if victim == nil {
		return false
	}
	f.finish(victim)
	return true
}

// heldFor is the held session of ss, nil if the face does not hold it.
func (f *Face) heldFor(ss *mcp.ServerSession) *held {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sessions[ss]
}
