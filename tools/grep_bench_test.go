package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/internal/testenv"
	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/session"
	"github.com/hostd-dev/hostd/workspace"
)

// The grep benchmarks search the Go standard library's source, a large
// tree every machine with Go has, with hostd and with ripgrep side by side
// in one run: hostd at its default thread count (limits.grepThreads 0, one
// per CPU) against rg at its default, and hostd held to one thread against
// rg -j1:
//
//	go test ./tools -run '^$' -bench 'BenchmarkGrep' -benchtime 5x
//
// Besides ns/op each reports cpu-ms/op: user+system CPU time per search
// (rusage of this process for hostd, of the rg child for ripgrep), and
// matches, which must be ripgrep's.

// goSource is $(go env GOROOT)/src, or "" when it cannot be found.
func goSource(tb testing.TB) string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		testenv.Missing(tb, "the Go source tree is needed (go env GOROOT: %v): install Go", err)
	}
	return filepath.Join(strings.TrimSpace(string(out)), "src")
}

var grepBenchPatterns = []struct{ name, pattern string }{
	{"Literal", "ErrUnexpectedEOF"},
	{"Regex", `func \(\w+ \*\w+\) Write\w*\(`},
	{"RegexNoLiteral", `\b[a-z]+[0-9]{4,}[a-z]+\b`},
}

func BenchmarkGrep(b *testing.B) {
	src := goSource(b)
	rg, rgErr := exec.LookPath("rg")
	for _, p := range grepBenchPatterns {
		rgMatches := -1 // what ripgrep found, which hostd must find too
		for _, threads := range []int{0, 1} {
			suffix := ""
			if threads == 1 {
				suffix = "-j1"
			}
			b.Run("rg"+suffix+"/"+p.name, func(b *testing.B) {
				if rgErr != nil {
					b.Skip("ripgrep is not installed (apt-get install ripgrep)")
				}
				var matches int
				var cpu time.Duration
				for b.Loop() {
					n, c := ripgrepOnce(b, rg, threads, p.pattern, src)
					matches, cpu = n, cpu+c
				}
				rgMatches = matches
				b.ReportMetric(float64(matches), "matches")
				b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
			})
			b.Run("hostd"+suffix+"/"+p.name, func(b *testing.B) {
				grep := newBenchGrep(b, src, threads, p.pattern)
				var matches int
				start := cpuTime()
				for b.Loop() {
					matches = grep()
				}
				if rgMatches >= 0 && matches != rgMatches {
					b.Errorf("hostd found %d matching lines, ripgrep %d", matches, rgMatches)
				}
				b.ReportMetric(float64(matches), "matches")
				b.ReportMetric(float64((cpuTime()-start).Milliseconds())/float64(b.N), "cpu-ms/op")
			})
		}
	}
}

// BenchmarkAgainstRipgrep makes BenchmarkGrep's comparisons with hostd and
// ripgrep timed alternately in one loop, each first in turn, so that both
// see the same load on a shared machine (BenchmarkGrep times five of one
// and then five of the other, seconds apart):
//
//	go test ./tools -run '^$' -bench BenchmarkAgainstRipgrep -benchtime 5x
//
// Each reports hostd's and ripgrep's wall time per search (hostd-ms/op,
// rg-ms/op) and CPU time (hostd-cpu-ms/op, rg-cpu-ms/op: this process's
// during hostd's searches, the child's for rg), their ratios (x-rg,
// x-rg-cpu) and the matching lines, which must be ripgrep's.
func BenchmarkAgainstRipgrep(b *testing.B) {
	src := goSource(b)
	rg, err := exec.LookPath("rg")
	if err != nil {
		b.Skip("ripgrep is not installed (apt-get install ripgrep)")
	}
	for _, p := range grepBenchPatterns {
		for _, threads := range []int{0, 1} {
			name := p.name
			if threads == 1 {
				name += "-j1"
			}
			b.Run(name, func(b *testing.B) {
				grep := newBenchGrep(b, src, threads, p.pattern)
				var hWall, rWall, hCPU, rCPU time.Duration
				var hMatches, rMatches, n int
				hostd := func() {
					t0, c0 := time.Now(), cpuTime()
					hMatches = grep()
					hWall, hCPU = hWall+time.Since(t0), hCPU+cpuTime()-c0
				}
				ripgrep := func() {
					t0 := time.Now()
					m, c := ripgrepOnce(b, rg, threads, p.pattern, src)
					rWall, rCPU, rMatches = rWall+time.Since(t0), rCPU+c, m
				}
				for b.Loop() {
					if n%2 == 0 {
						ripgrep()
						hostd()
					} else {
						hostd()
						ripgrep()
					}
					n++
				}
				if hMatches != rMatches {
					b.Errorf("hostd found %d matching lines, ripgrep %d", hMatches, rMatches)
				}
				ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(n) }
				b.ReportMetric(ms(hWall), "hostd-ms/op")
				b.ReportMetric(ms(rWall), "rg-ms/op")
				b.ReportMetric(float64(hWall)/float64(rWall), "x-rg")
				b.ReportMetric(ms(hCPU), "hostd-cpu-ms/op")
				b.ReportMetric(ms(rCPU), "rg-cpu-ms/op")
				b.ReportMetric(float64(hCPU)/float64(rCPU), "x-rg-cpu")
				b.ReportMetric(float64(hMatches), "matches")
			})
		}
	}
}

