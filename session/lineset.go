package session

import (
	"encoding/json"
	"fmt"
	"slices"
)

// Range is an inclusive range of 1-based line numbers.
type Range struct{ From, To int }

// MarshalJSON renders a range as [from, to], the debug.session shape.
func (r Range) MarshalJSON() ([]byte, error) { return json.Marshal([2]int{r.From, r.To}) }

// LineSet is the set of lines a session was shown of one version
// (edit-contract §4.1). It distinguishes unknown from empty: an unknown set
// skips the provenance gate, an empty one rejects every anchor (§4.3).
// It is stored as ascending, merged ranges, so a million seen lines cost a
// few bytes. A LineSet is a value; its methods never modify the receiver.
type LineSet struct {
	known  bool
	ranges []Range // ascending, non-overlapping, non-adjacent
}

// Unknown is the set with no provenance recorded.
func Unknown() LineSet { return LineSet{} }

// Empty is the known, empty set.
func Empty() LineSet { return LineSet{known: true} }

// Span is the known set of lines from..to (empty when to < from).
func Span(from, to int) LineSet { return Empty().Add(from, to) }

// Known reports whether provenance was recorded.
func (s LineSet) Known() bool { return s.known }

// Ranges returns the ranges, ascending and merged.
func (s LineSet) Ranges() []Range { return slices.Clone(s.ranges) }

// Len is the number of lines in the set.
func (s LineSet) Len() int {
	n := 0
	for _, r := range s.ranges {
		n += r.To - r.From + 1
	}
	return n
}

// Contains reports whether line n is in the set. An unknown set contains
// nothing; callers check Known first.
func (s LineSet) Contains(n int) bool {
	_, found := slices.BinarySearchFunc(s.ranges, n, func(r Range, n int) int {
		switch {
		case r.To < n:
			return -1
		case r.From > n:
			return 1
		}
		return 0
	})
	return found
}

// Add returns the set with from..to added; the result is known.
func (s LineSet) Add(from, to int) LineSet {
	out := LineSet{known: true}
	if to < from || to < 1 {
		out.ranges = slices.Clone(s.ranges)
		return out
	}
	from = max(from, 1)
	out.ranges = make([]Range, 0, len(s.ranges)+1)
	i := 0
	for ; i < len(s.ranges) && s.ranges[i].To < from-1; i++ {
		out.ranges = append(out.ranges, s.ranges[i])
	}
	merged := Range{from, to}
	for ; i < len(s.ranges) && s.ranges[i].From <= to+1; i++ {
		merged.From = min(merged.From, s.ranges[i].From)
		merged.To = max(merged.To, s.ranges[i].To)
	}
	out.ranges = append(out.ranges, merged)
	out.ranges = append(out.ranges, s.ranges[i:]...)
	return out
}

// Union returns s ∪ o. The union with an unknown set keeps the other's
// knowledge: unknown ∪ unknown is unknown. It merges the two range lists in
// one pass, so fusing two large seen sets under the store's lock costs
// their length, not its square.
func (s LineSet) Union(o LineSet) LineSet {
	if !s.known && !o.known {
		return LineSet{}
	}
	out := LineSet{known: true}
	if len(s.ranges)+len(o.ranges) == 0 {
		return out
	}
	out.ranges = make([]Range, 0, len(s.ranges)+len(o.ranges))
	i, j := 0, 0
	for i < len(s.ranges) || j < len(o.ranges) {
		var r Range
		if j == len(o.ranges) || (i < len(s.ranges) && s.ranges[i].From <= o.ranges[j].From) {
			r, i = s.ranges[i], i+1
		} else {
			r, j = o.ranges[j], j+1
		}
		if n := len(out.ranges); n > 0 && r.From <= out.ranges[n-1].To+1 {
			out.ranges[n-1].To = max(out.ranges[n-1].To, r.To)
		} else {
			out.ranges = append(out.ranges, r)
		}
	}
	return out
}

// Of is the known set of the given ranges, in any order, overlapping or
// not; ranges with To < From are ignored. It sorts once, so building a set
// of many ranges costs n log n, not the n² of adding them one at a time.
func Of(ranges []Range) LineSet {
	out := LineSet{known: true}
	rs := make([]Range, 0, len(ranges))
	for _, r := range ranges {
		if r.To >= r.From && r.To >= 1 {
			rs = append(rs, Range{max(r.From, 1), r.To})
		}
	}
	slices.SortFunc(rs, func(a, b Range) int { return a.From - b.From })
	for _, r := range rs {
		if n := len(out.ranges); n > 0 && r.From <= out.ranges[n-1].To+1 {
			out.ranges[n-1].To = max(out.ranges[n-1].To, r.To)
		} else {
			out.ranges = append(out.ranges, r)
		}
	}
	return out
}

// Within returns the parts of from..to that are in the set, ascending. It
// finds the first by binary search, so it costs the log of the set's
// ranges plus the parts returned.
func (s LineSet) Within(from, to int) []Range {
	if to < from {
		return nil
	}
	i, _ := slices.BinarySearchFunc(s.ranges, from, func(r Range, n int) int {
		if r.To < n {
			return -1
		}
		return 1
	})
	var out []Range
	for ; i < len(s.ranges) && s.ranges[i].From <= to; i++ {
		out = append(out, Range{max(s.ranges[i].From, from), min(s.ranges[i].To, to)})
	}
	return out
}

// MarshalJSON renders null for unknown, else the list of [from, to] pairs
// ([] for the empty set), as debug.session reports seenLines.
func (s LineSet) MarshalJSON() ([]byte, error) {
	if !s.known {
		return []byte("null"), nil
	}
	if s.ranges == nil {
		return []byte("[]"), nil
	}
	return json.Marshal(s.ranges)
}

// UnmarshalJSON reads what MarshalJSON writes, for a client of
// debug.session: null is unknown, a list of [from, to] pairs a known set
// (merged as Add merges them).
func (s *LineSet) UnmarshalJSON(b []byte) error {
	var pairs *[][2]int
	if err := json.Unmarshal(b, &pairs); err != nil {
		return fmt.Errorf("seenLines: %w", err)
	}
	if pairs == nil {
		*s = Unknown()
		return nil
	}
	set := Empty()
	for _, p := range *pairs {
		set = set.Add(p[0], p[1])
	}
	*s = set
	return nil
}
