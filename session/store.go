package session

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/workspace"
)

// Version is one recorded text of a path: a snapshot (edit-contract §4.1).
type Version struct {
	Tag    string
	Digest workspace.Digest
	// Text is the full normalized text, present only when Retained. A file
	// over the single-file retention bound is tagged but not retained
	// (§4.4), and a text the daemon-wide bound evicted is no longer
	// retained: the identity of such a version is its full digest.
	Text       string
	Retained   bool
	Lines      int
	Bytes      int64
	Seen       LineSet
	RecordedAt time.Time
}

// Snapshot is what a producer hands to Record.
type Snapshot struct {
	Digest workspace.Digest
	// Text is the full normalized text when the producer kept it; HasText
	// says so (an empty file has empty text).
	Text    string
	HasText bool
	Lines   int
	Bytes   int64
	Seen    LineSet
}

// Store is one session's snapshot store: canonical path -> versions, newest
// first (edit-contract §4), plus the ledger of every (path, tag) minted
// (edit-contract §4.5).
//
// Bounds (config.Limits): MaxPathsPerSession paths, LRU by last record or
// lookup; MaxVersionsPerPath versions per path, oldest dropped;
// MaxRetainedBytesPerSession of retained text, coldest paths evicted until
// under; texts over MaxRetainedFileBytes are not retained;
// MaxLedgerEntries (path, tag) pairs in the ledger, LRU. Across the stores
// of one Manager, MaxRetainedBytes of retained text in all: past it the
// daemon-wide coldest text is dropped and its version kept (retention).
//
// Concurrency: a Store is safe for concurrent use; mu guards everything
// but the text itself, which the shared retention guards. Lock order: mu,
// then retention.mu. Read fusion and eviction happen under one hold of
// mu, so two concurrent records of one path never lose seen lines.
type Store struct {
	lim  config.Limits
	pool *retention

	mu     sync.Mutex
	paths  *simplelru.LRU[string, *history] // guarded by mu
	ledger *simplelru.LRU[ledgerKey, []mint]
	// forgotten remembers why recent (path, tag) pairs were dropped by
	// Invalidate (a rollback, an MV, a REM), so an edit with one of them
	// is told that, not that the tag was never minted. Guarded by mu.
	forgotten *simplelru.LRU[ledgerKey, string]
	closed    bool // guarded by mu: a dropped store retains no more text

	// retained is the bytes of this store's text the pool holds. The pool
	// changes it under its own lock, also when it evicts for another
	// session, so it is read atomically.
	retained atomic.Int64
}

type history struct {
	versions []*version // newest first
}

// version is a Version as the store keeps it: the text, when retained,
// lives in the pool, which may drop it at any time.
type version struct {
	tag        string
	digest     workspace.Digest
	lines      int
	bytes      int64
	seen       LineSet
	recordedAt time.Time
	held       *heldText // nil when the text was never retained
}

type ledgerKey struct{ path, tag string }

// mint identifies content a tag was minted for without holding it: the
// full digest, and the line count the digest alone cannot tell.
type mint struct {
	digest workspace.Digest
	lines  int
}

// maxDigestsPerTag bounds the ledger entry of one (path, tag): collisions
// within one path are rare, so a handful is plenty.
const maxDigestsPerTag = 4

// NewStore returns an empty store with lim's bounds. Built alone, it is
// the only store under its MaxRetainedBytes; a Manager's stores share one.
func NewStore(lim config.Limits) *Store {
	return newStore(lim, newRetention(lim.MaxRetainedBytes))
}

func newStore(lim config.Limits, pool *retention) *Store {
	s := &Store{lim: lim, pool: pool}
	s.paths, _ = simplelru.NewLRU(max(lim.MaxPathsPerSession, 1), func(_ string, h *history) {
		for _, v := range h.versions {
			s.pool.drop(v.held)
		}
	})
	s.ledger, _ = simplelru.NewLRU[ledgerKey, []mint](max(lim.MaxLedgerEntries, 1), nil)
	s.forgotten, _ = simplelru.NewLRU[ledgerKey, string](maxForgotten, nil)
	return s
}

// same reports whether o records the same content as a text with digest
// d and the given line count: equal full text when both are retained
// (§3.3: a tag match is never identity), the full SHA-256 when either is
// not, as Match decides. Retention alone must not split one content into
// two versions: a read that could not retain a file and a grep that could
// would otherwise keep their seen lines apart.
//
// The digest ignores trailing blanks, so "a\n" and "a\n  " share one;
// the line count tells such texts apart when the text itself is not kept.
func (s *Store) same(o *version, d workspace.Digest, lines int, text string, hasText bool) bool {
	if o.digest != d || o.lines != lines {
		return false
	}
	if !hasText {
		return true
	}
	t, ok := s.pool.peek(o.held)
	return !ok || t == text
}

