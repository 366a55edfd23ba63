package session

import (
	"fmt"
	"testing"
)

// Asked remembers each request it was told about, apart from every other
// request, until the request is answered or maxAsked newer ones push it
// out.
func TestAskedRemembersRequests(t *testing.T) {
	a := NewAsked()
	a.Ask("/w/f.ts", "1A2B", "PUT 3.=4:\n+x\n")
	for _, tc := range []struct {
		path, tag, ops string
		want           bool
	}{
		{"/w/f.ts", "1A2B", "PUT 3.=4:\n+x\n", true},
		{"/w/f.ts", "1A2C", "PUT 3.=4:\n+x\n", false},
		{"/w/g.ts", "1A2B", "PUT 3.=4:\n+x\n", false},
		{"/w/f.ts", "1A2B", "PUT 3.=4:\n+y\n", false},
		// The parts are kept apart: moving a byte across a boundary is
		// another request.
		{"/w/f.ts1", "A2B", "PUT 3.=4:\n+x\n", false},
	} {
		if got := a.Was(tc.path, tc.tag, tc.ops); got != tc.want {
			t.Errorf("Was(%q, %q, %q) = %v, want %v", tc.path, tc.tag, tc.ops, got, tc.want)
		}
	}
	a.Answered("/w/f.ts", "1A2B", "PUT 3.=4:\n+x\n")
	if a.Was("/w/f.ts", "1A2B", "PUT 3.=4:\n+x\n") || a.Len() != 0 {
		t.Fatalf("an answered question is still remembered (%d held)", a.Len())
	}
}

func TestAskedIsBounded(t *testing.T) {
	a := NewAsked()
	for i := 0; i <= maxAsked; i++ {
		a.Ask("/w/f.ts", "1A2B", fmt.Sprintf("CUT %d.=%d\n", i+1, i+1))
	}
	if a.Len() != maxAsked {
		t.Fatalf("%d questions held, want the bound %d", a.Len(), maxAsked)
	}
	if a.Was("/w/f.ts", "1A2B", "CUT 1.=1\n") {
		t.Error("the oldest question outlived the bound")
	}
	if !a.Was("/w/f.ts", "1A2B", fmt.Sprintf("CUT %d.=%d\n", maxAsked+1, maxAsked+1)) {
		t.Error("the newest question was forgotten")
	}
}
