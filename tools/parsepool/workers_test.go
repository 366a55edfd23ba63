package parsepool

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"golang.org/x/tools/txtar"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/internal/testenv"
	"github.com/hostd-dev/hostd/tools/blocks"
)

// The tests of the worker pool start this test binary as its workers
// (TestMain serves the worker mode under workerEnv), with the parse hook
// of tools/blocks (hook.go) standing for grammars that abort, spin or eat memory.

// ownerKey carries a test call's owner in its context.
type ownerKey struct{}

func withOwner(ctx context.Context, owner string) context.Context {
	return context.WithValue(ctx, ownerKey{}, owner)
}

// workerCommand starts this test binary as a worker, with the hook.
func workerCommand(hook string) func() (*exec.Cmd, error) {
	return func() (*exec.Cmd, error) {
		cmd, err := SelfCommand("-test.run=^$")
		if err != nil {
			return nil, err
		}
		cmd.Env = append(os.Environ(), workerEnv+"=1", blocks.TestHookEnv+"="+hook)
		return cmd, nil
	}
}

// newTestWorkers is a pool of count workers of this test binary with the
// hook, closed when the test ends.
func newTestWorkers(t testing.TB, count int, hook string, tune ...func(*WorkersConfig)) *Workers {
	t.Helper()
	cfg := WorkersConfig{
		Command:        workerCommand(hook),
		Count:          count,
		MaxTreeBytes:   config.DefaultLimits().MaxParseTreeBytes,
		MaxMemoryBytes: config.DefaultLimits().MaxParseWorkerBytes,
		Owner: func(ctx context.Context) string {
			s, _ := ctx.Value(ownerKey{}).(string)
			return s
		},
	}
	for _, f := range tune {
		f(&cfg)
	}
	w, err := NewWorkers(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	return w
}

// withBudget is a context with an edit call's parse time.
func withBudget(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// TestWorkersAnswerAsInProcess: through the workers, every line of the
// test data resolves (or declines) exactly as in-process, and the
// outline and the syntax check agree.
func TestWorkersAnswerAsInProcess(t *testing.T) {
	w := newTestWorkers(t, 2, "")
	archives, _ := filepath.Glob("../blocks/testdata/*.txtar") // the grammars' test data
	if len(archives) == 0 {
		t.Fatal("no test data in ../blocks/testdata")
	}
	if raceEnabled {
		archives = archives[:len(archives)/4]
	}
	files := 0
	for _, path := range archives {
		ar, err := txtar.ParseFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range ar.Files {
			files++
			text := string(f.Data)
			ctx := context.Background()
			local, err := blocks.NewResolver(f.Name, text, defaultLimit)
			if err != nil {
				t.Fatal(err)
			}
			remote, err := w.NewResolver(ctx, f.Name, text, defaultLimit)
			if err != nil {
				t.Fatal(err)
			}
			for line := 0; line <= blocks.CountLines(text)+1; line++ {
				s1, e1, err1 := local.Resolve(line)
				s2, e2, err2 := remote.Resolve(line)
				if s1 != s2 || e1 != e2 || fmt.Sprint(err1) != fmt.Sprint(err2) || !sameKind(err1, err2) {
					t.Fatalf("%s line %d: in-process %d-%d %v, worker %d-%d %v", f.Name, line, s1, e1, err1, s2, e2, err2)
				}
			}
			local.Close()
			remote.Close()
			d1, err1 := blocks.OutlineLines(ctx, f.Name, text, defaultLimit, 1, 0)
			d2, err2 := w.OutlineLines(ctx, f.Name, text, defaultLimit, 1, 0)
			if !reflect.DeepEqual(d1, d2) || fmt.Sprint(err1) != fmt.Sprint(err2) || !sameKind(err1, err2) {
				t.Fatalf("%s: outline in-process %v %v, worker %v %v", f.Name, d1, err1, d2, err2)
			}
			syn, _ := w.NewSyntax(ctx, f.Name, text, defaultLimit)
			broken := text + "\n)]}\"'\n"
			for _, tx := range []string{text, broken} {
				sup1, clean1 := blocks.Check(f.Name, tx, defaultLimit)
				sup2, clean2 := syn.Check(tx)
				if sup1 != sup2 || clean1 != clean2 {
					t.Fatalf("%s: check in-process %v/%v, worker %v/%v", f.Name, sup1, clean1, sup2, clean2)
				}
			}
			syn.Release()
		}
	}
	if st := w.Stats(); st.Ended != 0 {
		t.Errorf("workers ended while answering %d files: %+v", files, st)
	}
}

func sameKind(a, b error) bool {
	for _, k := range wireKinds[1:] {
		if errors.Is(a, k) != errors.Is(b, k) {
			return false
		}
	}
	return true
}

// TestWorkersParseEachVersionOnce: the worker keeps the trees, so a
// version is parsed once however many resolvers ask about it, the next
// version incrementally, and a repair's checks from the cached tree.
func TestWorkersParseEachVersionOnce(t *testing.T) {
	w := newTestWorkers(t, 2, "")
	ctx := context.Background()
	text := "function a() {\n  return 1;\n}\n\nfunction b() {\n  return 2;\n}\n"
	for range 3 {
		r, _ := w.NewResolver(ctx, "x.ts", text, defaultLimit)
		for _, line := range []int{1, 5} {
			if s, e, err := r.Resolve(line); err != nil || s != line || e != line+2 {
				t.Fatalf("line %d: %d-%d %v", line, s, e, err)
			}
		}
		r.Close()
	}
	edited := strings.Replace(text, "return 2", "return 22", 1)
	r, _ := w.NewResolver(ctx, "x.ts", edited, defaultLimit)
	if _, _, err := r.Resolve(5); err != nil {
		t.Fatal(err)
	}
	r.Close()
	syn, _ := w.NewSyntax(ctx, "x.ts", edited, defaultLimit)
	if sup, clean := syn.Check(strings.Replace(edited, "}\n\nfunction b", "\nfunction b", 1)); !sup || clean {
		t.Fatalf("a candidate without its closer: supported %v clean %v", sup, clean)
	}
	syn.Release()
	st, err := w.TreeStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// One full parse; the edit and the candidate incrementally; every
	// other request a hit (a resolver's second line reuses its own tree).
	if st.Full != 1 || st.Incremental != 2 || st.Hits < 3 {
		t.Errorf("tree stats %+v: want 1 full parse, 2 incremental, hits for the repeated versions", st)
	}
}

// TestAnOverrunEndsItsWorker: a parse that does not stop (the hook spins,
// as a grammar's error recovery that reads no clock does) is answered at
// its parse time plus killGrace by ending its worker; the worker is gone,
// a new one replaces it, and the next parse is served.
func TestAnOverrunEndsItsWorker(t *testing.T) {
	w := newTestWorkers(t, 1, "spin:SPIN-FOREVER")
	ok, _ := w.NewResolver(context.Background(), "ok.lua", "local function f()\n  return 1\nend\n", defaultLimit)
	if _, _, err := ok.Resolve(1); err != nil {
		t.Fatal(err)
	}
	ok.Close()
	victim := w.Stats().PIDs
	const budget = 300 * time.Millisecond
	r, _ := w.NewResolver(withBudget(t, budget), "junk.lua", "x = 1 -- SPIN-FOREVER\n'''\n", defaultLimit)
	// The parse never stops by itself: the answer (an event) comes only
	// once the pool has ended the worker for its overrun.
	_, _, err := r.Resolve(1)
	if !errors.Is(err, blocks.ErrParseTime) || !strings.Contains(err.Error(), "parse was ended") {
		t.Fatalf("the overrunning parse answered %v", err)
	}
	if len(victim) != 1 || pidAlive(victim[0]) {
		t.Fatalf("the overrunning worker %v still runs after its call was answered", victim)
	}
	if _, _, err := r.Resolve(2); !errors.Is(err, blocks.ErrParseTime) {
		t.Errorf("the same resolver's next line: %v; the file-wide decline holds", err)
	}
	r.Close()
	waitFor(t, "a worker to replace the ended one", func() bool { return w.Stats().Running == 1 })
	again, _ := w.NewResolver(context.Background(), "ok.lua", "local function f()\n  return 1\nend\n", defaultLimit)
	defer again.Close()
	if s, e, err := again.Resolve(1); err != nil || s != 1 || e != 3 {
		t.Fatalf("after the overrun: %d-%d %v", s, e, err)
	}
	if st := w.Stats(); st.Overruns != 1 || st.Starts != 2 || st.Deaths != 0 {
		t.Errorf("stats %+v: want one overrun and one restart", st)
	}
}

// TestAnAbortEndsOneRequest: a grammar that aborts (the hook calls the C
// library's abort) ends its worker and that request alone: the block op
// is declined naming the file, the syntax check reports that it could not
// be made (not that the text does not parse), and the next request is
// served by a new worker.
func TestAnAbortEndsOneRequest(t *testing.T) {
	w := newTestWorkers(t, 1, "abort:ABORT-HERE")
	ctx := context.Background()
	text := "def f():\n    return 1  # ABORT-HERE\n"
	r, _ := w.NewResolver(ctx, "crash.py", text, defaultLimit)
	_, _, err := r.Resolve(1)
	r.Close()
	if !errors.Is(err, blocks.ErrParserFailed) || !strings.Contains(err.Error(), "crash.py") || !strings.Contains(err.Error(), "parser process ended") {
		t.Fatalf("the aborting parse answered %v; want a decline naming the file", err)
	}
	syn, _ := w.NewSyntax(ctx, "crash.py", "def g():\n    pass\n", defaultLimit)
	sup, clean := syn.Check(text)
	if sup || clean || syn.Unavailable() == "" || syn.Spent() {
		t.Errorf("check of the aborting text: supported %v clean %v unavailable %q spent %v; want unavailable", sup, clean, syn.Unavailable(), syn.Spent())
	}
	if sup, clean := syn.Check("def g():\n    pass\n"); !sup || !clean {
		t.Errorf("the next check: supported %v clean %v", sup, clean)
	}
	syn.Release()
	if st := w.Stats(); st.Deaths != 2 || st.Overruns != 0 {
		t.Errorf("stats %+v: want two deaths", st)
	}
}

// TestAWorkerPastItsMemoryLimitEnds: a parse that allocates without end
// is stopped by the worker's memory limit, and answered as a decline.
func TestAWorkerPastItsMemoryLimitEnds(t *testing.T) {
	if underWine() {
		t.Skip("wine does not enforce a job object's process memory limit")
	}
	w := newTestWorkers(t, 1, "alloc:EAT-MEMORY", func(c *WorkersConfig) { c.MaxMemoryBytes = 256 << 20 }) // under the hook's 1 GiB
	r, _ := w.NewResolver(withBudget(t, 20*time.Second), "big.json", "{\"EAT-MEMORY\": 1}\n", defaultLimit)
	defer r.Close()
	start := time.Now()
	_, _, err := r.Resolve(1)
	if !errors.Is(err, blocks.ErrParserFailed) {
		t.Fatalf("the allocating parse answered %v after %v; want the worker ended by its memory limit", err, time.Since(start))
	}
	t.Logf("ended after %v: %v", time.Since(start), err)
}

// TestACancelledCallEndsItsWorker: a call cancelled while its parse runs
// ends the worker at once.
func TestACancelledCallEndsItsWorker(t *testing.T) {
	w := newTestWorkers(t, 1, "spin:SPIN-FOREVER")
	ok, _ := w.NewResolver(context.Background(), "ok.lua", "local function f()\n  return 1\nend\n", defaultLimit)
	if _, _, err := ok.Resolve(1); err != nil { // the worker runs
		t.Fatal(err)
	}
	ok.Close()
	ctx, cancel := context.WithTimeout(withOwner(context.Background(), "caller"), time.Minute)
	r, _ := w.NewResolver(ctx, "junk.lua", "x = 1 -- SPIN-FOREVER\n'''\n", defaultLimit)
	defer r.Close()
	// The call is cancelled once its request is with the worker, which
	// spins for good: within its minute, only the cancel can end it.
	go func() {
		testenv.Poll(time.Minute, func() bool { return w.busyOwner("caller") })
		cancel()
	}()
	if _, _, err := r.Resolve(1); !errors.Is(err, blocks.ErrParseTime) {
		t.Fatalf("the cancelled parse answered %v", err)
	}
	if ctx.Err() != context.Canceled {
		t.Fatalf("answered before the cancel: %v", ctx.Err())
	}
	if st := w.Stats(); st.Overruns != 0 {
		t.Errorf("stats %+v: a worker was ended for an overrun, not for the cancel", st)
	}
}

// pidAlive reports whether process pid runs (a zombie does not).
func pidAlive(pid int) bool {
	if runtime.GOOS != "linux" {
		return processAlive(pid)
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(stat), ") ")
	return !strings.HasPrefix(rest, "Z")
}

// waitFor waits up to 30 s for cond.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	testenv.Until(t, 30*time.Second, what, cond)
}

// TestAWorkerThatDiedIdleCostsNoCall: a worker ended while it served no
// one (by hand, by the system) is replaced before the next request, which
// is served.
func TestAWorkerThatDiedIdleCostsNoCall(t *testing.T) {
	w := newTestWorkers(t, 1, "")
	ctx := context.Background()
	text := "function f() {\n  return 1;\n}\n"
	resolve := func(path string) error {
		r, _ := w.NewResolver(ctx, path, text, defaultLimit)
		defer r.Close()
		_, _, err := r.Resolve(1)
		return err
	}
	if err := resolve("a.js"); err != nil {
		t.Fatal(err)
	}
	pid := w.Stats().PIDs[0]
	p, err := os.FindProcess(pid)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the pool to reap the worker", func() bool {
		if runtime.GOOS == "linux" {
			_, err := os.Stat(fmt.Sprintf("/proc/%d", pid))
			return err != nil
		}
		return !pidAlive(pid)
	})
	time.Sleep(50 * time.Millisecond) // the pool's wait returned just before
	if err := resolve("b.js"); err != nil {
		t.Fatalf("the first request after the idle worker died: %v", err)
	}
	if st := w.Stats(); st.Starts != 2 {
		t.Errorf("stats %+v: want the dead worker replaced", st)
	}
}

