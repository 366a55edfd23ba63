package blocks

import (
	"context"
	"fmt"
	"slices"
	"testing"
)

// treeModel is the cache's reference model: which versions are cached,
// in which order they were used and made, what is lent, and what is
// counted, with none of the trees.
type treeModel struct {
	max     int64
	bytes   int64
	lru     []*modelEntry            // most recently used first
	byPath  map[string][]*modelEntry // newest first
	entries []*modelEntry            // every entry ever made, for leases
}

type modelEntry struct {
	path, text string
	cost       int64
	lent       int
	cached     bool
}

// modelLease is a lease in the model: an entry, or nil for a tree no
// cache holds.
type modelLease struct{ e *modelEntry }

func (m *treeModel) touch(e *modelEntry) {
	m.lru = slices.DeleteFunc(m.lru, func(x *modelEntry) bool { return x == e })
	m.lru = append([]*modelEntry{e}, m.lru...)
}

func (m *treeModel) evict(e *modelEntry) {
	if !e.cached {
		return
	}
	e.cached = false
	m.lru = slices.DeleteFunc(m.lru, func(x *modelEntry) bool { return x == e })
	m.byPath[e.path] = slices.DeleteFunc(m.byPath[e.path], func(x *modelEntry) bool { return x == e })
	if e.lent == 0 {
		m.bytes -= e.cost
	}
}

func (m *treeModel) release(l modelLease) {
	if l.e == nil {
		return
	}
	l.e.lent--
	if !l.e.cached && l.e.lent == 0 {
		m.bytes -= l.e.cost
	}
}

// get is Trees.get with keep and no base.
func (m *treeModel) get(path, text string) modelLease {
	for _, e := range m.byPath[path] {
		if e.text == text {
			e.lent++
			m.touch(e)
			return modelLease{e}
		}
	}
	var from modelLease
	if es := m.byPath[path]; len(es) > 0 {
		es[0].lent++
		m.touch(es[0])
		from = modelLease{es[0]}
	}
	defer m.release(from)
	cost := treeCost(text)
	if cost > m.max {
		return modelLease{}
	}
	e := &modelEntry{path: path, text: text, cost: cost, cached: true}
	m.entries = append(m.entries, e)
	m.byPath[path] = append([]*modelEntry{e}, m.byPath[path]...)
	m.lru = append([]*modelEntry{e}, m.lru...)
	m.bytes += cost
	if es := m.byPath[path]; len(es) > maxTreeVersionsPerPath {
		for _, x := range slices.Clone(es[maxTreeVersionsPerPath:]) {
			m.evict(x)
		}
	}
	for m.bytes > m.max && m.lru[len(m.lru)-1] != e {
		m.evict(m.lru[len(m.lru)-1])
	}
	e.lent++
	return modelLease{e}
}

// FuzzTrees runs the cache and its model through one sequence of
// requests, releases and closes, read from the input two bytes an
// operation, and compares what they cache, in which order, and what they
// count after every step.
func FuzzTrees(f *testing.F) {
	f.Add([]byte{0, 1, 0, 2, 0, 3, 1, 0, 0, 1, 2, 0})
	f.Add([]byte{0, 0, 0, 0x10, 0, 0x20, 0, 0x30, 1, 1, 0, 0x40, 1, 0, 1, 2})
	f.Add([]byte{0, 5, 0, 6, 0, 7, 0, 8, 0, 9, 2, 0, 1, 3, 1, 1, 0, 5})
	lang := languages["typescript"]
	texts := make([]string, 8)
	for i := range texts {
		// Versions of different sizes, so costs differ.
		texts[i] = fmt.Sprintf("let a = %d;\n", i) + tsFunctions(1+i%3, i)
	}
	f.Fuzz(func(t *testing.T, ops []byte) {
		bound := 3 * treeCost(texts[0])
		trees, err := NewTrees(bound)
		if err != nil {
			t.Fatal(err)
		}
		defer trees.Close()
		m := &treeModel{max: bound, byPath: map[string][]*modelEntry{}}
		var leases []*lease
		var mleases []modelLease
		for i := 0; i+1 < len(ops) && i < 200; i += 2 {
			op, arg := ops[i]%3, int(ops[i+1])
			switch op {
			case 0: // a request: path arg>>3&3, version arg&7
				path, text := fmt.Sprintf("p%d.ts", arg>>3&3), texts[arg&7]
				l, why, reason := trees.get(context.Background(), request{path: path, lang: lang, text: text, keep: true, backstop: ParseTimeout})
				if l == nil {
					t.Fatalf("parse failed: %v %s", why, reason)
				}
				leases, mleases = append(leases, l), append(mleases, m.get(path, text))
			case 1: // release the lease arg names
				if len(leases) == 0 {
					continue
				}
				k := arg % len(leases)
				leases[k].release()
				m.release(mleases[k])
				leases, mleases = slices.Delete(leases, k, k+1), slices.Delete(mleases, k, k+1)
			case 2:
				trees.Close()
				for _, e := range slices.Clone(m.lru) {
					m.evict(e)
				}
			}
			st := trees.Stats()
			if st.Bytes != m.bytes || st.Cached != len(m.lru) {
				t.Fatalf("op %d: the cache counts %d bytes in %d trees, the model %d in %d", i/2, st.Bytes, st.Cached, m.bytes, len(m.lru))
			}
			trees.mu.Lock()
			k := 0
			for el := trees.lru.Front(); el != nil; el = el.Next() {
				e := el.Value.(*entry)
				if k >= len(m.lru) || e.path != m.lru[k].path || e.text != m.lru[k].text || e.lent != m.lru[k].lent {
					trees.mu.Unlock()
					t.Fatalf("op %d: the cache's trees in use order differ from the model's at %d", i/2, k)
				}
				k++
			}
			trees.mu.Unlock()
		}
		for k := range leases {
			leases[k].release()
			m.release(mleases[k])
		}
		if st := trees.Stats(); st.Bytes != m.bytes {
			t.Fatalf("after every release the cache counts %d bytes, the model %d", st.Bytes, m.bytes)
		}
	})
}
