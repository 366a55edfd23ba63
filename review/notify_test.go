package review

import (
	"path/filepath"
	"testing"

	"github.com/hostd-dev/hostd/config"
)

// Listeners hear of every recorded call once it is durable, and of
// nothing that was aborted.
func TestOnRecord(t *testing.T) {
	s, dir := openTest(t, config.DefaultLimits())
	var got []Recorded
	s.OnRecord(func(r Recorded) { got = append(got, r) })
	path := filepath.Join(dir, "a.txt")
	mutate(t, s, "s1", "call-1", "write", create(path, "a.txt", "x\n"))

	t2, err := s.begin("s1", "call-2", "write", []plannedChange{modify(t, path, "a.txt", "y\n")})
	if err != nil {
		t.Fatal(err)
	}
	if err := t2.abort(); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].SessionID != "s1" || got[0].ToolCallID != "call-1" || len(got[0].Entries) != 1 || got[0].Entries[0].Change != ChangeCreate {
		t.Fatalf("listeners got %+v", got)
	}
}
