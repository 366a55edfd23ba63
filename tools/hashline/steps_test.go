package hashline

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"

	"github.com/hostd-dev/hostd/internal/benchkit"
)

// TestStepsAllocatePerCallNotPerOp: on a 50-op edit of 5,000 lines each
// step allocates a few lists per call, sized once, not one or more per op,
// so the garbage an edit leaves (and the collections it costs) does not
// grow with its ops beyond those lists (docs/benchmarks.md, the text path).
func TestStepsAllocatePerCallNotPerOp(t *testing.T) {
	if raceDetector {
		t.Skip("allocation counts differ under the race detector")
	}
	lines := benchLines(5000)
	var text Text = Lines(lines)
	ops := benchkit.SpreadOps(50, 5000)
	lim := DefaultLimits()
	p := mustParse(t, ops)
	lowered, err := lowerStep(p, len(lines), lim)
	if err != nil {
		t.Fatal(err)
	}
	expanded, err := expandStep(lowered, text, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := ApplyText(text, expanded)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		step string
		max  float64
		run  func()
	}{
		{"Parse (the ops split into lines, the op list, the patch)", 3, func() { Parse(ops, lim) }},
		{"ExpandText (the edits, the anonymous captures)", 2, func() { expandStep(lowered, text, nil) }},
		{"Validate (one list of what the ops take)", 1, func() { validateStep(expanded) }},
		{"ApplyText (inserts, deletes, rows, copies, pieces, regions)", 6, func() { ApplyText(text, expanded) }},
		{"NewLines (the lines)", 1, func() { res.NewLines(text) }},
		{"Repair with nothing to ask (the ops in scope, found once)", 8, func() { repairStep(text, p, expanded, Env{Syntax: noGrammar{}}) }},
	} {
		if got := testing.AllocsPerRun(20, tt.run); got > tt.max {
			t.Errorf("%s: %v allocations for 50 ops, want at most %v", tt.step, got, tt.max)
		}
	}
}

// TestEditHasNoPaddingToSpare: an IR holds an Edit per line an edit
// touches, and every step copies them; the one-byte fields share a word.
func TestEditHasNoPaddingToSpare(t *testing.T) {
	if size := unsafe.Sizeof(Edit{}); size > 120 {
		t.Errorf("an Edit is %d bytes; keep Kind and Block side by side (120 bytes on 64-bit)", size)
	}
}

// TestLowerSizesEditsExactly: Lower allocates the edits once, exactly as
// many as it makes, for every kind of op.
func TestLowerSizesEditsExactly(t *testing.T) {
	for _, ops := range []string{
		benchkit.SpreadOps(50, 5000),
		"PUT 3.=5:\n+a\n+b",
		"CUT 3.=9\nPUT >20",
		"CUT 3.=4 @r\nPUT 10.=12 @r\nPUT <1:\n+top\nPUT >$:\n+end",
		"PUT 7*:\n+x\nPUT >30*:\n+y\nCUT 40*\nPUT 50* @r\nPUT >60*",
	} {
		ir, err := lowerStep(mustParse(t, ops), 5000, DefaultLimits())
		if err != nil {
			t.Fatalf("%q: %v", ops, err)
		}
		if cap(ir.Edits) != len(ir.Edits) {
			t.Errorf("%.40q: %d edits in room for %d", ops, len(ir.Edits), cap(ir.Edits))
		}
	}
}

// TestAnchorsApartAgreesWithFirstConflict: Validate's check from sorted
// lists passes exactly the IRs in which the edit-order search with maps
// finds no conflict, on random IRs of every edit kind over a few lines
// and ops, so that conflicts are common.
func TestAnchorsApartAgreesWithFirstConflict(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 3))
	const n = 8
	cursor := func() Cursor {
		switch rng.IntN(5) {
		case 0:
			return Cursor{Pos: PosHead}
		case 1:
			return Cursor{Pos: PosEnd}
		case 2:
			return Cursor{Pos: PosBefore, Line: 1 + rng.IntN(n)}
		case 3:
			return Cursor{Pos: PosAfter, Line: 1 + rng.IntN(n)}
		}
		return Cursor{Pos: PosAt, Line: 1 + rng.IntN(n)}
	}
	apart, conflicts := 0, 0
	for range 50000 {
		ir := IR{NumLines: n, Sources: make([]Source, 3)}
		for range 1 + rng.IntN(6) {
			e := Edit{Src: rng.IntN(3)}
			switch rng.IntN(5) {
			case 0:
				e.Kind, e.Line = KindDelete, 1+rng.IntN(n)
			case 1:
				e.Kind, e.Cursor = KindInsert, cursor()
			case 2, 3:
				e.Kind, e.Start = KindCut, 1+rng.IntN(n)
				e.End = e.Start + rng.IntN(n-e.Start+1)
				if rng.IntN(2) == 0 {
					e.Kind = KindPaste // a span paste
				}
			case 4:
				e.Kind, e.Cursor = KindPaste, cursor()
				if e.Cursor.Pos == PosAt {
					e.Cursor.Pos = PosAfter
				}
			}
			ir.Edits = append(ir.Edits, e)
		}
		got, want := ir.anchorsApart(), ir.firstConflict() == nil
		if got != want {
			t.Fatalf("anchorsApart() = %v, but firstConflict() finds %v, for %+v", got, ir.firstConflict(), ir.Edits)
		}
		if got {
			apart++
		} else {
			conflicts++
		}
	}
	if apart < 1000 || conflicts < 1000 {
		t.Errorf("%d IRs apart and %d in conflict: the generator no longer tests both", apart, conflicts)
	}
}

// TestReplacementsGroupEditsBySource: the ops in repair's scope are found
// with each op's edits in IR order even when the edits of several ops
// interleave, as an IR built by a caller may have them.
func TestReplacementsGroupEditsBySource(t *testing.T) {
	ir := IR{NumLines: 20, Sources: []Source{{Header: "PUT 3.=4:"}, {Header: "PUT >9:"}, {Header: "PUT 12.=12:"}, {Header: "PUT 15.=16:"}}}
	del := func(src, line int) Edit { return Edit{Kind: KindDelete, Src: src, Line: line} }
	put := func(src, line int, text string) Edit {
		return Edit{Kind: KindInsert, Src: src, Cursor: Cursor{Pos: PosAt, Line: line}, Text: text}
	}
	ir.Edits = []Edit{
		put(2, 12, "c1"), del(0, 4), put(0, 3, "a1"),
		{Kind: KindInsert, Src: 1, Cursor: Cursor{Pos: PosAfter, Line: 9}, Text: "b"}, // a gap insert: out of scope
		del(2, 12), del(0, 3), put(0, 3, "a2"), put(2, 12, "c2"),
		del(3, 15), put(3, 15, "d"), del(3, 17), // 15 and 17: not one range
	}
	var got []string
	for _, r := range replacements(ir) {
		got = append(got, fmt.Sprintf("src %d lines %d-%d rows %v", r.src, r.start, r.end, r.ins))
	}
	want := []string{"src 0 lines 3-4 rows [2 6]", "src 2 lines 12-12 rows [0 7]"}
	if !slices.Equal(got, want) {
		t.Errorf("replacements:\n got %q\nwant %q", got, want)
	}
}
