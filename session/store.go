package session

import (
	"slices"
	"strings"
	"sync"
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
	// (§4.4): its identity is then its full digest.
	Text       string
	Retained   bool
	Lines      int
	Bytes      int64
	Seen       LineSet
	RecordedAt time.Time
}

// same reports whether v records the same content as o: full text when
// both are retained (§3.3: a tag match is never identity), the full
// SHA-256 when either is not, as Match decides. Retention alone must not
// split one content into two versions: a read that could not retain a
// file and a grep that could would otherwise keep their seen lines apart.
//
// The digest ignores trailing blanks, so "a\n" and "a\n  " share one;
// the line count tells such texts apart when the text itself is not kept.
func (v *Version) same(o *Version) bool {
	if v.Digest != o.Digest || v.Lines != o.Lines {
		return false
	}
	return !v.Retained || !o.Retained || v.Text == o.Text
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
// (rpc.md §5.4).
//
// Bounds (config.Limits): MaxPathsPerSession paths, LRU by last record or
// lookup; MaxVersionsPerPath versions per path, oldest dropped;
// MaxRetainedBytesPerSession of retained text, coldest paths evicted until
// under; texts over MaxRetainedFileBytes are not retained;
// MaxLedgerEntries (path, tag) pairs in the ledger, LRU.
//
// Concurrency: a Store is safe for concurrent use; mu guards everything.
// Read fusion and eviction happen under one lock hold, so two concurrent
// records of one path never lose seen lines.
type Store struct {
	lim config.Limits

	mu       sync.Mutex
	paths    *simplelru.LRU[string, *history] // guarded by mu
	ledger   *simplelru.LRU[ledgerKey, []mint]
	retained int64 // bytes of retained text across paths; guarded by mu
}

type history struct {
	versions []*Version // newest first
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

// NewStore returns an empty store with lim's bounds.
func NewStore(lim config.Limits) *Store {
	s := &Store{lim: lim}
	s.paths, _ = simplelru.NewLRU(max(lim.MaxPathsPerSession, 1), func(_ string, h *history) {
		for _, v := range h.versions {
			s.release(v)
		}
	})
	s.ledger, _ = simplelru.NewLRU[ledgerKey, []mint](max(lim.MaxLedgerEntries, 1), nil)
	return s
}

func (s *Store) release(v *Version) {
	if v.Retained {
		s.retained -= int64(len(v.Text))
	}
}

// Record records a text a producer displayed (edit-contract §4.2) and
// returns its tag. A retained version with the same tag and the same full
// text is promoted to head and its seen lines unioned in (read fusion);
// anything else becomes a new head version.
func (s *Store) Record(path string, snap Snapshot) string {
	v := &Version{
		Tag:        snap.Digest.Tag(),
		Digest:     snap.Digest,
		Lines:      snap.Lines,
		Bytes:      snap.Bytes,
		Seen:       snap.Seen,
		RecordedAt: time.Now(),
	}
	if snap.HasText && int64(len(snap.Text)) <= s.lim.MaxRetainedFileBytes {
		v.Text, v.Retained = snap.Text, true
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	s.mintLocked(path, v.Tag, mint{v.Digest, v.Lines})
	h, ok := s.paths.Get(path)
	if !ok {
		h = &history{}
		s.paths.Add(path, h)
	}
	if i := slices.IndexFunc(h.versions, func(o *Version) bool { return o.Tag == v.Tag && o.same(v) }); i >= 0 {
		old := h.versions[i]
		old.Seen = old.Seen.Union(v.Seen)
		old.RecordedAt = v.RecordedAt
		h.versions = slices.Delete(h.versions, i, i+1)
		h.versions = slices.Insert(h.versions, 0, old)
		if v.Retained && !old.Retained {
			old.Text, old.Retained = v.Text, true
			s.retained += int64(len(v.Text))
			s.shrinkLocked(path, h)
		}
		return v.Tag
	}
	h.versions = slices.Insert(h.versions, 0, v)
	if v.Retained {
		s.retained += int64(len(v.Text))
	}
	for len(h.versions) > s.lim.MaxVersionsPerPath {
		s.release(h.versions[len(h.versions)-1])
		h.versions = h.versions[:len(h.versions)-1]
	}
	s.shrinkLocked(path, h)
	return v.Tag
}

// shrinkLocked evicts the coldest paths until retained text is under the
// session bound. The path just recorded goes last: if it alone is over the
// bound, its oldest versions are dropped.
func (s *Store) shrinkLocked(hot string, h *history) {
	for s.retained > s.lim.MaxRetainedBytesPerSession {
		if k, _, ok := s.paths.GetOldest(); ok && k != hot {
			s.paths.RemoveOldest()
			continue
		}
		if len(h.versions) <= 1 {
			return
		}
		s.release(h.versions[len(h.versions)-1])
		h.versions = h.versions[:len(h.versions)-1]
	}
}

func (s *Store) mintLocked(path, tag string, d mint) {
	k := ledgerKey{path, tag}
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
		if v.Tag == tag {
			out = append(out, *v)
		}
	}
	return out
}

// Match returns the newest version recorded under tag whose content is the
// live content: equal full text when retained, equal full digest when not.
// This is the version gate of rpc.md §5.5; a tag match alone is not enough.
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
// (rpc.md §5.4). The ledger outlives evicted text.
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
		if o.Tag == v.Tag && o.same(&v) {
			o.Seen = o.Seen.Union(lines)
			return true
		}
	}
	return false
}

// Invalidate forgets every version of path and every tag minted for it,
// so no tag minted before (for example, before a rollback rewrote the
// file) is honoured after.
func (s *Store) Invalidate(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.paths.Remove(path)
	for _, k := range s.ledger.Keys() {
		if k.path == path {
			s.ledger.Remove(k)
		}
	}
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
	st := StoreStats{Paths: s.paths.Len(), RetainedBytes: s.retained, LedgerEntries: s.ledger.Len()}
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
			pv.Versions = append(pv.Versions, *v)
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
	return *h.versions[0], true
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
