package session

import (
	"testing"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/workspace"
)

// HeldBytes counts retained text and register content across sessions.
func TestHeldBytes(t *testing.T) {
	m := NewManager(config.DefaultLimits())
	ws, err := workspace.New(t.TempDir(), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := m.Create("a", ws)
	b, _ := m.Create("b", ws)
	body := "hello\n"
	a.State().Store.Record("/x", Snapshot{Digest: workspace.Sum(body), Text: body, HasText: true, Lines: 1, Seen: Span(1, 1)})
	b.State().Registers.Set("r", []string{"abc", "de"})
	if got := m.HeldBytes(); got != int64(len(body))+7 {
		t.Fatalf("HeldBytes = %d, want %d", got, len(body)+7)
	}
	m.Delete("a")
	if got := m.HeldBytes(); got != 7 {
		t.Fatalf("after delete HeldBytes = %d, want 7", got)
	}
}
