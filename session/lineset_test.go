package session

import (
	"encoding/json"
	"slices"
	"testing"
)

func TestLineSetUnknownIsNotEmpty(t *testing.T) {
	u, e := Unknown(), Empty()
	if u.Known() {
		t.Error("Unknown() is known")
	}
	if !e.Known() || e.Len() != 0 {
		t.Error("Empty() must be known and hold nothing")
	}
	for _, tt := range []struct {
		set  LineSet
		json string
	}{
		{Unknown(), "null"},
		{Empty(), "[]"},
		{Span(3, 2), "[]"},
		{Span(1, 3), "[[1,3]]"},
		{Span(1, 3).Add(5, 5), "[[1,3],[5,5]]"},
	} {
		got, err := json.Marshal(tt.set)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tt.json {
			t.Errorf("json = %s, want %s", got, tt.json)
		}
	}
}

func TestLineSetAdd(t *testing.T) {
	tests := []struct {
		name string
		set  LineSet
		want []Range
	}{
		{"single", Span(4, 4), []Range{{4, 4}}},
		{"adjacent ranges merge", Span(1, 3).Add(4, 6), []Range{{1, 6}}},
		{"overlap merges", Span(1, 5).Add(3, 9), []Range{{1, 9}}},
		{"gap stays", Span(1, 2).Add(4, 5), []Range{{1, 2}, {4, 5}}},
		{"bridge joins three", Span(1, 2).Add(8, 9).Add(5, 5).Add(3, 7), []Range{{1, 9}}},
		{"insert before", Span(10, 12).Add(1, 2), []Range{{1, 2}, {10, 12}}},
		{"contained adds nothing", Span(1, 10).Add(3, 4), []Range{{1, 10}}},
		{"reversed range is ignored", Span(1, 2).Add(9, 5), []Range{{1, 2}}},
		{"line numbers start at 1", Empty().Add(-3, 2), []Range{{1, 2}}},
		{"all below 1 is ignored", Empty().Add(-3, 0), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.set.Ranges(); !slices.Equal(got, tt.want) {
				t.Errorf("ranges = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestLineSetIsAValue(t *testing.T) {
	a := Span(1, 2)
	b := a.Add(3, 9)
	_ = a.Union(Span(20, 30))
	if !slices.Equal(a.Ranges(), []Range{{1, 2}}) {
		t.Errorf("Add or Union modified the receiver: %v", a.Ranges())
	}
	if !slices.Equal(b.Ranges(), []Range{{1, 9}}) {
		t.Errorf("b = %v", b.Ranges())
	}
}

func TestLineSetUnion(t *testing.T) {
	if Unknown().Union(Unknown()).Known() {
		t.Error("unknown ∪ unknown must stay unknown")
	}
	if got := Unknown().Union(Empty()); !got.Known() || got.Len() != 0 {
		t.Errorf("unknown ∪ empty = %v", got)
	}
	got := Span(1, 2000).Union(Span(1800, 3600))
	if !slices.Equal(got.Ranges(), []Range{{1, 3600}}) {
		t.Errorf("union of overlapping windows = %v", got.Ranges())
	}
}

// A million seen lines are one range, not a million entries.
func TestLineSetIsCompact(t *testing.T) {
	s := Empty()
	for i := 1; i <= 1_000_000; i += 1000 {
		s = s.Add(i, i+999)
	}
	if len(s.Ranges()) != 1 || s.Len() != 1_000_000 {
		t.Errorf("ranges = %d, len = %d", len(s.Ranges()), s.Len())
	}
	if !s.Contains(1) || !s.Contains(1_000_000) || s.Contains(1_000_001) || s.Contains(0) {
		t.Error("Contains is wrong at the edges")
	}
}

// Fusing two seen sets of many scattered lines happens under the store's
// lock: it must cost their length, not its square.
func TestLineSetUnionIsLinear(t *testing.T) {
	// every(from) is the set from, from+4, from+8, ... built by halves.
	var every func(from, n int) LineSet
	every = func(from, n int) LineSet {
		if n == 1 {
			return Span(from, from)
		}
		return every(from, n/2).Union(every(from+4*(n/2), n-n/2))
	}
	a, b := every(1, 100_000), every(3, 100_000)
	// One pass that allocates the result once: a union that inserted
	// range by range would allocate as the result grew.
	var u LineSet
	if allocs := testing.AllocsPerRun(3, func() { u = a.Union(b) }); allocs > 1 {
		t.Errorf("union of %d and %d ranges made %v allocations, want 1", len(a.Ranges()), len(b.Ranges()), allocs)
	}
	if len(u.Ranges()) != 200_000 || u.Len() != 200_000 {
		t.Errorf("union: %d ranges, %d lines", len(u.Ranges()), u.Len())
	}
}

// FuzzLineSet checks Add, Union, Contains and Len against a plain map.
func FuzzLineSet(f *testing.F) {
	f.Add([]byte{1, 3, 5, 9, 2, 4})
	f.Add([]byte{0, 0, 200, 100})
	f.Fuzz(func(t *testing.T, ops []byte) {
		var a, b LineSet = Empty(), Empty()
		ma, mb := map[int]bool{}, map[int]bool{}
		var added []Range // a's ranges as added, for Of
		for i := 0; i+1 < len(ops); i += 2 {
			from, to := int(ops[i])-8, int(ops[i+1])-8
			s, m := &a, ma
			if i%4 == 2 {
				s, m = &b, mb
			}
			*s = s.Add(from, to)
			if s == &a {
				added = append(added, Range{from, to})
			}
			for n := max(from, 1); n <= to; n++ {
				m[n] = true
			}
		}
		slices.Reverse(added) // Of takes ranges in any order
		if o := Of(added); !slices.Equal(o.Ranges(), a.Ranges()) || !o.Known() {
			t.Fatalf("Of(%v) = %v, Add gave %v", added, o.Ranges(), a.Ranges())
		}
		if len(ops) >= 2 {
			from, to := int(ops[0])-8, int(ops[1])
			var want []Range
			for n := from; n <= to; n++ {
				if !ma[n] {
					continue
				}
				if k := len(want); k > 0 && want[k-1].To == n-1 {
					want[k-1].To = n
				} else {
					want = append(want, Range{n, n})
				}
			}
			if got := a.Within(from, to); !slices.Equal(got, want) {
				t.Fatalf("Within(%d, %d) of %v = %v, model %v", from, to, a.Ranges(), got, want)
			}
		}
		u := a.Union(b)
		mu := map[int]bool{}
		for n := range ma {
			mu[n] = true
		}
		for n := range mb {
			mu[n] = true
		}
		for _, c := range []struct {
			s LineSet
			m map[int]bool
		}{{a, ma}, {b, mb}, {u, mu}} {
			if c.s.Len() != len(c.m) {
				t.Fatalf("Len = %d, model %d", c.s.Len(), len(c.m))
			}
			for n := -10; n < 260; n++ {
				if c.s.Contains(n) != c.m[n] {
					t.Fatalf("Contains(%d) = %v, model %v", n, c.s.Contains(n), c.m[n])
				}
			}
			r := c.s.Ranges()
			for i := range r {
				if r[i].From > r[i].To || (i > 0 && r[i].From <= r[i-1].To+1) {
					t.Fatalf("ranges not ascending and merged: %v", r)
				}
			}
		}
	})
}

// debug.session's seenLines reads back as it was written: unknown, empty
// and ranges stay apart (edit-contract §4.3).
func TestLineSetJSONRoundTrip(t *testing.T) {
	for _, s := range []LineSet{Unknown(), Empty(), Span(3, 7).Add(10, 10).Add(40, 50)} {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var back LineSet
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if back.Known() != s.Known() || !slices.Equal(back.Ranges(), s.Ranges()) {
			t.Errorf("%s read back as known=%v %v", b, back.Known(), back.Ranges())
		}
	}
	var bad LineSet
	if err := json.Unmarshal([]byte(`{"from":1}`), &bad); err == nil {
		t.Error("an object was taken for a line set")
	}
}
