package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/internal/testenv"
	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/tools/grep"
)

// grepTree writes the same tree of awkward files into each env: CRLF and
// BOM files, NUL bytes early and late, Latin-1, clipped long lines, empty
// files, an ignored directory, a symlinked file, and files of many matches
// and of none, spread over nested directories.
func grepTree(seed uint64, envs ...*prodEnv) {
	rng := rand.New(rand.NewPCG(seed, 7))
	words := []string{"alpha", "beta", "needle", "Needle", "NEEDLE", "x1234y", "func (s *T) Write(", "tab\there", "é"}
	files := map[string]string{
		".gitignore":         "ignored/\n*.log\n",
		"ignored/hit.txt":    "needle\n",
		"a.log":              "needle\n",
		"bom.txt":            "\xEF\xBB\xBFneedle first\r\nbeta\r\nneedle again\r\n",
		"crlf.txt":           "alpha\r\nneedle\r\n\r\nNeedle\r\n",
		"nul-byte.txt":       "needle\x00\n",
		"latin1.txt":         "needle \xe9t\xe9\n",
		"empty.txt":          "",
		"long.txt":           "needle " + strings.Repeat("z", 300) + "\nneedle short\n",
		"noeol.txt":          "beta\nneedle",
		"deep/a/b/c/d/e.txt": "needle deep\n",
	}
	for i := range 160 {
		var b strings.Builder
		for range rng.IntN(30) {
			for range 1 + rng.IntN(5) {
				b.WriteString(words[rng.IntN(len(words))])
				b.WriteByte(' ')
			}
			b.WriteByte('\n')
		}
		files[fmt.Sprintf("d%d/s%d/f%03d.txt", i%5, i%3, i)] = b.String()
	}
	for _, e := range envs {
		for rel, content := range files {
			e.put(rel, content)
		}
		if err := os.Symlink("crlf.txt", filepath.Join(e.root, "link.txt")); err != nil {
			e.t.Fatal(err)
		}
	}
}

// The results of a grep on many goroutines are those of a grep on one:
// the same matches in the same order, the same truncation and notice, the
// same files searched, and the same versions recorded in the store, under
// every bound that stops a grep early.
func TestGrepParallelMatchesSequential(t *testing.T) {
	type bounds struct {
		name string
		set  func(*config.Limits)
	}
	for _, b := range []bounds{
		{"defaults", func(*config.Limits) {}},
		{"fewResults", func(l *config.Limits) { l.MaxGrepMatches = 37 }},
		{"smallAnswer", func(l *config.Limits) { l.MaxResultBytes = 3000 }},
		{"smallRetention", func(l *config.Limits) { l.MaxRetainedBytesPerSession = 700; l.MaxRetainedFileBytes = 300 }},
		{"clipped", func(l *config.Limits) { l.MaxLineChars = 24 }},
		{"smallFiles", func(l *config.Limits) { l.MaxGrepFileBytes = 200 }},
	} {
		t.Run(b.name, func(t *testing.T) {
			var envs []*prodEnv
			for _, threads := range []int{1, 2, 5} {
				lim := config.DefaultLimits()
				b.set(&lim)
				lim.GrepThreads = threads
				envs = append(envs, newProdEnv(t, lim))
			}
			grepTree(1, envs...)
			for _, args := range []string{
				`{"pattern":"needle"}`,
				`{"pattern":"needle","ignoreCase":true}`,
				`{"pattern":"needle","headLimit":5}`,
				`{"pattern":"e","outputMode":"filesWithMatches"}`,
				`{"pattern":"e","outputMode":"count","headLimit":40}`,
				`{"pattern":"\\b[a-z]+[0-9]{4,}[a-z]+\\b"}`,
				`{"pattern":"func \\(\\w+ \\*\\w+\\) Write\\w*\\("}`,
				`{"pattern":"^$"}`,
				`{"pattern":"needle","path":"d1"}`,
				`{"pattern":"needle","glob":"**/s2/*.txt"}`,
				`{"pattern":"no such text anywhere"}`,
			} {
				want := grepSnapshot(envs[0], args)
				for _, e := range envs[1:] {
					if got := grepSnapshot(e, args); got != want {
						i := 0
						for i < min(len(got), len(want)) && got[i] == want[i] {
							i++
						}
						t.Fatalf("%s with %d threads differs from one at byte %d:\n%s\nwith one:\n%s", args, e.lim.GrepThreads, i, clipAround(got, i), clipAround(want, i))
					}
				}
			}
		})
	}
}

// grepSnapshot is a grep's whole result and the store after it, with the
// env's root taken out of the paths.
func grepSnapshot(e *prodEnv, args string) string {
	e.t.Helper()
	r := e.grep(args)
	r.ToolResult = wire.ToolResult{Content: r.Content}
	out, err := json.Marshal(struct {
		R     *wire.GrepResult
		Store any
	}{r, e.s.State().Store.Dump()})
	if err != nil {
		e.t.Fatal(err)
	}
	root, _ := json.Marshal(e.root) // as the JSON spells it: Windows' separators escaped
	return recordedAt.ReplaceAllString(strings.ReplaceAll(string(out), string(root[1:len(root)-1]), "ROOT"), "")
}

var recordedAt = regexp.MustCompile(`"RecordedAt":"[^"]*"`)

func clipAround(s string, i int) string { return s[max(0, i-300):min(len(s), i+300)] }

