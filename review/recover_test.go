package review

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/workspace"
)

// The crash tests run the first half of a scenario in a child process
// that exits at the crash point without closing anything, then Open the
// store in the test process, as a restarted daemon would.
const (
	envScenario = "REVIEW_CRASH_SCENARIO"
	envState    = "REVIEW_CRASH_STATE"
	envWS       = "REVIEW_CRASH_WS"
	crashExit   = 3
)

func TestMain(m *testing.M) {
	if runChild() {
		os.Exit(0)
	}
	if sc := os.Getenv(envScenario); sc != "" {
		crashScenario(sc, os.Getenv(envState), os.Getenv(envWS))
		os.Exit(1) // the scenario must end at its crash point
	}
	os.Exit(m.Run())
}

// mvChanges plans "MV a.txt b/a.txt" of a 0755 file.
func mvChanges(ws string) (src, dst string, changes []plannedChange) {
	src, dst = filepath.Join(ws, "a.txt"), filepath.Join(ws, "b", "a.txt")
	data, err := os.ReadFile(src)
	if err != nil {
		panic(err)
	}
	return src, dst, []plannedChange{
		{Path: dst, Display: "b/a.txt", After: data, AfterExists: true, AfterMode: 0o755},
		{Path: src, Display: "a.txt", Before: data, BeforeExists: true, BeforeMode: 0o755},
	}
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

func crashScenario(name, state, ws string) {
	s, err := Open(state, config.DefaultLimits(), nil)
	must(err)
	_, dst, changes := mvChanges(ws)
	txn, err := s.begin("s1", "mv-1", "edit", changes)
	must(err)
	must(workspace.WriteFile(dst, changes[0].After, 0o755)) // step one: the destination
	switch name {
	case "mv-after-step-one":
		os.Exit(crashExit)
	case "mv-after-both-steps":
		must(workspace.RemoveFile(changes[1].Path))
		os.Exit(crashExit)
	case "commit-pending":
		// The commit is in the index only: the crash comes before
		// anything carries it to the disk.
		must(workspace.RemoveFile(changes[1].Path))
		_, err := txn.commit(nil)
		must(err)
		os.Exit(crashExit)
	case "commit-carried":
		// The next call's Begin carries the pending commit.
		must(workspace.RemoveFile(changes[1].Path))
		_, err := txn.commit(nil)
		must(err)
		_, err = s.begin("s1", "c-2", "write", []plannedChange{create(filepath.Join(ws, "c.txt"), "c.txt", "c\n")})
		must(err)
		os.Exit(crashExit)
	case "commit-flushed":
		// No other write comes: the timer writes it on its own.
		must(workspace.RemoveFile(changes[1].Path))
		_, err := txn.commit(nil)
		must(err)
		time.Sleep(4 * flushDelay)
		os.Exit(crashExit)
	case "rollback-after-step-one":
		must(workspace.RemoveFile(changes[1].Path))
		_, err := txn.commit(nil)
		must(err)
		rt, err := s.BeginRestore("s1", "mv-1")
		must(err)
		must(rt.start())
		first := rt.Targets()[0]
		must(restorePath(first.Path, first.Before))
		os.Exit(crashExit)
	}
	panic("unknown scenario " + name)
}

func runCrash(t *testing.T, scenario string) (state, ws string) {
	t.Helper()
	state, ws = t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(ws, "a.txt"), "moved content\n", 0o755)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envScenario+"="+scenario, envState+"="+state, envWS+"="+ws)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != crashExit {
		t.Fatalf("crash child: %v\n%s", err, out)
	}
	return state, ws
}

