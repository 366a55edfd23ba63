package review

import (
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/hostd-dev/hostd/config"
)

func smallLimits() config.Limits {
	lim := config.DefaultLimits()
	lim.MaxReviewEntriesPerSession = 4
	lim.MaxReviewEntries = 6
	lim.MaxReviewBytesPerSession = 1 << 20
	lim.MaxReviewBytes = 1 << 20
	return lim
}

// callsOf lists the toolCallIds a session still has, oldest first, each
// once, and checks that no call lost part of its entries.
func callsOf(t *testing.T, s *Store, session string, sizes map[string]int) []string {
	t.Helper()
	entries, err := s.List(session, "")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	count := map[string]int{}
	for _, e := range entries {
		if count[e.ToolCallID] == 0 {
			ids = append(ids, e.ToolCallID)
		}
		count[e.ToolCallID]++
	}
	for id, n := range count {
		if n != sizes[id] {
			t.Errorf("call %s kept %d of its %d entries", id, n, sizes[id])
		}
	}
	return ids
}

// Retention is bounded per session, oldest call first, whole calls only.
func TestEvictionPerSessionOldestWholeCallsFirst(t *testing.T) {
	ws := t.TempDir()
	s, _ := openTest(t, smallLimits())
	sizes := map[string]int{}
	commit := func(session, id string, paths int) {
		var changes []plannedChange
		for i := range paths {
			changes = append(changes, create(filepath.Join(ws, session, id, fmt.Sprint(i)), id, "x\n"))
		}
		mutate(t, s, session, id, "edit", changes...)
		sizes[id] = paths
	}
	commit("s1", "c1", 1)
	commit("s1", "mv2", 2) // an MV: two entries
	commit("s1", "c3", 1)
	commit("s2", "d1", 1)
	if got := callsOf(t, s, "s1", sizes); !slices.Equal(got, []string{"c1", "mv2", "c3"}) {
		t.Fatalf("s1 calls %v", got)
	}
	// s1 holds 4 entries, its bound. One more evicts c1 only.
	commit("s1", "c4", 1)
	if got := callsOf(t, s, "s1", sizes); !slices.Equal(got, []string{"mv2", "c3", "c4"}) {
		t.Errorf("after c4: s1 calls %v, want c1 evicted", got)
	}
	// One more entry: mv2 is the oldest; it goes whole, both entries.
	commit("s1", "c5", 1)
	if got := callsOf(t, s, "s1", sizes); !slices.Equal(got, []string{"c3", "c4", "c5"}) {
		t.Errorf("after c5: s1 calls %v, want mv2 evicted whole", got)
	}
	if got := callsOf(t, s, "s2", sizes); !slices.Equal(got, []string{"d1"}) {
		t.Errorf("s2 lost entries to s1's bound: %v", got)
	}
	st := s.Stats()
	if st.Entries != 4 || st.Calls != 4 || st.EvictedCalls != 2 ||
		st.Sessions["s1"].Entries != 3 || st.Sessions["s2"].Entries != 1 {
		t.Errorf("stats %+v", st)
	}
}

// The store-wide bound evicts the globally oldest calls, across sessions.
func TestEvictionStoreWide(t *testing.T) {
	ws := t.TempDir()
	s, _ := openTest(t, smallLimits())
	for i := range 7 {
		session := fmt.Sprintf("s%d", i%3)
		mutate(t, s, session, fmt.Sprintf("c%d", i), "write", create(filepath.Join(ws, fmt.Sprint(i)), "f", "x\n"))
	}
	// 7 entries, bound 6: c0 (s0, the oldest) is gone.
	var kept []string
	for _, session := range []string{"s0", "s1", "s2"} {
		entries, _ := s.List(session, "")
		for _, e := range entries {
			kept = append(kept, e.ToolCallID)
		}
	}
	slices.Sort(kept)
	if want := []string{"c1", "c2", "c3", "c4", "c5", "c6"}; !slices.Equal(kept, want) {
		t.Errorf("kept %v, want %v", kept, want)
	}
	if st := s.Stats(); st.Entries != 6 || st.Sessions["s0"].Entries != 2 {
		t.Errorf("stats %+v", st)
	}
}