// A grep that stops early, at its limit or cancelled, leaves no goroutine
// and no open descriptor behind.
func TestGrepParallelStopsCleanly(t *testing.T) {
	lim := config.DefaultLimits()
	lim.GrepThreads = 4
	e := newProdEnv(t, lim)
	for i := range 400 {
		e.put(fmt.Sprintf("d%d/e%d/f%03d.txt", i%7, i%4, i), "hit\nhit\n")
	}
	e.grep(`{"pattern":"hit","headLimit":1}`) // warm up the runtime's own goroutines
	goroutines, fds := runtime.NumGoroutine(), openFDs(t)
	for range 5 {
		if r := e.grep(`{"pattern":"hit","headLimit":3}`); len(r.Matches) != 3 || !r.Truncated {
			t.Fatalf("headLimit 3: %d matches, truncated %v", len(r.Matches), r.Truncated)
		}
		r := e.callCtx(newCancelAfter(40), "grep", `{"pattern":"hit"}`).Base()
		if r.OK || !strings.Contains(r.Error.Message, "cancelled") {
			t.Fatalf("cancelled grep: ok=%v %+v", r.OK, r.Error)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if r := e.callCtx(ctx, "grep", `{"pattern":"hit"}`).Base(); r.OK {
			t.Fatal("a grep with a cancelled context succeeded")
		}
	}
	testenv.Poll(5*time.Second, func() bool { return runtime.NumGoroutine() <= goroutines })
	if n := runtime.NumGoroutine(); n > goroutines {
		t.Errorf("%d goroutines after the greps, %d before", n, goroutines)
	}
	if n := openFDs(t); n > fds {
		t.Errorf("%d open descriptors after the greps, %d before", n, fds)
	}
	if d := e.s.State().Store.Dump(); len(d) != 2 {
		t.Errorf("the store holds %d paths; the cancelled greps recorded something", len(d))
	}
}

func openFDs(t *testing.T) int {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("cannot count open descriptors: %v", err)
	}
	return len(entries)
}

// A searcher collects, per file, every match the call's bounds could take
// and one more, so that exactly at a bound the answer is whole and just
// past it truncated, on one goroutine and on many.
func TestGrepFileBoundsAtTheEdge(t *testing.T) {
	for _, threads := range []int{1, 3} {
		lim := config.DefaultLimits()
		lim.MaxGrepMatches = 4
		lim.GrepThreads = threads
		e := newProdEnv(t, lim)
		e.put("a/four.txt", strings.Repeat("hit\n", 4))
		e.put("b/five.txt", strings.Repeat("hit\n", 5))
		if r := e.grep(`{"pattern":"hit","path":"a"}`); len(r.Matches) != 4 || r.Truncated {
			t.Errorf("%d threads: a file of exactly the limit's matches: %d shown, truncated %v", threads, len(r.Matches), r.Truncated)
		}
		if r := e.grep(`{"pattern":"hit","path":"b"}`); len(r.Matches) != 4 || !r.Truncated {
			t.Errorf("%d threads: a file of one match past the limit: %d shown, truncated %v", threads, len(r.Matches), r.Truncated)
		}

		// Matches that fill most of the answer's byte bound are all shown;
		// twice as many stop at the bound.
		lim = config.DefaultLimits()
		lim.MaxResultBytes = 4096
		lim.GrepThreads = threads
		e = newProdEnv(t, lim)
		line := "hit " + strings.Repeat("y", 60) + "\n"
		n := int(lim.MaxResultBytes*3/4) / int(grep.MatchCost("a/fill.txt", line))
		e.put("a/fill.txt", strings.Repeat(line, n))
		e.put("b/over.txt", strings.Repeat(line, 2*n))
		if r := e.grep(`{"pattern":"hit","path":"a"}`); len(r.Matches) != n || r.Truncated {
			t.Errorf("%d threads: %d matches in 3/4 of the byte bound: %d shown, truncated %v", threads, n, len(r.Matches), r.Truncated)
		}
		if r := e.grep(`{"pattern":"hit","path":"b"}`); len(r.Matches) <= n || len(r.Matches) >= 2*n || !r.Truncated || !strings.Contains(r.Notice, "byte") {
			t.Errorf("%d threads: %d matches over the byte bound: %d shown, truncated %v, %q", threads, 2*n, len(r.Matches), r.Truncated, r.Notice)
		}
	}
}

// A large file is read first only as far as the binary check looks: a NUL
// there skips it; past there it is text, searched to its end.
func TestGrepLargeFilesBinaryProbe(t *testing.T) {
	for _, threads := range []int{1, 2} {
		lim := config.DefaultLimits()
		lim.GrepThreads = threads
		e := newProdEnv(t, lim)
		filler := strings.Repeat("filler line of text\n", 10000) // 200 KB
		e.put("bin.dat", "\x00"+filler+"hit\n")
		e.put("late.txt", filler+"\x00 hit\n")
		e.put("text.txt", filler+"hit\n")
		r := e.grep(`{"pattern":"hit"}`)
		if strings.Join(r.Files, ",") != "late.txt,text.txt" || r.FilesSearched != 3 || r.Matches[1].Line != 10001 {
			t.Errorf("%d threads: files %v, %d searched, matches %+v", threads, r.Files, r.FilesSearched, r.Matches)
		}
		e.failure("grep", `{"pattern":"hit","path":"bin.dat"}`, wire.ToolNotText)
	}
}
