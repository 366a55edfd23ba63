package session

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/workspace"
)

// snap is what a producer that kept the whole text records.
func snap(text string, seen LineSet) Snapshot {
	return Snapshot{
		Digest:  workspace.Sum(text),
		Text:    text,
		HasText: true,
		Lines:   len(workspace.Lines(text)),
		Bytes:   int64(len(text)),
		Seen:    seen,
	}
}

// untexted is what a producer that streamed a large file records.
func untexted(text string, seen LineSet) Snapshot {
	s := snap(text, seen)
	s.Text, s.HasText = "", false
	return s
}

func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

// collidingTexts finds two distinct texts with the same 16-bit tag; by the
// birthday bound a few hundred candidates suffice.
func collidingTexts(t testing.TB) (string, string) {
	t.Helper()
	seen := map[string]string{}
	for i := 0; i < 1<<20; i++ {
		s := fmt.Sprintf("candidate %d\n", i)
		tag := workspace.Sum(s).Tag()
		if o, ok := seen[tag]; ok {
			return o, s
		}
		seen[tag] = s
	}
	t.Fatal("no collision found")
	return "", ""
}

func versions(t *testing.T, s *Store, path string) []Version {
	t.Helper()
	for _, pv := range s.Dump() {
		if pv.Path == path {
			return pv.Versions
		}
	}
	return nil
}

func paths(s *Store) []string {
	var out []string
	for _, pv := range s.Dump() {
		out = append(out, pv.Path)
	}
	return out
}

// §4.2: reading lines 1-2000 and then 1800-3600 of an unchanged file
// produces one tag whose seen lines cover 1-3600.
func TestReadFusionAcrossOverlappingWindows(t *testing.T) {
	s := NewStore(config.DefaultLimits())
	text := numbered(5000)
	t1 := s.Record("/w/a", snap(text, Span(1, 2000)))
	t2 := s.Record("/w/a", snap(text, Span(1800, 3600)))
	if t1 != t2 || t1 != workspace.Sum(text).Tag() {
		t.Fatalf("tags %s, %s; want one tag %s", t1, t2, workspace.Sum(text).Tag())
	}
	vs := versions(t, s, "/w/a")
	if len(vs) != 1 {
		t.Fatalf("%d versions, want 1", len(vs))
	}
	if got := vs[0].Seen.Ranges(); !slices.Equal(got, []Range{{1, 3600}}) {
		t.Errorf("seen = %v, want [[1 3600]]", got)
	}
}

func TestFusionPromotesAnOlderVersion(t *testing.T) {
	s := NewStore(config.DefaultLimits())
	s.Record("/w/a", snap("one\n", Span(1, 1)))
	s.Record("/w/a", snap("two\n", Span(1, 1)))
	s.Record("/w/a", snap("one\n", Empty()))
	vs := versions(t, s, "/w/a")
	if len(vs) != 2 || vs[0].Text != "one\n" || vs[1].Text != "two\n" {
		t.Fatalf("versions = %+v, want one (promoted) then two", vs)
	}
	if !slices.Equal(vs[0].Seen.Ranges(), []Range{{1, 1}}) {
		t.Errorf("promoted version lost its seen lines: %v", vs[0].Seen.Ranges())
	}
}

// §3.3 and peer lesson 1: two texts sharing a tag are two snapshots, and
// the lines seen of one are never attached to the other.
func TestTagCollisionKeepsTwoSnapshots(t *testing.T) {
	s := NewStore(config.DefaultLimits())
	x, y := collidingTexts(t)
	tag := s.Record("/w/a", snap(x, Span(1, 1)))
	if s.Record("/w/a", snap(y, Empty())) != tag {
		t.Fatal("colliding texts minted different tags")
	}
	if got := s.Tagged("/w/a", tag); len(got) != 2 || got[0].Text != y || got[1].Text != x {
		t.Fatalf("Tagged = %d versions, want y then x", len(got))
	}
	v, ok := s.Match("/w/a", tag, y, workspace.Sum(y))
	if !ok || v.Text != y || v.Seen.Len() != 0 || !v.Seen.Known() {
		t.Errorf("Match(y) = %+v, %v; want y's version with nothing seen", v, ok)
	}
	v, ok = s.Match("/w/a", tag, x, workspace.Sum(x))
	if !ok || v.Text != x || !v.Seen.Contains(1) {
		t.Errorf("Match(x) = %+v, %v; want x's version with line 1 seen", v, ok)
	}
	if _, ok := s.Match("/w/a", tag, "something else\n", workspace.Sum("something else\n")); ok {
		t.Error("a live text matching neither snapshot matched")
	}
}

