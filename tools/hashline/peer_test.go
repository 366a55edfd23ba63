package hashline

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// Bugs users of peer tools hit, each pinned by a test here. The ones about
// tags, provenance and rollback belong to the tool layer.

// A body that restates the line just outside its range is applied as
// written: no silent repair drops or duplicates lines (boundary repair,
// when it comes, must be proven and warned).
func TestPeerNoSilentBoundaryRepair(t *testing.T) {
	got, _, err := runText("// one\n// two\nold();\n", "PUT 3.=3:\n+// two\n+new();", Env{})
	if err != nil || got != "// one\n// two\n// two\nnew();\n" {
		t.Errorf("got %q, %v", got, err)
	}
	got, _, err = runText("aaa\nbbb\nccc\n", "PUT >$:\n+bbb\n+ccc\n+NEW", Env{})
	if err != nil || got != "aaa\nbbb\nccc\nbbb\nccc\nNEW\n" {
		t.Errorf("got %q, %v", got, err)
	}
}

// 182 identical no-op edits in 205 calls: an edit that changes nothing is
// an error the model can learn from, not a success.
func TestPeerNoOpIsAnError(t *testing.T) {
	for _, ops := range []string{"PUT 1.=2:\n+a\n+b", "CUT 1.=1\nPUT <2", "PUT 3.=3:\n+c\nPUT 1.=1:\n+a"} {
		_, _, err := runText(abcde, ops, Env{})
		wantErr(t, err, CodeNoChange, -1)
	}
}

// The edit tool hung on a 1,646-line file. Every input is bounded: huge
// line numbers cost nothing, and work is proportional to the file and the
// expansion cap.
func TestPeerBoundedWork(t *testing.T) {
	small := []string{"a", "b", "c"}
	for _, ops := range []string{"CUT 1.=999999999", "PUT 2.=2147483647:\n+x", "PUT <999999999:\n+x", "CUT 1.=999999999999"} {
		alloc := allocated(func() {
			if _, err := Run(small, ops, Env{}); err == nil {
				t.Errorf("%q: want an error", ops)
			}
		})
		if alloc > 64<<10 {
			t.Errorf("%q allocated %d bytes on a 3-line file", ops, alloc)
		}
	}
	// A range over the cap on a file that has the lines fails before it
	// lowers them.
	big := make([]string, 300000)
	alloc := allocated(func() {
		_, err := Run(big, "CUT 1.=300000", Env{})
		wantErr(t, err, CodeAmplificationLimit, 1)
	})
	if alloc > 1<<20 {
		t.Errorf("an over-cap range allocated %d bytes before failing", alloc)
	}
	// A 1,646-line file with the maximum number of ops.
	lines := make([]string, 1646)
	for i := range lines {
		lines[i] = fmt.Sprintf("line %d", i+1)
	}
	var ops strings.Builder
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&ops, "PUT %d.=%d:\n+changed %d\n", 8*i+1, 8*i+2, i)
	}
	res, err := Run(lines, ops.String(), Env{})
	if err != nil || len(res.Lines) != 1646-200 || len(res.Changed) != 200 {
		t.Errorf("200 ops on 1,646 lines: %d lines, %d regions, %v", len(res.Lines), len(res.Changed), err)
	}
}

func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// Fuzzy matching rewrote indentation and took the first of several
// matches. Ops name positions, so duplicate lines are irrelevant and the
// body's indentation is kept byte for byte.
func TestPeerPositionsNotMatching(t *testing.T) {
	input := "\tif x {\n\t\treturn\n\t}\n\tif x {\n\t\treturn\n\t}\n"
	got, _, err := runText(input, "PUT 5.=5:\n+    return nil  ", Env{})
	want := "\tif x {\n\t\treturn\n\t}\n\tif x {\n    return nil  \n\t}\n"
	if err != nil || got != want {
		t.Errorf("got %q, %v; want %q", got, err, want)
	}
}

// A partial multi-block apply left half an edit on disk and the model
// never retried the rest. One call is all or nothing, and the error says
// so.
func TestPeerAllOrNothing(t *testing.T) {
	_, res, err := runText(abcde, "PUT 1.=1:\n+A\nPUT 9.=9:\n+I\nCUT 3.=3", Env{})
	wantErr(t, err, CodeRangeInvalid, 3, "line 9", "None of the 3 ops of this call was applied")
	if res.Lines != nil || res.Changed != nil {
		t.Errorf("failed call returned a partial result: %+v", res)
	}
	// A single op needs no such note.
	_, _, err = runText(abcde, "PUT 9.=9:\n+I", Env{})
	if err == nil || strings.Contains(err.Error(), "None of the") {
		t.Errorf("single op: %v", err)
	}
}
