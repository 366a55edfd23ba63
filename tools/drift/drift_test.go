package drift

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

func lines(s string) []string { return strings.Split(s, ",") }

func TestCheck(t *testing.T) {
	cases := []struct {
		name     string
		old, new string
		anchors  []int
		offset   int
		decline  string // substring of the reason, "" for success
	}{
		{"unchanged", "a,b,c,d", "a,b,c,d", []int{2}, 0, ""},
		{"change below", "a,b,c,d", "a,b,c,X", []int{2}, 0, ""},
		{"lines inserted above", "a,b,c,d", "N,M,a,b,c,d", []int{3}, 2, ""},
		{"lines deleted above", "a,b,c,d,e", "c,d,e", []int{4}, -2, ""},
		{"anchor changed", "a,b,c,d", "a,B,c,d", []int{2}, 0, "line 2 changed"},
		{"interior line of a range changed", "a,b,c,d,e", "a,b,C,d,e", []int{2, 3, 4}, 0, "line 3 changed"},
		{"unique anchor with no mapped neighbour", "a,b,c,d", "A,b,C,d", []int{2}, 0, "neither neighbour"},
		{"unique anchor, one neighbour is enough", "a,b,c,d", "A,b,c,d", []int{2}, 0, ""},
		{"duplicated anchor with one unmapped neighbour", "a,x,c,d,x,f", "a,x,C,d,x,f", []int{2}, 0, "repeats elsewhere"},
		{"duplicated anchor with both neighbours", "a,x,c,d,x,f", "a,x,c,D,x,f", []int{2}, 0, ""},
		{"inconsistent offsets", "a,b,c,d,e,f", "a,b,N,c,d,e,f", []int{2, 5}, 0, "moved by +1"},
		{"neighbours skip anchors", "a,b,c,d,e", "Z,a,b,c,d,e", []int{2, 3, 4}, 1, ""},
		{"anchor at the file start uses the start as a neighbour", "a,b,c", "a,b,C", []int{1}, 0, ""},
		{"no anchors", "a", "a", nil, 0, "no anchor"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			old, new := lines(tc.old), lines(tc.new)
			m, err := Diff(old, new, time.Second)
			if err != nil {
				t.Fatal(err)
			}
			off, err := Check(old, new, m, tc.anchors)
			if tc.decline == "" {
				if err != nil {
					t.Fatalf("declined: %v", err)
				}
				if off != tc.offset {
					t.Fatalf("offset %d, want %d", off, tc.offset)
				}
				return
			}
			var d *Decline
			if !errors.As(err, &d) || !strings.Contains(d.Reason, tc.decline) {
				t.Fatalf("got %v, want a decline containing %q", err, tc.decline)
			}
		})
	}
}

// The map holds only equal lines, in order, and is a longest common
// subsequence when the diff has time to finish.
func TestDiffMapsOnlyEqualLines(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for iter := 0; iter < 300; iter++ {
		old := make([]string, r.IntN(60))
		for i := range old {
			old[i] = fmt.Sprint(r.IntN(8))
		}
		new := mutate(r, old)
		m, err := Diff(old, new, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		last, mapped := 0, 0
		for i := 1; i <= len(old); i++ {
			n, ok := m.Lookup(i)
			if !ok {
				continue
			}
			mapped++
			if n <= last || old[i-1] != new[n-1] {
				t.Fatalf("bad map entry %d->%d (old %q new %q)", i, n, old, new)
			}
			last = n
		}
		if want := lcs(old, new); mapped != want {
			t.Fatalf("mapped %d lines, LCS is %d", mapped, want)
		}
	}
}

func mutate(r *rand.Rand, old []string) []string {
	out := append([]string(nil), old...)
	for k := r.IntN(4); k > 0; k-- {
		i := r.IntN(len(out) + 1)
		switch r.IntN(3) {
		case 0:
			out = append(out[:i], append([]string{"n" + fmt.Sprint(r.IntN(5))}, out[i:]...)...)
		case 1:
			if i < len(out) {
				out = append(out[:i], out[i+1:]...)
			}
		case 2:
			if i < len(out) {
				out[i] = "c" + fmt.Sprint(r.IntN(5))
			}
		}
	}
	return out
}

func lcs(a, b []string) int {
	prev := make([]int, len(b)+1)
	for i := range a {
		cur := make([]int, len(b)+1)
		for j := range b {
			if a[i] == b[j] {
				cur[j+1] = prev[j] + 1
			} else {
				cur[j+1] = max(prev[j+1], cur[j])
			}
		}
		prev = cur
	}
	return prev[len(b)]
}

func TestDiffManyDistinctLines(t *testing.T) {
	// Past the surrogate range of code points: ids must stay distinct.
	n := 70000
	old := make([]string, n)
	for i := range old {
		old[i] = fmt.Sprint("line ", i)
	}
	new := append([]string{"inserted"}, old...)
	m, err := Diff(old, new, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{1, 0xD800 - 1, 0xD800, 0xD800 + 1, 60000, n} {
		if got, ok := m.Lookup(i); !ok || got != i+1 {
			t.Fatalf("line %d -> %d %v, want %d", i, got, ok, i+1)
		}
	}
}

func TestDiffRefusesHugeTexts(t *testing.T) {
	big := make([]string, MaxLines/2+1)
	if _, err := Diff(big, big, time.Second); err == nil {
		t.Fatal("Diff accepted texts past MaxLines")
	}
}

// BenchmarkRecover50kLines100Changes is the bar of the drift-recovery
// issue: a 50,000-line file with 100 scattered external changes.
func BenchmarkRecover50kLines100Changes(b *testing.B) {
	for _, changes := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("changes=%d", changes), func(b *testing.B) {
			old := make([]string, 50000)
			for i := range old {
				old[i] = fmt.Sprintf("\tvalue%d := compute(%d) // line %d", i%977, i%13, i)
			}
			new := append([]string(nil), old...)
			r := rand.New(rand.NewPCG(3, 4))
			for k := 0; k < changes; k++ {
				new[r.IntN(len(new))] = fmt.Sprintf("changed %d", k)
			}
			anchors := []int{25000, 25001, 25002}
			for _, a := range anchors {
				new[a-1] = old[a-1]
			}
			b.ResetTimer()
			for b.Loop() {
				m, err := Diff(old, new, 2*time.Second)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := Check(old, new, m, anchors); err != nil {
					var d *Decline
					if !errors.As(err, &d) {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
