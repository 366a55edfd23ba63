package session

import (
	"container/list"
	"sync"
)

// retention is the daemon-wide bound on retained snapshot text
// (config.Limits.MaxRetainedBytes): one LRU over the retained versions of
// every store of a Manager, so that many sessions, each inside its own
// bound, never hold more than the limit together. Recording or looking up
// a version makes its text the hottest; past the limit the coldest text
// daemon-wide goes first.
//
// Evicting a text keeps its version: the digest, line count, seen lines
// and the ledger stay, and the version then validates an edit by its
// digest like any version kept without its text (edit-contract §4.4).
//
// Concurrency: mu guards the list, the byte counts and every heldText's
// fields. Lock order: a Store's mu, then retention.mu. retention never
// takes a Store's lock: evicting another session's text changes only the
// heldText and that store's atomic byte count, so no two stores' locks are
// ever held together.
type retention struct {
	limit int64 // <= 0: no daemon-wide bound (a store built alone in a test)

	mu           sync.Mutex
	lru          list.List // of *heldText, coldest at the front; guarded by mu
	bytes        int64     // sum of the texts in lru; guarded by mu
	evicted      int64     // texts evicted for the limit; guarded by mu
	evictedBytes int64     // their bytes; guarded by mu
}

// heldText is one version's retained text. Once evicted or dropped it
// stays empty: a version is never re-retained through an old heldText.
type heldText struct {
	text  string        // guarded by retention.mu; "" once gone
	elem  *list.Element // guarded by retention.mu; nil once gone
	owner *Store        // whose retained count this text is part of
}

func newRetention(limit int64) *retention {
	return &retention{limit: limit}
}

// hold retains text for owner as the hottest text, then evicts the
// coldest texts daemon-wide until the total is within the limit. The
// returned text may already be gone if it alone is over the limit.
func (r *retention) hold(owner *Store, text string) *heldText {
	h := &heldText{text: text, owner: owner}
	r.mu.Lock()
	defer r.mu.Unlock()
	h.elem = r.lru.PushBack(h)
	r.bytes += int64(len(text))
	owner.retained.Add(int64(len(text)))
	for r.limit > 0 && r.bytes > r.limit {
		cold := r.lru.Front().Value.(*heldText)
		r.evicted++
		r.evictedBytes += int64(len(cold.text))
		r.removeLocked(cold)
	}
	return h
}

func (r *retention) removeLocked(h *heldText) {
	if h.elem == nil {
		return
	}
	r.lru.Remove(h.elem)
	n := int64(len(h.text))
	r.bytes -= n
	h.owner.retained.Add(-n)
	h.text, h.elem = "", nil
}

// use returns h's text if it is still retained and makes it the hottest.
// h may be nil (a version never retained).
func (r *retention) use(h *heldText) (string, bool) {
	if h == nil {
		return "", false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if h.elem == nil {
		return "", false
	}
	r.lru.MoveToBack(h.elem)
	return h.text, true
}

// peek is use without refreshing recency.
func (r *retention) peek(h *heldText) (string, bool) {
	if h == nil {
		return "", false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return h.text, h.elem != nil
}

// drop forgets h's text because its version is gone.
func (r *retention) drop(h *heldText) {
	if h == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.removeLocked(h)
}

// RetentionStats describe the daemon-wide retained text.
type RetentionStats struct {
	LimitBytes    int64 `json:"limitBytes"`    // config.Limits.MaxRetainedBytes
	RetainedBytes int64 `json:"retainedBytes"` // across every session
	Texts         int   `json:"texts"`         // retained versions across every session
	EvictedTexts  int64 `json:"evictedTexts"`  // texts dropped for the limit, their versions kept
	EvictedBytes  int64 `json:"evictedBytes"`
}

func (r *retention) stats() RetentionStats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return RetentionStats{LimitBytes: r.limit, RetainedBytes: r.bytes, Texts: r.lru.Len(), EvictedTexts: r.evicted, EvictedBytes: r.evictedBytes}
}
