package review

import (
	"fmt"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/hostd-dev/hostd/config"
)

// IndexBytes tracks the heap the index really holds: filled with 4,000
// one-entry calls, the estimate is within a factor of two of the growth
// of the live heap, and it falls back when calls are evicted.
func TestIndexBytesFollowsTheLiveHeap(t *testing.T) {
	lim := config.DefaultLimits()
	lim.MaxReviewEntries = 4000
	dir := t.TempDir()
	s, err := open(dir, lim, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := s.IndexBytes(); got != 0 {
		t.Fatalf("empty index: %d bytes", got)
	}
	fill := func(from, n int) {
		for i := from; i < from+n; i++ {
			path := filepath.Join(dir, "ws", fmt.Sprintf("pkg%d", i%50), fmt.Sprintf("file_%05d.go", i))
			c := create(path, fmt.Sprintf("pkg%d/file_%05d.go", i%50, i), "package x\n")
			txn, err := s.begin(fmt.Sprintf("s-%024d", i%8), fmt.Sprintf("call_%08d", i), "write", []plannedChange{c})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := txn.commit(map[string][]byte{path: c.After}); err != nil {
				t.Fatal(err)
			}
		}
	}
	before := liveHeap()
	fill(0, 4000)
	grown := liveHeap() - before
	est := s.IndexBytes()
	t.Logf("4000 entries: estimate %d bytes, live heap grew %d bytes", est, grown)
	if est < grown/2 || est > grown*2 {
		t.Errorf("estimate %d bytes, live heap grew %d: not within a factor of two", est, grown)
	}
	fill(4000, 2000) // evicts the 2000 oldest
	if got := s.IndexBytes(); got < est*9/10 || got > est*11/10 {
		t.Errorf("after eviction back to 4000 entries: %d bytes, want about %d", got, est)
	}
}

func liveHeap() int64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}