// export is the caller's copy of v, with its text if the pool still holds
// it; touch makes that text the hottest.
func (s *Store) export(v *version, touch bool) Version {
	out := Version{Tag: v.tag, Digest: v.digest, Lines: v.lines, Bytes: v.bytes, Seen: v.seen, RecordedAt: v.recordedAt}
	if touch {
		out.Text, out.Retained = s.pool.use(v.held)
	} else {
		out.Text, out.Retained = s.pool.peek(v.held)
	}
	return out
}

// Close drops the store's retained text from the daemon-wide count and
// stops it retaining more; its versions and ledger stay, so a call still
// running against it validates by digest. Manager calls it when a session
// is deleted or switches workspace.
func (s *Store) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for _, h := range s.paths.Values() {
		for _, v := range h.versions {
			s.pool.drop(v.held)
		}
	}
}

// Record records a text a producer displayed (edit-contract §4.2) and
// returns its tag. A version with the same tag and the same content is
// promoted to head and its seen lines unioned in (read fusion); anything
// else becomes a new head version.
func (s *Store) Record(path string, snap Snapshot) string {
	tag := snap.Digest.Tag()
	now := time.Now()
	keep := snap.HasText && int64(len(snap.Text)) <= s.lim.MaxRetainedFileBytes

	s.mu.Lock()
	defer s.mu.Unlock()
	keep = keep && !s.closed
	s.mintLocked(path, tag, mint{snap.Digest, snap.Lines})
	h, ok := s.paths.Get(path)
	if !ok {
		h = &history{}
		s.paths.Add(path, h)
	}
	if i := slices.IndexFunc(h.versions, func(o *version) bool {
		return o.tag == tag && s.same(o, snap.Digest, snap.Lines, snap.Text, keep)
	}); i >= 0 {
		old := h.versions[i]
		old.seen = old.seen.Union(snap.Seen)
		old.recordedAt = now
		h.versions = slices.Delete(h.versions, i, i+1)
		h.versions = slices.Insert(h.versions, 0, old)
		if _, held := s.pool.use(old.held); !held && keep {
			old.held = s.pool.hold(s, snap.Text)
			s.shrinkLocked(path, h)
		}
		return tag
	}
	v := &version{tag: tag, digest: snap.Digest, lines: snap.Lines, bytes: snap.Bytes, seen: snap.Seen, recordedAt: now}
	if keep {
		v.held = s.pool.hold(s, snap.Text)
	}
	h.versions = slices.Insert(h.versions, 0, v)
	for len(h.versions) > s.lim.MaxVersionsPerPath {
		s.pool.drop(h.versions[len(h.versions)-1].held)
		h.versions = h.versions[:len(h.versions)-1]
	}
	s.shrinkLocked(path, h)
	return tag
}

// shrinkLocked evicts the coldest paths until retained text is under the
// session bound. The path just recorded goes last: if it alone is over the
// bound, its oldest versions are dropped.
func (s *Store) shrinkLocked(hot string, h *history) {
	for s.retained.Load() > s.lim.MaxRetainedBytesPerSession {
		if k, _, ok := s.paths.GetOldest(); ok && k != hot {
			s.paths.RemoveOldest()
			continue
		}
		if len(h.versions) <= 1 {
			return
		}
		s.pool.drop(h.versions[len(h.versions)-1].held)
		h.versions = h.versions[:len(h.versions)-1]
	}
}

func (s *Store) mintLocked(path, tag string, d mint) {
	k := ledgerKey{path, tag}
	s.forgotten.Remove(k)
	ds, _ := s.ledger.Get(k)
	if slices.Contains(ds, d) {
		return
	}
	ds = append(slices.Clone(ds), d)
	if len(ds) > maxDigestsPerTag {
		ds = ds[1:]
	}
	s.ledger.Add(k, ds)
}

// Tagged returns copies of the versions of path recorded under tag, newest
// first. Several versions may share a tag (§3.3).
func (s *Store) Tagged(path, tag string) []Version {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, ok := s.paths.Get(path)
	if !ok {
		return nil
	}
	var out []Version
	for _, v := range h.versions {
		if v.tag == tag {
			out = append(out, s.export(v, true))
		}
	}
	return out
}