// TestDeltaRebuildsTheText: a check sends what differs from the file;
// the worker rebuilds the candidate from it byte for byte, and the cut
// never splits a character.
func TestDeltaRebuildsTheText(t *testing.T) {
	base := strings.Repeat("const ä = \"日本\";\n", 400)
	cases := []string{
		base,
		"",
		"x" + base,
		base + "y",
		strings.Replace(base, "日本", "日本語", 1),
		strings.Replace(base, "ä", "a", 7),
		base[:len(base)/2] + "\n}\n" + base[len(base)/2:],
		strings.Repeat("本", 10),
	}
	for i, text := range cases {
		p, s, mid := blocks.Delta(base, text)
		if got := base[:p] + mid + base[len(base)-s:]; got != text {
			t.Errorf("case %d: rebuilt %d bytes, want %d", i, len(got), len(text))
		}
		if !utf8.ValidString(mid) {
			t.Errorf("case %d: the middle %q splits a character", i, mid)
		}
		if len(text) > 100 && len(mid) > len(text)/2 && i != 2 && i != 3 {
			t.Errorf("case %d: %d of %d bytes sent", i, len(mid), len(text))
		}
	}
}

// TestWorkerChecksOfLargeTextsMatch: the checks of a repair on a large
// file (sent as deltas) answer as in-process.
func TestWorkerChecksOfLargeTextsMatch(t *testing.T) {
	var sb strings.Builder
	for i := range 500 {
		fmt.Fprintf(&sb, "function f%d(a: number): number {\n  const s = \"ü%d\";\n  return a + %d;\n}\n", i, i, i)
	}
	text := sb.String()
	w := newTestWorkers(t, 2, "")
	syn, _ := w.NewSyntax(context.Background(), "big.ts", text, defaultLimit)
	defer syn.Release()
	for i, tx := range keptCloserChecks(t, text, 1001) {
		sup1, clean1 := blocks.Check("big.ts", tx, defaultLimit)
		sup2, clean2 := syn.Check(tx)
		if !sup1 || sup1 != sup2 || clean1 != clean2 {
			t.Errorf("check %d: in-process %v/%v, worker %v/%v", i, sup1, clean1, sup2, clean2)
		}
	}
}
