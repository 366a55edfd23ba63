package review

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
	"go.uber.org/zap"

	"github.com/hostd-dev/hostd/config"
)

// FileName is the database file Open creates in its directory.
const FileName = "review.db"

// lockTimeout bounds how long Open waits for another process holding the
// same database: a second daemon on one state directory must fail with a
// message, not hang.
const lockTimeout = 2 * time.Second

// Store is the durable review record of every session. It is safe for
// concurrent use by many sessions.
//
// Locking: mu guards the in-memory index below and is held across every
// bbolt write transaction, so the index and the database change together
// (bbolt admits one writer at a time anyway, so this costs no parallelism).
// mu is never taken inside a bbolt transaction callback, and no file is
// written or read under mu: restores and diffs happen before or after it.
// Serializing a rollback with the same session's mutations is the caller's
// job (rollback.Undo holds the session's lock); the store only refuses two
// rollbacks of one call at once (ErrBusy). The file writes of Apply and
// RestoreTxn.Restore run outside mu, under the caller's file locks.
type Store struct {
	db    *bolt.DB
	lim   config.Limits
	log   *zap.Logger
	clock func() time.Time

	mu sync.Mutex
	// calls holds every recorded call; order holds the same calls sorted
	// by their first entry's seq, oldest first, which is eviction order.
	calls    map[callKey]*call
	order    []*call
	sessions map[string]*SessionStats
	total    SessionStats
	// pending holds calls with an intent in the database: an in-flight
	// mutation or a mutation whose settling failed and waits for Open.
	pending map[callKey]bool
	intents int
	evicted int64
	closed  bool
	// recovered is set by Open and never changes.
	recovered *Recovery
	// broken holds why the database turned out damaged while in use;
	// once set, no transaction runs again. Atomic, so that view and
	// update read it with or without mu held.
	broken atomic.Pointer[string]
	// listeners are told of every recorded call (OnRecord).
	listeners []func(Recorded)
	// lazy holds commits recorded in the index whose transaction has not
	// run yet, oldest first; lazyDiffs their diffs by seq, for List; the
	// timer writes them when no other write does (lazy.go).
	lazy       []func(*bolt.Tx) error
	lazyDiffs  map[uint64]string
	flushTimer *time.Timer
	// eager turns lazy commits off (SetLazyCommit).
	eager bool
}

// Recorded is one tool call's entries, as OnRecord listeners receive them
// and as the review.recorded notification carries them.
type Recorded struct {
	SessionID  string  `json:"sessionId"`
	ToolCallID string  `json:"toolCallId"`
	Entries    []Entry `json:"entries"`
}

// OnRecord registers f to be called after every call's entries are
// durably recorded. f runs on the recording goroutine, outside the
// store's lock, and must not block: hand the value off.
func (s *Store) OnRecord(f func(Recorded)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.listeners = append(s.listeners, f)
}

func (s *Store) notify(r Recorded) {
	s.mu.Lock()
	ls := slices.Clone(s.listeners)
	s.mu.Unlock()
	for _, f := range ls {
		f(r)
	}
}

type callKey struct{ session, id string }

// call is one recorded tool call: all its entries, oldest first.
type call struct {
	key     callKey
	entries []*entryRecord
	bytes   int64
	// busy marks a call whose rollback is in flight or interrupted. It is
	// never evicted, because its before bytes may still be needed to
	// finish the rollback.
	busy bool
}

func (c *call) first() uint64 { return c.entries[0].Seq }

// live returns copies of the call's entries not rolled back yet, in order
// (copies: RolledBack may change under mu).
func (c *call) live() []entryRecord {
	var recs []entryRecord
	for _, r := range c.entries {
		if !r.RolledBack {
			recs = append(recs, *r)
		}
	}
	return recs
}

// Open opens (creating if needed) the store in dir, loads its index, and
// settles every intent an earlier process left unfinished, so that when
// Open returns each recorded path is its before or its after and the
// store agrees with the disk. log may be nil.
func Open(dir string, lim config.Limits, log *zap.Logger) (*Store, error) {
	return open(dir, lim, log, false)
}