// §4.3: an empty seen set rejects every anchor; an unknown one skips the
// gate. The store must keep them apart, including through fusion.
func TestSeenEmptyIsNotUnknown(t *testing.T) {
	s := NewStore(config.DefaultLimits())
	s.Record("/w/grep", snap("a\nb\n", Empty()))
	s.Record("/w/ext", snap("a\nb\n", Unknown()))
	if v := versions(t, s, "/w/grep")[0]; !v.Seen.Known() || v.Seen.Len() != 0 {
		t.Errorf("grep-style record: seen = %+v, want known and empty", v.Seen)
	}
	if v := versions(t, s, "/w/ext")[0]; v.Seen.Known() {
		t.Errorf("unknown record became known: %+v", v.Seen)
	}
	s.Record("/w/grep", snap("a\nb\n", Empty()))
	if v := versions(t, s, "/w/grep")[0]; !v.Seen.Known() {
		t.Error("fusing two empty sets produced unknown")
	}
}

func TestPathsAreLRU(t *testing.T) {
	lim := config.DefaultLimits()
	s := NewStore(lim)
	for i := range lim.MaxPathsPerSession {
		s.Record(fmt.Sprintf("/w/%02d", i), snap(fmt.Sprintf("%d\n", i), Span(1, 1)))
	}
	// A lookup refreshes recency: /w/00 is now hot and /w/01 the coldest.
	s.Tagged("/w/00", "0000")
	s.Record("/w/new", snap("new\n", Span(1, 1)))
	got := paths(s)
	if len(got) != lim.MaxPathsPerSession {
		t.Fatalf("%d paths, want %d", len(got), lim.MaxPathsPerSession)
	}
	if slices.Contains(got, "/w/01") {
		t.Error("the coldest path /w/01 survived")
	}
	if !slices.Contains(got, "/w/00") || got[len(got)-1] != "/w/new" || got[len(got)-2] != "/w/00" {
		t.Errorf("order (coldest first) ends %v, want .../w/00 /w/new", got[len(got)-3:])
	}
}

// §4.4 versions per path: oldest dropped first; edit-contract §4.5: the ledger
// still knows the aged-out tag and the digest it was minted for.
func TestVersionsPerPathAndLedger(t *testing.T) {
	lim := config.DefaultLimits()
	s := NewStore(lim)
	texts := []string{"v0\n", "v1\n", "v2\n", "v3\n", "v4\n"}
	for _, x := range texts {
		s.Record("/w/a", snap(x, Span(1, 1)))
	}
	vs := versions(t, s, "/w/a")
	if len(vs) != lim.MaxVersionsPerPath {
		t.Fatalf("%d versions, want %d", len(vs), lim.MaxVersionsPerPath)
	}
	for i, v := range vs {
		if want := texts[len(texts)-1-i]; v.Text != want {
			t.Errorf("version %d = %q, want %q (newest first)", i, v.Text, want)
		}
	}
	old := workspace.Sum(texts[0])
	if _, ok := s.Match("/w/a", old.Tag(), texts[0], old); ok {
		t.Error("the dropped version still matches")
	}
	known, digest := s.Minted("/w/a", old.Tag(), old, len(workspace.Lines(texts[0])))
	if !known || !digest {
		t.Errorf("ledger forgot the aged-out tag: known=%v digest=%v", known, digest)
	}
	known, digest = s.Minted("/w/a", old.Tag(), workspace.Sum("other\n"), 1)
	if !known || digest {
		t.Errorf("ledger: other content under a minted tag: known=%v digest=%v, want true false", known, digest)
	}
	if known, _ := s.Minted("/w/b", old.Tag(), old, len(workspace.Lines(texts[0]))); known {
		t.Error("a tag minted for /w/a is known for /w/b")
	}
}

