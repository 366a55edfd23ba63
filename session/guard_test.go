package session

import "testing"

// The sequences of edit-contract §9.3, one table row each.
func TestGuardSequences(t *testing.T) {
	type step struct {
		code    string // "" means a successful edit
		attempt int
		stop    bool
	}
	cases := []struct {
		name  string
		steps []step
	}{
		{"tag mismatch then lines unseen: neither counts", []step{
			{"EDIT_TAG_MISMATCH", 0, false}, {"EDIT_LINES_UNSEEN", 0, false}}},
		{"tag mismatch twice: the second is attempt 1", []step{
			{"EDIT_TAG_MISMATCH", 0, false}, {"EDIT_TAG_MISMATCH", 1, false}}},
		{"parse failed three times: attempt 3 stops the turn", []step{
			{"EDIT_PARSE_FAILED", 1, false}, {"EDIT_PARSE_FAILED", 2, false}, {"EDIT_PARSE_FAILED", 3, true}}},
		{"a landed write clears the path's history", []step{
			{"EDIT_NO_CHANGE", 1, false}, {"EDIT_RANGE_INVALID", 2, false}, {"", 0, false}, {"EDIT_NO_CHANGE", 1, false}}},
		{"grace is per code, and comes back after a success", []step{
			{"EDIT_TAG_UNKNOWN", 0, false}, {"", 0, false}, {"EDIT_TAG_UNKNOWN", 0, false}, {"EDIT_TAG_UNKNOWN", 1, false}}},
		{"mixed codes add up", []step{
			{"EDIT_PARSE_FAILED", 1, false}, {"EDIT_TAG_MISMATCH", 0, false}, {"EDIT_NO_CHANGE", 2, false}, {"EDIT_TAG_MISMATCH", 3, true}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := NewGuard(3)
			for i, s := range tc.steps {
				if s.code == "" {
					g.Succeed("p1", "a.go")
					continue
				}
				v := g.Fail("p1", "a.go", s.code)
				if v.Attempt != s.attempt || v.Terminate != s.stop {
					t.Fatalf("step %d (%s): got attempt %d stop %v, want %d %v", i, s.code, v.Attempt, v.Terminate, s.attempt, s.stop)
				}
			}
		})
	}
}

func TestGuardScopes(t *testing.T) {
	g := NewGuard(2)
	g.Fail("p1", "a.go", "EDIT_PARSE_FAILED")
	if v := g.Fail("p1", "b.go", "EDIT_PARSE_FAILED"); v.Attempt != 1 {
		t.Fatalf("another path shares the count: %+v", v)
	}
	if v := g.Fail("p2", "a.go", "EDIT_PARSE_FAILED"); v.Attempt != 1 {
		t.Fatalf("another prompt shares the count: %+v", v)
	}
	if v := g.Fail("p1", "a.go", "EDIT_PARSE_FAILED"); !v.Terminate {
		t.Fatalf("second failure at limit 2 did not stop: %+v", v)
	}
	for i := 0; i < 5; i++ {
		if v := g.Fail("", "a.go", "EDIT_PARSE_FAILED"); v != (Verdict{}) {
			t.Fatalf("without a prompt id the guard counted: %+v", v)
		}
	}
}

func TestGuardBounded(t *testing.T) {
	g := NewGuard(3)
	for i := 0; i < 10*maxGuardPrompts; i++ {
		g.Fail(string(rune('a'+i%26))+string(rune(i)), "x", "EDIT_NO_CHANGE")
	}
	if n := g.prompts.Len(); n > maxGuardPrompts {
		t.Fatalf("guard holds %d prompts, bound %d", n, maxGuardPrompts)
	}
}
