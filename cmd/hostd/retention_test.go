package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/config"
)

// The daemon-wide bound on retained text, through the real tools: other
// sessions' reads evict a session's text, and that session's next edit on
// the tag it read still passes the version gate, by digest, and lands.
func TestEditAfterItsTextWasEvictedDaemonWide(t *testing.T) {
	lim := config.DefaultLimits()
	lim.MaxRetainedBytes = 64 << 10
	r := newEditRig(t, filepath.Join(t.TempDir(), "state"), lim)
	for i := range 4 {
		body := strings.Repeat(fmt.Sprintf("// filler %d: the quick brown fox jumps over the lazy dog\n", i), 500) // 29 KiB
		if err := os.WriteFile(filepath.Join(r.root, fmt.Sprintf("big%d.txt", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	other, err := r.sessions.Create("other", r.ws)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		r.call(t, other.ID, "read", map[string]any{"path": fmt.Sprintf("big%d.txt", i)})
	}
	if held := r.sessions.HeldBytes(); held > lim.MaxRetainedBytes {
		t.Fatalf("%d bytes retained daemon-wide, over %d", held, lim.MaxRetainedBytes)
	}
	s, err := r.sessions.Get(r.session)
	if err != nil {
		t.Fatal(err)
	}
	head, ok := s.State().Store.Head(filepath.Join(r.root, r.path))
	if !ok || head.Retained {
		t.Fatalf("the edited file's version: present %v, retained %v; want present without its text", ok, head.Retained)
	}
	r.edit(t)
	data, err := os.ReadFile(filepath.Join(r.root, r.path))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `compute(1, "edited")`) {
		t.Errorf("the edit did not land:\n%s", data)
	}
}