// A crash between the two steps of an MV: after the next Open each path
// is its before (the call never reported success, so it is undone) and
// nothing is recorded.
func TestCrashDuringMoveIsUndoneAtOpen(t *testing.T) {
	state, ws := runCrash(t, "mv-after-step-one")
	s, err := Open(state, config.DefaultLimits(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	wantFile(t, filepath.Join(ws, "a.txt"), []byte("moved content\n"), 0o755)
	wantFile(t, filepath.Join(ws, "b", "a.txt"), nil, 0)
	if entries, _ := s.List("s1", ""); len(entries) != 0 {
		t.Errorf("an unreported call left entries: %+v", entries)
	}
	if st := s.Stats(); st.PendingIntents != 0 || st.Bytes != 0 {
		t.Errorf("stats after recovery %+v", st)
	}
	// The call id is free again: the runtime may retry the call.
	if _, err := s.begin("s1", "mv-1", "edit", []plannedChange{create(filepath.Join(ws, "c"), "c", "")}); err != nil {
		t.Errorf("retrying the call after recovery: %v", err)
	}
}

// A crash after every step of an MV landed, before its record was on disk
// (whether or not Commit had run: a lazy commit leaves the disk in the
// same state): the next Open records the call as it stands, from the
// intent and the files, and it rolls back like any other call.
func TestCrashAfterEveryStepIsRecordedAtOpen(t *testing.T) {
	for _, scenario := range []string{"mv-after-both-steps", "commit-pending"} {
		t.Run(scenario, func(t *testing.T) {
			state, ws := runCrash(t, scenario)
			s, err := Open(state, config.DefaultLimits(), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			wantFile(t, filepath.Join(ws, "a.txt"), nil, 0)
			wantFile(t, filepath.Join(ws, "b", "a.txt"), []byte("moved content\n"), 0o755)
			entries, err := s.List("s1", "")
			if err != nil || len(entries) != 2 {
				t.Fatalf("entries after recovery = %+v, %v; want the MV's two", entries, err)
			}
			for _, e := range entries {
				if !strings.Contains(e.Diff, "recorded when hostd next started") {
					t.Errorf("entry %s does not say it was rebuilt at start:\n%s", e.ID, e.Diff)
				}
			}
			if st := s.Stats(); st.PendingIntents != 0 || st.Calls != 1 {
				t.Errorf("stats after recovery %+v", st)
			}
			rollbackAll(t, s, "s1", "mv-1")
			wantFile(t, filepath.Join(ws, "a.txt"), []byte("moved content\n"), 0o755)
			wantFile(t, filepath.Join(ws, "b", "a.txt"), nil, 0)
		})
	}
}

// A pending commit that another write carried, or that the timer wrote,
// is on disk as Commit made it: the next Open finds a record, not an
// intent to rebuild.
func TestPendingCommitReachesTheDisk(t *testing.T) {
	for _, scenario := range []string{"commit-carried", "commit-flushed"} {
		t.Run(scenario, func(t *testing.T) {
			state, ws := runCrash(t, scenario)
			s, err := Open(state, config.DefaultLimits(), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			wantFile(t, filepath.Join(ws, "b", "a.txt"), []byte("moved content\n"), 0o755)
			entries, err := s.List("s1", "")
			if err != nil || len(entries) != 2 {
				t.Fatalf("entries after restart = %+v, %v; want the MV's two", entries, err)
			}
			for _, e := range entries {
				if e.ToolCallID != "mv-1" || strings.Contains(e.Diff, "note:") {
					t.Errorf("entry %s was not written as committed:\n%s", e.ID, e.Diff)
				}
			}
		})
	}
}

// A crash between the two steps of a rollback of an MV: the next Open
// finishes the rollback (the user asked for it and every check had
// passed), and marks both entries rolled back.
func TestCrashDuringRollbackIsFinishedAtOpen(t *testing.T) {
	state, ws := runCrash(t, "rollback-after-step-one")
	// The crash left the content in two places, never in none.
	wantFile(t, filepath.Join(ws, "a.txt"), []byte("moved content\n"), 0o755)
	wantFile(t, filepath.Join(ws, "b", "a.txt"), []byte("moved content\n"), 0o755)

	s, err := Open(state, config.DefaultLimits(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	wantFile(t, filepath.Join(ws, "a.txt"), []byte("moved content\n"), 0o755)
	wantFile(t, filepath.Join(ws, "b", "a.txt"), nil, 0)
	entries, _ := s.List("s1", "")
	if len(entries) != 2 || !entries[0].RolledBack || !entries[1].RolledBack {
		t.Errorf("entries after recovery %+v", entries)
	}
	if _, err := s.BeginRestore("s1", "mv-1"); !errors.Is(err, ErrRolledBack) {
		t.Errorf("BeginRestore after a finished rollback = %v, want ErrRolledBack", err)
	}
	if st := s.Stats(); st.PendingIntents != 0 {
		t.Errorf("%d intents left", st.PendingIntents)
	}
}

// Closing the store with a transaction open is the same as a crash: the
// intent survives and the next Open settles it. A change that landed is
// recorded as it stands; one that never touched the disk leaves nothing.
func TestCloseWithOpenTxnSettlesAtOpen(t *testing.T) {
	ws := t.TempDir()
	landed, untouched := filepath.Join(ws, "f"), filepath.Join(ws, "g")
	writeFile(t, landed, "before\n", 0o600)
	writeFile(t, untouched, "before\n", 0o600)
	lim := config.DefaultLimits()
	s, dir := openTest(t, lim)
	c := modify(t, landed, "f", "after\n")
	if _, err := s.begin("s1", "c1", "edit", []plannedChange{c}); err != nil {
		t.Fatal(err)
	}
	apply(t, c)
	if _, err := s.begin("s1", "c2", "edit", []plannedChange{modify(t, untouched, "g", "after\n")}); err != nil {
		t.Fatal(err)
	}
	s = reopen(t, s, dir, lim)
	wantFile(t, landed, []byte("after\n"), 0o600)
	wantFile(t, untouched, []byte("before\n"), 0o600)
	entries, err := s.List("s1", "")
	if err != nil || len(entries) != 1 || entries[0].ToolCallID != "c1" {
		t.Fatalf("entries after reopen = %+v, %v; want c1's one", entries, err)
	}
	if st := s.Stats(); st.PendingIntents != 0 {
		t.Errorf("%d intents left", st.PendingIntents)
	}
}

// A lazy commit is in the index at once: List shows it with its diff
// before any write carried it, and Close writes it.
func TestLazyCommitIsListedAtOnceAndClosedDurably(t *testing.T) {
	ws := t.TempDir()
	p := filepath.Join(ws, "f")
	writeFile(t, p, "before\n", 0o600)
	lim := config.DefaultLimits()
	s, dir := openTest(t, lim)
	c := modify(t, p, "f", "after\n")
	txn, err := s.begin("s1", "c1", "edit", []plannedChange{c})
	if err != nil {
		t.Fatal(err)
	}
	apply(t, c)
	if _, err := txn.commit(nil); err != nil {
		t.Fatal(err)
	}
	entries, err := s.List("s1", "")
	if err != nil || len(entries) != 1 || !strings.Contains(entries[0].Diff, "+after") {
		t.Fatalf("List right after Commit = %+v, %v", entries, err)
	}
	s = reopen(t, s, dir, lim)
	entries, err = s.List("s1", "")
	if err != nil || len(entries) != 1 || strings.Contains(entries[0].Diff, "note:") {
		t.Fatalf("List after Close and Open = %+v, %v; want the committed entry as written", entries, err)
	}
}

// Abort undoes whatever part of an MV landed and forgets the intent.
func TestAbortUndoesWhatLanded(t *testing.T) {
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "a.txt"), "moved content\n", 0o755)
	src, dst, changes := mvChanges(ws)
	s, _ := openTest(t, config.DefaultLimits())
	txn, err := s.begin("s1", "mv-1", "edit", changes)
	if err != nil {
		t.Fatal(err)
	}
	apply(t, changes[0]) // the destination landed, the source removal failed
	if err := txn.abort(); err != nil {
		t.Fatal(err)
	}
	wantFile(t, src, []byte("moved content\n"), 0o755)
	wantFile(t, dst, nil, 0)
	if st := s.Stats(); st.Entries != 0 || st.PendingIntents != 0 {
		t.Errorf("stats %+v", st)
	}
	if _, err := txn.commit(nil); !errors.Is(err, ErrDone) {
		t.Errorf("Commit after Abort = %v, want ErrDone", err)
	}
}

// Abort when the caller already put everything back (or never wrote).
func TestAbortOfUntouchedChangeChangesNothing(t *testing.T) {
	ws := t.TempDir()
	p := filepath.Join(ws, "f")
	writeFile(t, p, "before\n", 0o600)
	s, _ := openTest(t, config.DefaultLimits())
	txn, err := s.begin("s1", "c1", "edit", []plannedChange{modify(t, p, "f", "after\n")})
	if err != nil {
		t.Fatal(err)
	}
	if err := txn.abort(); err != nil {
		t.Fatal(err)
	}
	wantFile(t, p, []byte("before\n"), 0o600)
}

// A path holding neither side (someone else wrote it mid-call) is never
// overwritten: it is left as found and recorded, so the change can still
// be reviewed and rolled back through the conflict check.
func TestAbortLeavesUnexplainedContentAndRecordsIt(t *testing.T) {
	ws := t.TempDir()
	p := filepath.Join(ws, "f")
	writeFile(t, p, "before\n", 0o644)
	s, _ := openTest(t, config.DefaultLimits())
	txn, err := s.begin("s1", "c1", "edit", []plannedChange{modify(t, p, "f", "after\n")})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, p, "someone else's\n", 0o644)
	err = txn.abort()
	if !errors.Is(err, ErrUnsettled) || !strings.Contains(err.Error(), "f") {
		t.Fatalf("Abort = %v, want ErrUnsettled naming f", err)
	}
	wantFile(t, p, []byte("someone else's\n"), 0o644)
	entries, _ := s.List("s1", "")
	if len(entries) != 1 || entries[0].AfterSHA256 != sha("someone else's\n") || entries[0].BeforeSHA256 != sha("before\n") ||
		!strings.Contains(entries[0].Diff, "+someone else's") || !strings.Contains(entries[0].Diff, "note: recorded while settling") {
		t.Errorf("entries %+v", entries)
	}
	rt, err := s.BeginRestore("s1", "c1")
	if err != nil {
		t.Fatal(err)
	}
	if got := rt.Targets()[0].Before; string(got.Data) != "before\n" {
		t.Errorf("before bytes kept: %q", got.Data)
	}
	rt.Abort()
}

// restorePath is repeatable and puts the mode back along with the bytes.
func TestRestore(t *testing.T) {
	ws := t.TempDir()
	p := filepath.Join(ws, "d", "f")
	tests := []struct {
		name string
		st   State
	}{
		{"create with mode", State{Exists: true, Data: []byte("one"), Mode: 0o700}},
		{"replace and change mode", State{Exists: true, Data: []byte("two"), Mode: 0o640}},
		{"same again", State{Exists: true, Data: []byte("two"), Mode: 0o640}},
		{"remove", State{}},
		{"remove again", State{}},
	}
	for _, tc := range tests {
		if err := restorePath(p, tc.st); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var want []byte
		if tc.st.Exists {
			want = tc.st.Data
		}
		wantFile(t, p, want, tc.st.Mode)
	}
}

func TestObserveReadsOnlyWithinTheLimit(t *testing.T) {
	ws := t.TempDir()
	p := filepath.Join(ws, "f")
	writeFile(t, p, "0123456789", 0o640)
	tests := []struct {
		limit    int64
		wantData bool
	}{{10, true}, {9, false}, {100, true}}
	for _, tc := range tests {
		o, err := Observe(p, tc.limit)
		if err != nil || !o.Exists || !o.Regular || o.Size != 10 || o.Mode != 0o640 || (o.Data != nil) != tc.wantData {
			t.Errorf("Observe(limit %d) = %+v, %v", tc.limit, o, err)
		}
		if tc.wantData && o.SHA256 != sha("0123456789") {
			t.Errorf("sha %s", o.SHA256)
		}
	}
	if o, err := Observe(ws, 100); err != nil || !o.Exists || o.Regular {
		t.Errorf("Observe(dir) = %+v, %v", o, err)
	}
	if o, err := Observe(filepath.Join(ws, "none"), 100); err != nil || o.Exists {
		t.Errorf("Observe(absent) = %+v, %v", o, err)
	}
	if err := os.Symlink(p, filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	if o, _ := Observe(filepath.Join(ws, "link"), 100); o.Regular {
		t.Errorf("a symlink was followed: %+v", o)
	}
}