// open is Open with the option, for tests only, of skipping fsync.
func open(dir string, lim config.Limits, log *zap.Logger, noSync bool) (*Store, error) {
	if err := lim.Validate(); err != nil {
		return nil, err
	}
	if log == nil {
		log = zap.NewNop()
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("review store: %w", err)
	}
	path := filepath.Join(dir, FileName)
	db, err := openChecked(path, noSync)
	var recovered *Recovery
	if ce := (*corruptError)(nil); errors.As(err, &ce) {
		now := time.Now()
		aside, merr := moveAside(path, now, ce.lockHeld)
		if merr != nil {
			return nil, fmt.Errorf("review store %s is damaged (%s) and could not be moved aside: %w", path, ce.reason, merr)
		}
		recovered = &Recovery{From: aside, Reason: ce.reason, At: now.UTC()}
		log.Error("review: the review store was damaged; it was moved aside and a fresh, empty store started. The earlier review history is in the moved file, no longer in hostd",
			zap.String(logFrom, aside), zap.String(logReason, ce.reason))
		db, err = openChecked(path, noSync)
		if err != nil {
			return nil, fmt.Errorf("review store %s: a fresh store could not be started after moving a damaged one aside: %w", path, err)
		}
	}
	if err != nil {
		return nil, err
	}
	s := &Store{
		db:        db,
		lim:       lim,
		log:       log,
		clock:     time.Now,
		calls:     make(map[callKey]*call),
		sessions:  make(map[string]*SessionStats),
		pending:   make(map[callKey]bool),
		recovered: recovered,
	}
	for _, step := range []func() error{func() error { return s.update(createBuckets) }, s.loadIndex, s.recover} {
		if err := step(); err != nil {
			s.Close()
			return nil, fmt.Errorf("review store %s: %w", path, err)
		}
	}
	return s, nil
}

// loadIndex reads every entry record (not the before bytes or diffs).
func (s *Store) loadIndex() error {
	return s.view(func(tx *bolt.Tx) error {
		err := tx.Bucket(bucketEntries).ForEach(func(k, v []byte) error {
			r := new(entryRecord)
			if err := json.Unmarshal(v, r); err != nil {
				return fmt.Errorf("entry %x: %w", k, err)
			}
			s.addLocked(r)
			return nil
		})
		if err != nil {
			return err
		}
		s.intents = tx.Bucket(bucketIntents).Stats().KeyN
		return nil
	})
}

// addLocked puts one committed entry into the index. Entries arrive
// oldest first per call (loadIndex walks seqs in order; commits append a
// call's entries in seq order).
func (s *Store) addLocked(r *entryRecord) {
	k := callKey{r.Session, r.ToolCallID}
	c := s.calls[k]
	if c == nil {
		c = &call{key: k}
		s.calls[k] = c
		i, _ := slices.BinarySearchFunc(s.order, r.Seq, func(c *call, seq uint64) int {
			return cmpSeq(c.first(), seq)
		})
		s.order = slices.Insert(s.order, i, c)
		s.usageLocked(k.session).Calls++
		s.total.Calls++
	}
	c.entries = append(c.entries, r)
	c.bytes += r.Bytes
	u := s.usageLocked(k.session)
	u.Entries++
	u.Bytes += r.Bytes
	s.total.Entries++
	s.total.Bytes += r.Bytes
}

// removeLocked drops a whole call from the index.
func (s *Store) removeLocked(c *call) {
	delete(s.calls, c.key)
	if i := slices.Index(s.order, c); i >= 0 {
		s.order = slices.Delete(s.order, i, i+1)
	}
	u := s.usageLocked(c.key.session)
	u.Calls--
	u.Entries -= len(c.entries)
	u.Bytes -= c.bytes
	if u.Calls == 0 {
		delete(s.sessions, c.key.session)
	}
	s.total.Calls--
	s.total.Entries -= len(c.entries)
	s.total.Bytes -= c.bytes
}

func (s *Store) usageLocked(session string) *SessionStats {
	u := s.sessions[session]
	if u == nil {
		u = new(SessionStats)
		s.sessions[session] = u
	}
	return u
}