// The byte bounds count the before bytes (and diffs): a session that keeps
// rewriting a large file keeps only as many versions as fit.
func TestEvictionByBytes(t *testing.T) {
	ws := t.TempDir()
	lim := config.DefaultLimits()
	lim.MaxReviewBytesPerSession = 10 << 10
	lim.MaxReviewBytes = 1 << 20
	s, _ := openTest(t, lim)
	p := filepath.Join(ws, "big.bin")
	content := func(i int) string { return fmt.Sprintf("%d\x00%s", i, make([]byte, 3<<10)) }
	writeFile(t, p, content(0), 0o644)
	for i := 1; i <= 5; i++ {
		mutate(t, s, "s1", fmt.Sprintf("c%d", i), "write", modify(t, p, "big.bin", content(i)))
		if st := s.Stats(); st.Sessions["s1"].Bytes > lim.MaxReviewBytesPerSession {
			t.Fatalf("after c%d: %d bytes kept, bound %d", i, st.Sessions["s1"].Bytes, lim.MaxReviewBytesPerSession)
		}
	}
	entries, _ := s.List("s1", "")
	if len(entries) != 3 || entries[0].ToolCallID != "c3" {
		t.Errorf("kept %d entries starting at %s, want c3..c5", len(entries), entries[0].ToolCallID)
	}
}

// A call whose rollback is in flight is not evicted: finishing that
// rollback after a crash needs its before bytes.
func TestEvictionSkipsCallBeingRolledBack(t *testing.T) {
	ws := t.TempDir()
	lim := smallLimits()
	lim.MaxReviewEntriesPerSession = 2
	s, _ := openTest(t, lim)
	mutate(t, s, "s1", "c1", "write", create(filepath.Join(ws, "1"), "1", "x"))
	mutate(t, s, "s1", "c2", "write", create(filepath.Join(ws, "2"), "2", "x"))
	rt, err := s.BeginRestore("s1", "c1")
	if err != nil {
		t.Fatal(err)
	}
	mutate(t, s, "s1", "c3", "write", create(filepath.Join(ws, "3"), "3", "x"))
	sizes := map[string]int{"c1": 1, "c2": 1, "c3": 1, "c4": 1}
	if got := callsOf(t, s, "s1", sizes); !slices.Equal(got, []string{"c1", "c3"}) {
		t.Errorf("calls %v, want c1 (busy) kept and c2 evicted", got)
	}
	rt.Abort()
	mutate(t, s, "s1", "c4", "write", create(filepath.Join(ws, "4"), "4", "x"))
	if got := callsOf(t, s, "s1", sizes); !slices.Equal(got, []string{"c3", "c4"}) {
		t.Errorf("calls %v, want c1 evicted once released", got)
	}
}

// Many sessions at once: run under -race; the totals must add up.
func TestConcurrentSessions(t *testing.T) {
	ws := t.TempDir()
	s, _ := openTest(t, config.DefaultLimits())
	const sessions, calls = 8, 6
	var wg sync.WaitGroup
	for i := range sessions {
		wg.Go(func() {
			session := fmt.Sprintf("s%d", i)
			for j := range calls {
				id := fmt.Sprintf("c%d", j)
				c := create(filepath.Join(ws, session, id), id, "x\n")
				txn, err := s.begin(session, id, "write", []plannedChange{c})
				if err != nil {
					t.Error(err)
					return
				}
				apply(t, c)
				if _, err := txn.commit(nil); err != nil {
					t.Error(err)
				}
				if _, err := s.List(session, ""); err != nil {
					t.Error(err)
				}
				s.Stats()
			}
		})
	}
	wg.Wait()
	st := s.Stats()
	if st.Entries != sessions*calls || len(st.Sessions) != sessions || st.PendingIntents != 0 {
		t.Errorf("stats %+v", st)
	}
	for i := range sessions {
		entries, _ := s.List(fmt.Sprintf("s%d", i), "")
		if len(entries) != calls {
			t.Errorf("s%d has %d entries", i, len(entries))
		}
	}
}
