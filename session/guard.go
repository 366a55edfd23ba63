package session

import (
	"sync"

	"github.com/hashicorp/golang-lru/v2/simplelru"
)

// graceCodes are the recoverable edit failures (edit-contract §9.3): each
// hands back what an honest retry needs, so each gets one free attempt per
// path and prompt before it counts.
var graceCodes = map[string]bool{
	"EDIT_TAG_MISMATCH": true,
	"EDIT_TAG_UNKNOWN":  true,
	"EDIT_LINES_UNSEEN": true,
}

// Guard is the repeat guard of edit-contract §9.3: it counts failing edits
// per (prompt, path) and tells the caller when a prompt keeps failing on
// one path, so the turn can stop instead of looping (a peer logged 182
// identical no-op edits in 205 calls).
//
// Bounds: the most recent maxGuardPrompts prompts are remembered, LRU, and
// at most maxGuardPaths paths within each. Concurrency: safe for concurrent
// use; mu guards prompts.
type Guard struct {
	limit int

	mu      sync.Mutex
	prompts *simplelru.LRU[string, *simplelru.LRU[string, *attempts]]
}

const (
	maxGuardPrompts = 32
	maxGuardPaths   = 64
)

type attempts struct {
	count  int
	graced map[string]bool
}

// NewGuard returns a guard that stops a prompt at limit counted failures
// on one path.
func NewGuard(limit int) *Guard {
	g := &Guard{limit: limit}
	g.prompts, _ = simplelru.NewLRU[string, *simplelru.LRU[string, *attempts]](maxGuardPrompts, nil)
	return g
}

// Verdict is the guard's answer to one failure.
type Verdict struct {
	// Attempt is the counted attempt number (0: the failure used its grace).
	Attempt int
	// Terminate reports that the limit is reached: the turn must stop.
	Terminate bool
}

// Fail records a failed edit of path with code in prompt. Without a prompt
// id nothing is counted (wire-contract §3).
func (g *Guard) Fail(prompt, path, code string) Verdict {
	if prompt == "" {
		return Verdict{}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	paths, ok := g.prompts.Get(prompt)
	if !ok {
		paths, _ = simplelru.NewLRU[string, *attempts](maxGuardPaths, nil)
		g.prompts.Add(prompt, paths)
	}
	a, ok := paths.Get(path)
	if !ok {
		a = &attempts{graced: make(map[string]bool)}
		paths.Add(path, a)
	}
	if graceCodes[code] && !a.graced[code] {
		a.graced[code] = true
		return Verdict{}
	}
	a.count++
	return Verdict{Attempt: a.count, Terminate: a.count >= g.limit}
}

// Succeed clears path's history in prompt: a write that landed resets the
// count (edit-contract §9.3).
func (g *Guard) Succeed(prompt, path string) {
	if prompt == "" {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if paths, ok := g.prompts.Get(prompt); ok {
		paths.Remove(path)
	}
}