func TestLedgerIsBounded(t *testing.T) {
	lim := config.DefaultLimits()
	lim.MaxLedgerEntries = 3
	s := NewStore(lim)
	for i := range 4 {
		s.Record("/w/a", snap(fmt.Sprintf("t%d\n", i), Empty()))
	}
	if st := s.Stats(); st.LedgerEntries != 3 {
		t.Errorf("ledger holds %d entries, want 3", st.LedgerEntries)
	}
	first := workspace.Sum("t0\n")
	if known, _ := s.Minted("/w/a", first.Tag(), first, 1); known {
		t.Error("the coldest ledger entry survived")
	}
	last := workspace.Sum("t3\n")
	if known, ok := s.Minted("/w/a", last.Tag(), last, 1); !known || !ok {
		t.Error("the newest ledger entry is gone")
	}
}

const mib = 1 << 20

// bigText is n bytes of text whose content depends on seed.
func bigText(n int, seed int) string {
	line := fmt.Sprintf("%07d %s\n", seed, strings.Repeat("x", 55))
	return strings.Repeat(line, n/len(line)) + strings.Repeat("y", n%len(line))
}

// §4.4 retained text per session: LRU path eviction until under 8 MiB.
func TestRetainedBytesEvictColdestPaths(t *testing.T) {
	lim := config.DefaultLimits()
	s := NewStore(lim)
	for i := range 4 {
		s.Record(fmt.Sprintf("/w/%d", i), snap(bigText(2*mib, i), Empty()))
	}
	if got := s.Stats().RetainedBytes; got != 8*mib {
		t.Fatalf("retained %d, want exactly 8 MiB (at the bound, nothing evicted)", got)
	}
	s.Tagged("/w/0", "0000") // /w/0 becomes hot; /w/1 is now the coldest
	s.Record("/w/4", snap(bigText(2*mib, 4), Empty()))
	if got := paths(s); !slices.Equal(got, []string{"/w/2", "/w/3", "/w/0", "/w/4"}) {
		t.Errorf("paths (coldest first) = %v, want /w/1 evicted", got)
	}
	if got := s.Stats().RetainedBytes; got > lim.MaxRetainedBytesPerSession {
		t.Errorf("retained %d over the bound", got)
	}
}

// When the path just recorded alone holds too much, its own oldest
// versions go; its newest stays.
func TestRetainedBytesDropOldVersionsOfTheHotPath(t *testing.T) {
	lim := config.DefaultLimits()
	lim.MaxRetainedBytesPerSession = 100
	lim.MaxRetainedFileBytes = 60
	s := NewStore(lim)
	s.Record("/w/a", snap(strings.Repeat("a", 50), Empty()))
	s.Record("/w/a", snap(strings.Repeat("b", 50), Empty()))
	s.Record("/w/a", snap(strings.Repeat("c", 50), Empty()))
	vs := versions(t, s, "/w/a")
	if len(vs) != 2 || vs[0].Text[0] != 'c' || vs[1].Text[0] != 'b' {
		t.Fatalf("versions = %d, want c then b", len(vs))
	}
	if got := s.Stats().RetainedBytes; got != 100 {
		t.Errorf("retained %d, want 100", got)
	}
}

// §4.4 single-file retention: a file just over 2 MiB is hashed and tagged
// but its text is not kept; its identity is then the full digest.
func TestJustOverTwoMiBIsTaggedNotRetained(t *testing.T) {
	lim := config.DefaultLimits()
	s := NewStore(lim)
	at := bigText(int(lim.MaxRetainedFileBytes), 1)
	over := bigText(int(lim.MaxRetainedFileBytes)+1, 2)
	s.Record("/w/at", snap(at, Span(1, 3)))
	tag := s.Record("/w/over", snap(over, Span(1, 3)))
	if tag != workspace.Sum(over).Tag() {
		t.Errorf("tag %s, want %s", tag, workspace.Sum(over).Tag())
	}
	if v := versions(t, s, "/w/at")[0]; !v.Retained || v.Text != at {
		t.Error("a file of exactly the bound was not retained")
	}
	v := versions(t, s, "/w/over")[0]
	if v.Retained || v.Text != "" {
		t.Errorf("over-bound file retained: %v, %d bytes", v.Retained, len(v.Text))
	}
	if got := s.Stats().RetainedBytes; got != int64(len(at)) {
		t.Errorf("retained %d bytes, want only the at-bound file's %d", got, len(at))
	}
	// The version gate still works by full digest.
	m, ok := s.Match("/w/over", tag, over, workspace.Sum(over))
	if !ok || !m.Seen.Contains(3) {
		t.Errorf("Match of the unretained version = %v", ok)
	}
	if _, ok := s.Match("/w/over", tag, over+"z", workspace.Sum(over+"z")); ok {
		t.Error("a different live text matched the unretained version")
	}
}

