package session

import (
	"sync"

	"github.com/hashicorp/golang-lru/v2/simplelru"

	"github.com/hostd-dev/hostd/workspace"
)

// maxErrorChains bounds the paths whose chain of changes a session
// remembers for syntax feedback.
const maxErrorChains = 64

// ErrorChains remembers, for syntax feedback (edit-contract §5.6), the
// error regions of the version a chain of this session's changes to a
// path started from, carried through each change to the chain's latest
// version: an error that existed in the version the session first read
// is never its change's, even when an earlier change of the chain hid it.
// A chain goes on only while the path's text is the one its last change
// left (the digest of that text, as snapshots know it, is kept, not the
// text); any other text starts a new chain.
//
// Bound: maxErrorChains paths, LRU. Concurrency: safe for concurrent use;
// mu guards chains.
type ErrorChains struct {
	mu     sync.Mutex
	chains *simplelru.LRU[string, errorChain]
}

// LineSpan is lines Start..End, 1-based and inclusive.
type LineSpan struct{ Start, End int }

type errorChain struct {
	digest  workspace.Digest
	regions []LineSpan
}

// NewErrorChains returns an empty memory of chains.
func NewErrorChains() *ErrorChains {
	l, _ := simplelru.NewLRU[string, errorChain](maxErrorChains, nil)
	return &ErrorChains{chains: l}
}

// Of returns the regions carried to the path's text with digest d, the
// text a change now starts from, when a chain of this session's changes
// left it; ok false starts a new chain.
func (c *ErrorChains) Of(path string, d workspace.Digest) (regions []LineSpan, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch, ok := c.chains.Get(path)
	if !ok || ch.digest != d {
		return nil, false
	}
	return ch.regions, true
}

// Continue records that a change of this session left the text with
// digest d at path, with the chain's first version's regions carried to
// it.
func (c *ErrorChains) Continue(path string, d workspace.Digest, regions []LineSpan) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.chains.Add(path, errorChain{digest: d, regions: regions})
}

// Len is the number of paths with a chain.
func (c *ErrorChains) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.chains.Len()
}
