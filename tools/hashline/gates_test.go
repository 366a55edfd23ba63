package hashline

import (
	"errors"
	"reflect"
	"testing"
)

// lowered parses and lowers ops for a text of n lines, resolving blocks
// with r when given.
func lowered(t *testing.T, ops string, n int, r BlockResolver) IR {
	t.Helper()
	p, err := Parse(ops, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	ir, err := lowerStep(p, n, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if r != nil {
		if ir, err = resolveStep(ir, r); err != nil {
			t.Fatal(err)
		}
	}
	return ir
}

func TestAnchors(t *testing.T) {
	tests := []struct {
		ops  string
		want []int
	}{
		// Every line of a range, interior lines included: checking only
		// the ends let unseen interior lines through in a peer tool.
		{"PUT 3.=6:\n+x", []int{3, 4, 5, 6}},
		{"CUT 3.=6", []int{3, 4, 5, 6}},
		{"PUT <4:\n+x", []int{4}},
		{"PUT >4:\n+x", []int{4}},
		{"PUT <1:\n+x", nil},
		{"PUT >$:\n+x", nil},
		{"CUT 2.=3\nPUT >7", []int{2, 3, 7}},
		{"PUT 9.=10 @r", []int{9, 10}},
		{"PUT >5:\n+x\nPUT 4.=5:\n+y\nPUT <1:\n+z", []int{4, 5}},
	}
	for _, tt := range tests {
		got := lowered(t, tt.ops, 10, nil).Anchors()
		if len(got) == 0 {
			got = nil
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Anchors(%q) = %v, want %v", tt.ops, got, tt.want)
		}
	}
	// Anchors survive expansion unchanged.
	lines := []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10"}
	ir := lowered(t, "CUT 2.=3\nPUT >7", 10, nil)
	ex, err := expandLines(ir, lines, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ex.Anchors(), ir.Anchors()) {
		t.Errorf("expanded anchors %v != lowered %v", ex.Anchors(), ir.Anchors())
	}
	// A block anchors its opener and, resolved, every line it consumes.
	blocks := mapResolver{4: {4, 6}}
	if got := lowered(t, "CUT 4*", 10, nil).Anchors(); !reflect.DeepEqual(got, []int{4}) {
		t.Errorf("unresolved block anchors %v", got)
	}
	if got := lowered(t, "CUT 4*", 10, blocks).Anchors(); !reflect.DeepEqual(got, []int{4, 5, 6}) {
		t.Errorf("resolved block anchors %v", got)
	}
	if got := lowered(t, "PUT >4*:\n+x", 10, blocks).Anchors(); !reflect.DeepEqual(got, []int{4, 6}) {
		t.Errorf("after-block anchors %v", got)
	}
}

func TestHeadTailOnly(t *testing.T) {
	tests := []struct {
		ops  string
		want bool
	}{
		{"PUT <1:\n+x", true},
		{"PUT >$:\n+x", true},
		{"PUT <1:\n+x\nPUT >$:\n+y", true},
		{"PUT >$ @r", true},
		{"PUT >10:\n+x", false}, // names line 10, which drift can move
		{"PUT <1:\n+x\nCUT 3.=3", false},
		{"PUT 1.=1:\n+x", false},
		{"CUT 2*", false},
		{"MV b.go", false},
	}
	for _, tt := range tests {
		if got := lowered(t, tt.ops, 10, nil).HeadTailOnly(); got != tt.want {
			t.Errorf("HeadTailOnly(%q) = %v, want %v", tt.ops, got, tt.want)
		}
	}
}

func TestRemap(t *testing.T) {
	// Two lines were inserted at the top of the live file.
	old := []string{"a", "b", "c", "d", "e"}
	live := append([]string{"new1", "new2"}, old...)
	shift := func(l int) (int, bool) { return l + 2, true }
	ir := lowered(t, "PUT 2.=3:\n+X\nPUT <5:\n+G\nCUT 1.=1\nPUT >$\nPUT <1:\n+H", 5, nil)
	moved, err := ir.Remap(shift)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{3, 4, 5, 7}; !reflect.DeepEqual(moved.Anchors(), want) {
		t.Errorf("remapped anchors %v, want %v", moved.Anchors(), want)
	}
	if moved.NumLines != 5 || !reflect.DeepEqual(ir.Anchors(), []int{1, 2, 3, 5}) {
		t.Errorf("Remap changed its input or NumLines")
	}
	moved.NumLines = len(live)
	ex, err := expandLines(moved, live, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := validateStep(ex); err != nil {
		t.Fatal(err)
	}
	res, err := Apply(live, ex)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"H", "new1", "new2", "X", "d", "G", "e", "a"}
	if !reflect.DeepEqual(res.Lines, want) {
		t.Errorf("replay = %q, want %q", res.Lines, want)
	}

	// A line that did not survive stops the remap.
	gone := func(l int) (int, bool) { return l, l != 3 }
	if _, err := ir.Remap(gone); !errors.Is(err, ErrUnmapped) {
		t.Errorf("unmapped anchor: %v", err)
	}
	// So does a range whose lines are no longer adjacent.
	split := func(l int) (int, bool) {
		if l >= 3 {
			return l + 1, true
		}
		return l, true
	}
	if _, err := lowered(t, "PUT 2.=3:\n+X", 5, nil).Remap(split); !errors.Is(err, ErrUnmapped) {
		t.Errorf("split range: %v", err)
	}
	if _, err := lowered(t, "CUT 2.=3", 5, nil).Remap(split); !errors.Is(err, ErrUnmapped) {
		t.Errorf("split cut: %v", err)
	}
	// Head and end inserts do not move.
	ht, err := lowered(t, "PUT <1:\n+x\nPUT >$:\n+y", 5, nil).Remap(func(int) (int, bool) { return 0, false })
	if err != nil || !ht.HeadTailOnly() {
		t.Errorf("head/tail remap: %v", err)
	}
}