// One content must be one version whether or not a producer could keep its
// text: a read that streamed it and a grep that held it fuse, and the text
// is kept once it is offered.
func TestRetentionDoesNotSplitOneContent(t *testing.T) {
	s := NewStore(config.DefaultLimits())
	text := numbered(10)
	s.Record("/w/a", untexted(text, Span(1, 5)))
	s.Record("/w/a", snap(text, Span(8, 8)))
	vs := versions(t, s, "/w/a")
	if len(vs) != 1 {
		t.Fatalf("%d versions for one content, want 1", len(vs))
	}
	if !vs[0].Retained || vs[0].Text != text {
		t.Error("the fused version did not take the offered text")
	}
	if got := vs[0].Seen.Ranges(); !slices.Equal(got, []Range{{1, 5}, {8, 8}}) {
		t.Errorf("seen = %v", got)
	}
	if got := s.Stats().RetainedBytes; got != int64(len(text)) {
		t.Errorf("retained %d, want %d", got, len(text))
	}
	// And the other way round: a later streamed read fuses into it.
	s.Record("/w/a", untexted(text, Span(9, 10)))
	if vs := versions(t, s, "/w/a"); len(vs) != 1 || !vs[0].Retained || !vs[0].Seen.Contains(10) {
		t.Errorf("streamed re-read split or dropped text: %+v", vs)
	}
}

func TestMarkSeen(t *testing.T) {
	s := NewStore(config.DefaultLimits())
	text := numbered(50)
	s.Record("/w/a", snap(text, Span(1, 10)))
	v, ok := s.Match("/w/a", workspace.Sum(text).Tag(), text, workspace.Sum(text))
	if !ok {
		t.Fatal("no match")
	}
	if !s.MarkSeen("/w/a", v, Span(40, 42)) {
		t.Fatal("MarkSeen found no version")
	}
	if got := versions(t, s, "/w/a")[0].Seen.Ranges(); !slices.Equal(got, []Range{{1, 10}, {40, 42}}) {
		t.Errorf("seen = %v", got)
	}
	s.Invalidate("/w/a", "test")
	if s.MarkSeen("/w/a", v, Span(1, 1)) {
		t.Error("MarkSeen succeeded on an invalidated path")
	}
}

// After a rollback the session must not honour any tag minted before it
// (edit-contract §13.1).
func TestInvalidateForgetsVersionsAndLedger(t *testing.T) {
	s := NewStore(config.DefaultLimits())
	s.Record("/w/a", snap("a\n", Span(1, 1)))
	s.Record("/w/b", snap("b\n", Span(1, 1)))
	s.Invalidate("/w/a", "test")
	d := workspace.Sum("a\n")
	if known, _ := s.Minted("/w/a", d.Tag(), d, 1); known {
		t.Error("ledger still knows an invalidated path's tag")
	}
	if got := paths(s); !slices.Equal(got, []string{"/w/b"}) {
		t.Errorf("paths = %v", got)
	}
	db := workspace.Sum("b\n")
	if known, _ := s.Minted("/w/b", db.Tag(), db, 1); !known {
		t.Error("Invalidate of /w/a touched /w/b")
	}
	if st := s.Stats(); st.RetainedBytes != 2 || st.Snapshots != 1 {
		t.Errorf("stats = %+v", st)
	}
}

// The store is shared by every concurrent call of a session: fused seen
// lines must never be lost, and the race detector must stay quiet.
func TestConcurrentRecordsKeepEverySeenLine(t *testing.T) {
	s := NewStore(config.DefaultLimits())
	text := numbered(200)
	d := workspace.Sum(text)
	var wg sync.WaitGroup
	for i := 1; i <= 200; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.Record("/w/a", snap(text, Span(i, i)))
			s.Match("/w/a", d.Tag(), text, d)
			s.Record(fmt.Sprintf("/w/other%d", i%5), snap(text, Empty()))
			s.Stats()
			s.Dump()
		}()
	}
	wg.Wait()
	if got := versions(t, s, "/w/a")[0].Seen.Ranges(); !slices.Equal(got, []Range{{1, 200}}) {
		t.Errorf("seen = %v, want [[1 200]]", got)
	}
}