func cmpSeq(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// SessionSummary is one session that has review records, live or not
// (review.sessions sends it as wire.ReviewSession, the same fields).
type SessionSummary struct {
	SessionID string    `json:"sessionId"`
	Workspace string    `json:"workspace,omitempty"` // the workspace root of its latest recorded call (absent for records older than this field)
	Calls     int       `json:"calls"`
	Entries   int       `json:"entries"`
	Last      time.Time `json:"last"` // when its latest entry was recorded
}

// Sessions lists every session with records, the most recently changed
// first.
func (s *Store) Sessions() ([]SessionSummary, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	by := map[string]*SessionSummary{}
	for _, c := range s.order { // oldest call first
		sum := by[c.key.session]
		if sum == nil {
			sum = &SessionSummary{SessionID: c.key.session}
			by[c.key.session] = sum
		}
		sum.Calls++
		sum.Entries += len(c.entries)
		for _, e := range c.entries {
			if !e.At.Before(sum.Last) {
				sum.Last = e.At
				if e.Workspace != "" {
					sum.Workspace = e.Workspace
				}
			}
		}
	}
	out := make([]SessionSummary, 0, len(by))
	for _, sum := range by {
		out = append(out, *sum)
	}
	slices.SortFunc(out, func(a, b SessionSummary) int {
		if c := b.Last.Compare(a.Last); c != 0 {
			return c
		}
		return strings.Compare(a.SessionID, b.SessionID)
	})
	return out, nil
}

// List returns the session's entries, oldest first. A non-empty path keeps
// only entries whose canonical or display path equals it. A session with
// no entries has an empty list, not an error.
func (s *Store) List(sessionID, path string) ([]Entry, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, ErrClosed
	}
	var recs []entryRecord
	lazy := make(map[uint64]string)
	for _, c := range s.order {
		if c.key.session != sessionID {
			continue
		}
		for _, r := range c.entries {
			if path == "" || r.Path == path || r.Display == path {
				recs = append(recs, *r) // a copy: RolledBack may change under mu
				if d, ok := s.lazyDiffs[r.Seq]; ok {
					lazy[r.Seq] = d
				}
			}
		}
	}
	s.mu.Unlock()

	// Diffs are read outside mu; an entry evicted meanwhile has no diff
	// any more and is left out, as if List had run a moment later.
	out := make([]Entry, 0, len(recs))
	err := s.view(func(tx *bolt.Tx) error {
		entries, diffs := tx.Bucket(bucketEntries), tx.Bucket(bucketDiffs)
		for i := range recs {
			if d, ok := lazy[recs[i].Seq]; ok {
				out = append(out, recs[i].entry(d))
				continue
			}
			k := seqKey(recs[i].Seq)
			if entries.Get(k) == nil {
				continue
			}
			out = append(out, recs[i].entry(string(diffs.Get(k))))
		}
		return nil
	})
	return out, err
}

// Stats reports the store's usage.
func (s *Store) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Stats{
		Entries:        s.total.Entries,
		Calls:          s.total.Calls,
		Bytes:          s.total.Bytes,
		PendingIntents: s.intents,
		EvictedCalls:   s.evicted,
		Sessions:       make(map[string]SessionStats, len(s.sessions)),
		Recovered:      s.recovered,
		Broken:         s.Broken(),
	}
	for id, u := range s.sessions {
		st.Sessions[id] = *u
	}
	return st
}

// Close closes the database. Unfinished transactions stay in it as
// intents and are settled by the next Open, exactly as after a crash.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	if s.flushTimer != nil {
		s.flushTimer.Stop()
	}
	if len(s.lazy) > 0 {
		if err := s.update(func(*bolt.Tx) error { return nil }); err != nil {
			// Their intents are on disk: the next Open rebuilds them.
			s.log.Warn("review: writing recorded changes at close failed; the next start rebuilds them from their intents", zap.Error(err))
		}
	}
	s.closed = true
	if s.broken.Load() == nil {
		return guarded(s.db.Close)
	}
	// A panic inside bbolt may have left one of its locks held, and
	// Close takes them all: close in the background, and give up
	// waiting rather than hang the daemon's shutdown. The file is
	// released when the process exits at the latest.
	done := make(chan error, 1)
	go func() { done <- guarded(s.db.Close) }()
	select {
	case err := <-done:
		return err
	case <-time.After(brokenCloseWait):
		return fmt.Errorf("%w: bbolt did not close the damaged file within %v; it is released when hostd exits", ErrBroken, brokenCloseWait)
	}
}

// brokenCloseWait bounds how long Close waits for bbolt to close a
// database that panicked.
const brokenCloseWait = time.Second

// Recovered reports whether Open found the database damaged and started
// a fresh store, and from where; nil when it did not.
func (s *Store) Recovered() *Recovery { return s.recovered }

// Broken says why the database turned out damaged while in use, or ""
// while it has not.
func (s *Store) Broken() string {
	if b := s.broken.Load(); b != nil {
		return *b
	}
	return ""
}

// view (and update, lazy.go) run a bbolt transaction guarded: a panic or a fault in
// bbolt marks the store broken and becomes an error, and a broken store
// runs no more transactions.
func (s *Store) view(fn func(*bolt.Tx) error) error {
	return s.guard(func() error { return s.db.View(fn) })
}

func (s *Store) guard(f func() error) error {
	if err := s.brokenErr(); err != nil {
		return err
	}
	err := guarded(f)
	var pe *panicError
	if !errors.As(err, &pe) {
		return err
	}
	reason := pe.Error()
	if s.broken.CompareAndSwap(nil, &reason) {
		s.log.Error("review: the review store is damaged; it refuses every further call until hostd restarts, checks the file and moves it aside",
			zap.String(logReason, reason), zap.Stack("stack"))
	}
	return s.brokenErr()
}

func (s *Store) brokenErr() error {
	if b := s.broken.Load(); b != nil {
		return fmt.Errorf("%w (%s); hostd stopped using it so as not to write into a damaged file: restart hostd, which checks the file and moves a damaged one aside", ErrBroken, *b)
	}
	return nil
}
