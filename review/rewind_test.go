package review

import (
	"errors"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/workspace/textenc"
)

// rebuild gives back exactly the text a diff renderDiff made describes,
// for texts with and without a final newline, and refuses what is not
// such a diff.
func TestRebuildRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 1))
	words := []string{"alpha", "beta", "", "gamma", "delta", "}", "{", "x"}
	text := func() string {
		var b strings.Builder
		for range rng.IntN(40) {
			b.WriteString(words[rng.IntN(len(words))] + "\n")
		}
		s := b.String()
		if s != "" && rng.IntN(3) == 0 {
			s = strings.TrimSuffix(s, "\n") // no final newline
		}
		return s
	}
	for i := range 2000 {
		before, after := text(), text()
		bf, af := factsOf(true, []byte(before), 0o644), factsOf(true, []byte(after), 0o644)
		diff := renderDiff("f.txt", bf, af, []byte(before), []byte(after), textenc.UTF8)
		got, ok := rebuild([]byte(before), diff)
		if !ok || string(got) != after {
			t.Fatalf("case %d: rebuild(%q, diff) = %q, %v; want %q\ndiff:\n%s", i, before, got, ok, after, diff)
		}
	}
	for _, bad := range []string{
		"Binary files a/x and b/x differ (3 bytes before, 4 bytes after)\n",
		"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-nope\n+yes\n",
		"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\nnote: the file as saved differs\n",
	} {
		if got, ok := rebuild([]byte("a\n"), bad); ok {
			t.Errorf("rebuild accepted %q: %q", bad, got)
		}
	}
}

// recordedTurn records a turn of two calls over three paths (a modify, a
// create, a delete) and returns its paths.
func recordedTurn(t *testing.T, s *Store, dir string) (a, b, c string) {
	a, b, c = filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt"), filepath.Join(dir, "c.txt")
	writeFile(t, a, "a1\n", 0o644)
	writeFile(t, c, "c1\n", 0o600)
	for _, step := range []struct {
		id      string
		changes []plannedChange
	}{
		{"t-1", []plannedChange{modify(t, a, "a.txt", "a2\n"), create(b, "b.txt", "b\n")}},
		{"t-2", []plannedChange{modify(t, a, "a.txt", "a3\n"), remove(t, c, "c.txt")}},
	} {
		txn, err := s.beginTurn("s1", step.id, "edit", "p", step.changes)
		if err != nil {
			t.Fatal(err)
		}
		for _, ch := range step.changes {
			apply(t, ch)
		}
		if _, err := txn.commit(nil); err != nil {
			t.Fatal(err)
		}
	}
	return a, b, c
}

// plainPuts are the puts of a rewind without conflicts.
func plainPuts(t *testing.T, rt *RewindTxn) []Put {
	puts := make([]Put, len(rt.Paths()))
	for i, p := range rt.Paths() {
		o, err := Observe(p.Path, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		live, _ := o.State()
		puts[i] = Put{Path: i, Live: live, To: p.Before}
	}
	return puts
}

// A write that fails midway puts back the paths already written: nothing
// is rewound, nothing marked, and the turn can be rewound again.
func TestRewindThatFailsMidwayIsUndone(t *testing.T) {
	s, _ := openTest(t, config.DefaultLimits())
	dir := t.TempDir()
	a, b, c := recordedTurn(t, s, dir)
	rt, err := s.BeginRewind("s1", Selection{PromptID: "p"})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rt.Calls(), ","); got != "t-2,t-1" || len(rt.Paths()) != 3 {
		t.Fatalf("calls %s, %d paths", got, len(rt.Paths()))
	}
	puts := plainPuts(t, rt)
	n := 0
	testHookPut = func(string) error {
		if n++; n == 3 {
			return errors.New("disk full")
		}
		return nil
	}
	_, err = rt.Rewind(puts, nil)
	testHookPut = nil
	if !errors.Is(err, ErrRollbackFailed) || !strings.Contains(err.Error(), "nothing was restored") {
		t.Fatalf("Rewind = %v", err)
	}
	wantFile(t, a, []byte("a3\n"), 0o644)
	wantFile(t, b, []byte("b\n"), 0o644)
	wantFile(t, c, nil, 0)
	if st := s.Stats(); st.PendingIntents != 0 {
		t.Errorf("%d intents left", st.PendingIntents)
	}
	rt, err = s.BeginRewind("s1", Selection{PromptID: "p"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rt.Rewind(plainPuts(t, rt), nil); err != nil {
		t.Fatal(err)
	}
	wantFile(t, a, []byte("a1\n"), 0o644)
	wantFile(t, b, nil, 0)
	wantFile(t, c, []byte("c1\n"), 0o600)
}

// A rewind whose intent is durable is finished by the next Open, whatever
// it had written: the store is closed (as a crash leaves it) right after
// the first write.
func TestInterruptedRewindIsFinishedAtOpen(t *testing.T) {
	lim := config.DefaultLimits()
	s, stateDir := openTest(t, lim)
	dir := t.TempDir()
	a, b, c := recordedTurn(t, s, dir)
	rt, err := s.BeginRewind("s1", Selection{All: true})
	if err != nil {
		t.Fatal(err)
	}
	puts := plainPuts(t, rt)
	n := 0
	testHookPut = func(string) error {
		if n++; n == 2 {
			return errors.New("power cut")
		}
		return nil
	}
	// The undo of the first write fails too, as if the process died
	// there: the intent stays for Open.
	undoFails := false
	orig := testHookPut
	testHookPut = func(p string) error {
		if undoFails {
			return errors.New("still no power")
		}
		err := orig(p)
		if err != nil {
			undoFails = true
		}
		return err
	}
	_, err = rt.Rewind(puts, nil)
	testHookPut = nil
	if !errors.Is(err, ErrRollbackIncomplete) {
		t.Fatalf("Rewind = %v", err)
	}
	s = reopen(t, s, stateDir, lim)
	wantFile(t, a, []byte("a1\n"), 0o644)
	wantFile(t, b, nil, 0)
	wantFile(t, c, []byte("c1\n"), 0o600)
	entries, err := s.List("s1", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.RolledBack {
			t.Errorf("%s of %s not rolled back after Open finished the rewind", e.Path, e.ToolCallID)
		}
	}
	if st := s.Stats(); st.PendingIntents != 0 {
		t.Errorf("%d intents left", st.PendingIntents)
	}
}
