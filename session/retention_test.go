package session

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/workspace"
)

// retentionLimits are small bounds for the daemon-wide tests: each session
// may hold 4 KiB, and all of them together 10 KiB.
func retentionLimits() config.Limits {
	lim := config.DefaultLimits()
	lim.MaxRetainedBytesPerSession = 4 << 10
	lim.MaxRetainedFileBytes = 2 << 10
	lim.MaxRetainedBytes = 10 << 10
	return lim
}

func newTestManager(t testing.TB, lim config.Limits, n int) (*Manager, []*Session) {
	t.Helper()
	m := NewManager(lim)
	ws, err := workspace.New(t.TempDir(), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []*Session
	for i := range n {
		s, err := m.Create(fmt.Sprintf("s%d", i), ws)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return m, out
}

// filler is a distinct text of exactly n bytes.
func filler(seed string, n int) string {
	line := seed + " " + strings.Repeat("x", 62-len(seed)) + "\n"
	return strings.Repeat(line, n/len(line)) + strings.Repeat("y", n%len(line))
}

// retainedSum is the retained text summed over the sessions' stores, the
// figure session.list reports.
func retainedSum(sessions []*Session) int64 {
	var n int64
	for _, s := range sessions {
		n += s.State().Store.Stats().RetainedBytes
	}
	return n
}

// The finding: 256 sessions each inside their own 8 MiB bound held 2 GB
// together. Scaled down: 16 sessions each filling their 4 KiB must
// together stay within the 10 KiB daemon-wide bound after every record.
func TestRetainedTextIsBoundedAcrossSessions(t *testing.T) {
	lim := retentionLimits()
	m, sessions := newTestManager(t, lim, 16)
	for round := range 4 {
		for i, s := range sessions {
			text := filler(fmt.Sprintf("s%d r%d", i, round), 1<<10)
			s.State().Store.Record(fmt.Sprintf("/w/f%d", round), snap(text, Span(1, 1)))
			sum := retainedSum(sessions)
			if sum > lim.MaxRetainedBytes {
				t.Fatalf("after session %d round %d: %d bytes retained across sessions, over the daemon-wide %d", i, round, sum, lim.MaxRetainedBytes)
			}
			if held := m.HeldBytes(); held != sum {
				t.Fatalf("the daemon-wide count says %d, the stores %d", held, sum)
			}
		}
	}
}

// Retention reports the limit, what is held and what was evicted.
func TestRetentionStats(t *testing.T) {
	lim := retentionLimits()
	m, ss := newTestManager(t, lim, 12)
	for i, s := range ss {
		s.State().Store.Record("/w/a", snap(filler(fmt.Sprint(i), 1<<10), Empty()))
	}
	want := RetentionStats{LimitBytes: 10 << 10, RetainedBytes: 10 << 10, Texts: 10, EvictedTexts: 2, EvictedBytes: 2 << 10}
	if got := m.Retention(); got != want {
		t.Errorf("Retention = %+v, want %+v", got, want)
	}
}

// The text evicted is the coldest daemon-wide, by last record or lookup,
// whichever session holds it.
func TestRetentionEvictsTheGloballyColdest(t *testing.T) {
	lim := retentionLimits()
	lim.MaxRetainedBytes = 3 << 10
	_, ss := newTestManager(t, lim, 3)
	a, b, c := ss[0].State().Store, ss[1].State().Store, ss[2].State().Store
	ta, tb, tc := filler("a", 1<<10), filler("b", 1<<10), filler("c", 1<<10)
	tagA := a.Record("/w/a", snap(ta, Span(1, 1)))
	b.Record("/w/b", snap(tb, Span(1, 1)))
	c.Record("/w/c", snap(tc, Span(1, 1)))
	// A lookup makes a's text hot again, so b's is now the coldest.
	if _, ok := a.Match("/w/a", tagA, ta, workspace.Sum(ta)); !ok {
		t.Fatal("a's version did not match")
	}
	c.Record("/w/d", snap(filler("d", 1<<10), Span(1, 1)))
	for _, tc := range []struct {
		store    *Store
		path     string
		retained bool
	}{{a, "/w/a", true}, {b, "/w/b", false}, {c, "/w/c", true}, {c, "/w/d", true}} {
		vs := versions(t, tc.store, tc.path)
		if len(vs) != 1 || vs[0].Retained != tc.retained {
			t.Errorf("%s: versions %d, retained %v; want one version, retained %v", tc.path, len(vs), len(vs) == 1 && vs[0].Retained, tc.retained)
		}
	}
	if got := b.Stats().RetainedBytes; got != 0 {
		t.Errorf("b still counts %d retained bytes after its only text was evicted", got)
	}
}

// An evicted text leaves its version: the edit gate still matches the live
// text by digest and line count, the seen lines are kept, the ledger still
// knows the tag, and the next read of the same content retains it again.
func TestEvictedVersionValidatesByDigest(t *testing.T) {
	lim := retentionLimits()
	lim.MaxRetainedBytes = 2 << 10
	_, ss := newTestManager(t, lim, 2)
	a, b := ss[0].State().Store, ss[1].State().Store
	text := numbered(100)
	tag := a.Record("/w/a", snap(text, Span(10, 20)))
	b.Record("/w/b", snap(filler("b1", 1<<10), Empty()))
	b.Record("/w/c", snap(filler("b2", 1<<10), Empty()))
	if v := versions(t, a, "/w/a"); len(v) != 1 || v[0].Retained {
		t.Fatalf("a's text was not evicted: %d versions, retained %v", len(v), len(v) == 1 && v[0].Retained)
	}
	v, ok := a.Match("/w/a", tag, text, workspace.Sum(text))
	if !ok || v.Retained || !v.Seen.Contains(15) || v.Seen.Contains(21) {
		t.Fatalf("Match after eviction = %v, retained %v, seen %v; want a digest match with lines 10-20 seen", ok, v.Retained, v.Seen.Ranges())
	}
	if _, ok := a.Match("/w/a", tag, text+"\n", workspace.Sum(text+"\n")); ok {
		t.Error("a text with another line count matched the evicted version")
	}
	if known, match := a.Minted("/w/a", tag, workspace.Sum(text), 100); !known || !match {
		t.Errorf("ledger after eviction: known %v, match %v", known, match)
	}
	a.Record("/w/a", snap(text, Span(30, 30)))
	vs := versions(t, a, "/w/a")
	if len(vs) != 1 || !vs[0].Retained || vs[0].Text != text || !vs[0].Seen.Contains(15) || !vs[0].Seen.Contains(30) {
		t.Errorf("re-read: %d versions, retained %v; want one retained version with 10-20 and 30 seen", len(vs), len(vs) == 1 && vs[0].Retained)
	}
}

// Deleting a session or switching its workspace takes its text out of the
// daemon-wide count at once, and a call still recording into the dropped
// store retains nothing more.
func TestDroppedStoresLeaveTheCount(t *testing.T) {
	lim := retentionLimits()
	m, ss := newTestManager(t, lim, 2)
	old := ss[0].State().Store
	old.Record("/w/a", snap(filler("a", 1<<10), Empty()))
	ss[1].State().Store.Record("/w/b", snap(filler("b", 1<<10), Empty()))
	ws, err := workspace.New(t.TempDir(), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.SetWorkspace("s0", ws); err != nil {
		t.Fatal(err)
	}
	old.Record("/w/late", snap(filler("late", 1<<10), Empty()))
	if got := m.HeldBytes(); got != 1<<10 {
		t.Errorf("after the switch %d bytes retained, want only s1's %d", got, 1<<10)
	}
	if got := old.Stats().RetainedBytes; got != 0 {
		t.Errorf("the dropped store still counts %d bytes", got)
	}
	if err := m.Delete("s1"); err != nil {
		t.Fatal(err)
	}
	if got := m.HeldBytes(); got != 0 {
		t.Errorf("after the delete %d bytes retained, want none", got)
	}
}

// stressSize is the CI size of a stress test, or the long one when
// HOSTD_STRESS=long.
func stressSize(ci, long int) int {
	if os.Getenv("HOSTD_STRESS") == "long" {
		return long
	}
	return ci
}

// Many goroutines record and look up in many sessions while sessions are
// deleted and re-created: the daemon-wide count never exceeds the limit,
// and once quiet it equals the stores' own counts and the text they show.
// Run it under -race.
func TestRetentionStress(t *testing.T) {
	lim := retentionLimits()
	lim.MaxRetainedBytes = 24 << 10
	const sessions = 32
	m, _ := newTestManager(t, lim, sessions)
	ws, err := workspace.New(t.TempDir(), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	texts := make([]string, 64)
	for i := range texts {
		texts[i] = filler(fmt.Sprintf("t%d", i), 256+i*24)
	}
	workers, ops := 8, stressSize(2000, 200000)
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			for range ops {
				id := fmt.Sprintf("s%d", rng.IntN(sessions))
				s, err := m.Get(id)
				if err != nil {
					if _, err := m.Create(id, ws); err != nil {
						errs <- err
						return
					}
					continue
				}
				store := s.State().Store
				text := texts[rng.IntN(len(texts))]
				path := fmt.Sprintf("/w/p%d", rng.IntN(8))
				switch k := rng.IntN(20); {
				case k < 12:
					store.Record(path, snap(text, Span(1, 1)))
				case k < 18:
					d := workspace.Sum(text)
					store.Match(path, d.Tag(), text, d)
				case k < 19:
					m.Delete(id)
				default:
					m.SetWorkspace(id, ws)
				}
				if got := m.HeldBytes(); got > lim.MaxRetainedBytes {
					errs <- fmt.Errorf("%d bytes retained daemon-wide, over %d", got, lim.MaxRetainedBytes)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	var stores, shown int64
	for _, info := range m.List() {
		s, err := m.Get(info.SessionID)
		if err != nil {
			t.Fatal(err)
		}
		st := s.State().Store
		stores += st.Stats().RetainedBytes
		for _, pv := range st.Dump() {
			for _, v := range pv.Versions {
				if v.Retained {
					shown += int64(len(v.Text))
				}
			}
		}
	}
	if got := m.HeldBytes(); got != stores || got != shown || got > lim.MaxRetainedBytes {
		t.Errorf("daemon-wide %d, stores %d, text shown %d, limit %d: want all equal and within the limit", got, stores, shown, lim.MaxRetainedBytes)
	}
}
