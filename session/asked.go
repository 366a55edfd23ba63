package session

import (
	"crypto/sha256"
	"sync"

	"github.com/hashicorp/golang-lru/v2/simplelru"
)

// maxAsked bounds the boundary-repair questions a session remembers.
const maxAsked = 32

// Asked remembers the edits boundary repair asked about (edit-contract
// §8.4), so that the same request sent again with the same tag applies
// exactly as sent: one honest retry, as the provenance gate's reveal
// allows (§9.1). A request is its canonical path, its tag and its ops in
// canonical form; only their digest is kept.
//
// Bound: the maxAsked most recent questions, LRU; an answered question is
// forgotten. Concurrency: safe for concurrent use; mu guards keys.
type Asked struct {
	mu   sync.Mutex
	keys *simplelru.LRU[[sha256.Size]byte, struct{}]
}

// NewAsked returns an empty memory of questions.
func NewAsked() *Asked {
	l, _ := simplelru.NewLRU[[sha256.Size]byte, struct{}](maxAsked, nil)
	return &Asked{keys: l}
}

// askedKey is the digest of one request. The parts are separated by NUL,
// which none of them holds (paths, tags and ops are text without NUL).
func askedKey(path, tag, ops string) [sha256.Size]byte {
	h := sha256.New()
	h.Write([]byte(path))
	h.Write([]byte{0})
	h.Write([]byte(tag))
	h.Write([]byte{0})
	h.Write([]byte(ops))
	var k [sha256.Size]byte
	h.Sum(k[:0])
	return k
}

// Ask records that the request (path, tag, ops) was refused with a
// question.
func (a *Asked) Ask(path, tag, ops string) {
	k := askedKey(path, tag, ops)
	a.mu.Lock()
	defer a.mu.Unlock()
	a.keys.Add(k, struct{}{})
}

// Was reports whether the request was asked about.
func (a *Asked) Was(path, tag, ops string) bool {
	k := askedKey(path, tag, ops)
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.keys.Contains(k)
}

// Answered forgets the request: it landed as sent, so the question is
// closed and the same request again is asked about afresh.
func (a *Asked) Answered(path, tag, ops string) {
	k := askedKey(path, tag, ops)
	a.mu.Lock()
	defer a.mu.Unlock()
	a.keys.Remove(k)
}

// Len is the number of questions remembered.
func (a *Asked) Len() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.keys.Len()
}