// Held returns the newest version of path recorded under tag whose text
// the store still holds, for a read of what changed since it.
func (s *Store) Held(path, tag string) (Version, bool) {
	for _, v := range s.Tagged(path, tag) {
		if v.Retained {
			return v, true
		}
	}
	return Version{}, false
}

// Match returns the newest version recorded under tag whose content is the
// live content: equal full text when retained, equal full digest when not.
// This is the version gate of edit-contract §3.3; a tag match alone is not enough.
func (s *Store) Match(path, tag, liveText string, liveDigest workspace.Digest) (Version, bool) {
	for _, v := range s.Tagged(path, tag) {
		if v.Digest != liveDigest {
			continue
		}
		if v.Retained && v.Text == liveText || !v.Retained && v.Lines == lineCount(liveText) {
			return v, true
		}
	}
	return Version{}, false
}

// lineCount is len(workspace.Lines(text)) without building the lines.
func lineCount(text string) int {
	n := strings.Count(text, "\n")
	if text != "" && !strings.HasSuffix(text, "\n") {
		n++
	}
	return n
}

// Minted reports whether this session minted tag for path, and whether it
// minted it for content with the given full digest and line count
// (edit-contract §4.5). The ledger outlives evicted text.
func (s *Store) Minted(path, tag string, d workspace.Digest, lines int) (tagKnown, digestMatch bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ds, ok := s.ledger.Get(ledgerKey{path, tag})
	return ok, slices.Contains(ds, mint{d, lines})
}

// MarkSeen unions lines into the seen set of the version of path that
// records the same content as v. It reports false when that version is
// gone (evicted or superseded past the version bound).
func (s *Store) MarkSeen(path string, v Version, lines LineSet) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, ok := s.paths.Get(path)
	if !ok {
		return false
	}
	for _, o := range h.versions {
		if o.tag == v.Tag && s.same(o, v.Digest, v.Lines, v.Text, v.Retained) {
			o.seen = o.seen.Union(lines)
			return true
		}
	}
	return false
}

// Invalidate forgets every version of path and every tag minted for it,
// so no tag minted before (for example, before a rollback rewrote the
// file) is honoured after.
//
// why says what happened to the file ("was rolled back"); an edit that
// names one of the dropped tags later is told it (Forgotten).
func (s *Store) Invalidate(path, why string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.paths.Remove(path)
	for _, k := range s.ledger.Keys() {
		if k.path == path {
			s.ledger.Remove(k)
			s.forgotten.Add(k, why)
		}
	}
}

// maxForgotten bounds how many dropped (path, tag) pairs a store
// remembers the reason of.
const maxForgotten = 256

// Forgotten reports why this session's tag of path was dropped, if
// Invalidate dropped it recently and no read minted it again since.
func (s *Store) Forgotten(path, tag string) (why string, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.forgotten.Get(ledgerKey{path, tag})
}

// StoreStats are a store's sizes.
type StoreStats struct {
	Paths         int   `json:"paths"`
	Snapshots     int   `json:"snapshots"`
	RetainedBytes int64 `json:"retainedBytes"`
	LedgerEntries int   `json:"ledgerEntries"`
}

// Stats reports the store's sizes.
func (s *Store) Stats() StoreStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := StoreStats{Paths: s.paths.Len(), RetainedBytes: s.retained.Load(), LedgerEntries: s.ledger.Len()}
	for _, h := range s.paths.Values() {
		st.Snapshots += len(h.versions)
	}
	return st
}

// PathVersions is one path's history, for debug.session.
type PathVersions struct {
	Path     string
	Versions []Version
}

// Dump lists every path, coldest first, with copies of its versions. It
// does not refresh recency.
func (s *Store) Dump() []PathVersions {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []PathVersions
	for _, k := range s.paths.Keys() {
		h, _ := s.paths.Peek(k)
		pv := PathVersions{Path: k}
		for _, v := range h.versions {
			pv.Versions = append(pv.Versions, s.export(v, false))
		}
		out = append(out, pv)
	}
	return out
}

// Head returns a copy of the newest version of path.
func (s *Store) Head(path string) (Version, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, ok := s.paths.Peek(path)
	if !ok || len(h.versions) == 0 {
		return Version{}, false
	}
	return s.export(h.versions[0], false), true
}

// PathsMinted lists the paths this session minted tag for, per the ledger,
// for path recovery (edit-contract §9.2).
func (s *Store) PathsMinted(tag string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, k := range s.ledger.Keys() {
		if k.tag == tag && !slices.Contains(out, k.path) {
			out = append(out, k.path)
		}
	}
	return out
}
