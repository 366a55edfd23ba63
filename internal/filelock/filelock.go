// Package filelock owns the daemon-wide locks on files: one lock per
// canonical path, shared by every session and every connection, so that
// checking a file's version and replacing it is one atomic step for the
// whole daemon (the hardening issue's lost update). A call that touches
// several paths (MV, a rollback) locks them all at once, in sorted order,
// so two such calls can never deadlock.
//
// The lock is in-process: another process writing the same file is caught
// by the digest check just before the rename (workspace.Expect), not here.
//
// A path is locked by its folded spelling (key): on a filesystem that
// folds case or Unicode normalization, a file that does not exist yet
// keeps the spelling it was named by (workspace names an existing file
// as stored), so New.go and new.go must share one lock, or two calls
// creating them at once would both see the name free.
//
// Lock order (docs/architecture.md): a session's mutation lock first, then
// the file locks of one call, then review.Store.mu inside the review calls.
// No code takes a session lock while holding a file lock.
package filelock

import (
	"context"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Table is a set of per-path locks. The zero value is ready to use and it
// is safe for concurrent use. Entries exist only while locked or waited
// for, so the table's size is bounded by the calls in flight.
type Table struct {
	mu    sync.Mutex
	locks map[string]*entry
}

type entry struct {
	ch   chan struct{} // holds one token while locked
	refs int           // holders and waiters; the entry is dropped at zero
}

// Lock takes the locks of every path (duplicates, spellings with one key,
// and empty strings are ignored), waiting until they are free or ctx
// ends. On success it returns the function that releases them all; it
// must be called once.
func (t *Table) Lock(ctx context.Context, paths ...string) (unlock func(), err error) {
	keys := make([]string, 0, len(paths))
	for _, p := range paths {
		if p != "" {
			keys = append(keys, key(p))
		}
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)

	held := make([]string, 0, len(keys))
	release := func() {
		for i := len(held) - 1; i >= 0; i-- {
			t.unlock(held[i])
		}
	}
	for _, k := range keys {
		e := t.ref(k)
		select {
		case e.ch <- struct{}{}:
			held = append(held, k)
		case <-ctx.Done():
			t.unref(k)
			release()
			return nil, ctx.Err()
		}
	}
	var once sync.Once
	return func() { once.Do(release) }, nil
}

// key is the lock key of a path: composed (NFC) and in one case, so every
// spelling a folding filesystem takes for one name has one key. On a
// filesystem that tells them apart, two files whose names differ only so
// share a lock, which costs concurrency and nothing else.
func key(p string) string {
	for i := 0; i < len(p); i++ {
		if p[i] >= utf8.RuneSelf {
			return strings.ToLower(strings.ToUpper(norm.NFC.String(p)))
		}
	}
	return strings.ToLower(p)
}

func (t *Table) ref(k string) *entry {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.locks == nil {
		t.locks = make(map[string]*entry)
	}
	e := t.locks[k]
	if e == nil {
		e = &entry{ch: make(chan struct{}, 1)}
		t.locks[k] = e
	}
	e.refs++
	return e
}

func (t *Table) unref(k string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e := t.locks[k]
	if e.refs--; e.refs == 0 {
		delete(t.locks, k)
	}
}

func (t *Table) unlock(k string) {
	t.mu.Lock()
	e := t.locks[k]
	t.mu.Unlock()
	<-e.ch
	t.unref(k)
}

// Len is the number of paths locked or waited for.
func (t *Table) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.locks)
}