// ripgrepOnce runs rg over src as a child process, at its default thread
// count or, for threads 1, with -j1, and returns the matching lines it
// printed and the child's CPU time.
func ripgrepOnce(b *testing.B, rg string, threads int, pattern, src string) (int, time.Duration) {
	args := []string{"--no-config", "-n"}
	if threads == 1 {
		args = append(args, "-j1")
	}
	cmd := exec.Command(rg, append(args, pattern, src)...)
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("rg: %v", err)
	}
	return bytes.Count(out, []byte{'\n'}), cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

// newBenchGrep returns a grep of pattern over src through the executor,
// with limits.grepThreads set to threads, which returns the matching
// lines it found.
func newBenchGrep(b *testing.B, src string, threads int, pattern string) func() int {
	lim := config.DefaultLimits()
	lim.GrepThreads = threads
	ws, err := workspace.New(src, "", nil)
	if err != nil {
		b.Skip(err)
	}
	m := session.NewManager(lim)
	s, _ := m.Create("", ws)
	x := NewExecutor(Options{Sessions: m, Limits: lim, Tools: Builtin()})
	args, _ := json.Marshal(map[string]string{"pattern": pattern})
	return func() int {
		out, err := x.Execute(context.Background(), Request{SessionID: s.ID, Tool: "grep", Args: args})
		if err != nil || !out.Base().OK {
			b.Fatalf("grep failed: %v %s", err, out.Base().Content)
		}
		return len(out.(*wire.GrepResult).Matches)
	}
}

// TestGrepAgreesWithRipgrep checks grep's results against ripgrep's on a
// real tree of plain text (a package of the Go standard library).
func TestGrepAgreesWithRipgrep(t *testing.T) {
	rg := testenv.Ripgrep(t)
	dir := filepath.Join(goSource(t), "encoding", "json")
	lim := config.DefaultLimits()
	ws, err := workspace.New(dir, "", nil)
	if err != nil {
		testenv.Missing(t, "the Go source tree's encoding/json is needed: %v", err)
	}
	m := session.NewManager(lim)
	s, _ := m.Create("", ws)
	x := NewExecutor(Options{Sessions: m, Limits: lim, Tools: Builtin()})
	for _, p := range append(grepBenchPatterns, struct{ name, pattern string }{"Anchored", `^\s*return nil, \w+$`}) {
		args, _ := json.Marshal(map[string]string{"pattern": p.pattern})
		out, err := x.Execute(context.Background(), Request{SessionID: s.ID, Tool: "grep", Args: args})
		if err != nil || !out.Base().OK {
			t.Fatalf("grep %s: %v", p.pattern, err)
		}
		var got []string
		for _, mt := range out.(*wire.GrepResult).Matches {
			got = append(got, mt.Path+":"+strconv.Itoa(mt.Line))
		}
		cmd := exec.Command(rg, "-j1", "--no-config", "-n", "--no-heading", "--with-filename", p.pattern, ".")
		cmd.Dir = dir
		raw, _ := cmd.Output()
		var want []string
		for _, l := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
			if f := strings.SplitN(l, ":", 3); len(f) == 3 {
				want = append(want, strings.TrimPrefix(f[0], "./")+":"+f[1])
			}
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: hostd found %d lines, ripgrep %d", p.name, len(got), len(want))
		}
	}
}
