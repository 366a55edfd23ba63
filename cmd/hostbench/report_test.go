package main

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestGoalVerdicts(t *testing.T) {
	for _, tc := range []struct {
		g                 Goal
		measured, verdict string
	}{
		{atMost("x", 0.62, 0.75, "x"), "0.62x", "met"},
		{atMost("x", 0.81, 0.75, "x"), "0.81x", "NOT MET"},
		{atMost("x", 0.75, 0.75, "x"), "0.75x", "met"},
		{atLeast("x", 4.99, 5, "x"), "4.99x", "NOT MET"},
		{atLeast("x", 5.2, 5, "x"), "5.20x", "met"},
		{skippedGoal("x", ">= 5x", "Bun is not installed"), "", "not measured: Bun is not installed"},
	} {
		if got := tc.g.Verdict(); got != tc.verdict || tc.g.Measured != tc.measured {
			t.Errorf("%+v: measured %q, verdict %q; want %q, %q", tc.g, tc.g.Measured, got, tc.measured, tc.verdict)
		}
	}
	if g := atLeast("x", 0.7, 0.7, "x"); g.Target != ">= 0.70x" || !g.Met {
		t.Errorf("atLeast at the limit: %+v", g)
	}
	if g := atMost("x", 1, 2, "x").vs("ref"); g.Against != "ref" {
		t.Errorf("vs: %+v", g)
	}
}

func TestFormatting(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{fmtFloat(0.0158), "0.0158"},
		{fmtFloat(2.034), "2.03"},
		{fmtRatio(0.5), "0.50x"},
		{fmtDur(850 * time.Nanosecond), "850 ns"},
		{fmtDur(1234 * time.Microsecond), "1.23 ms"},
		{fmtDur(2500 * time.Millisecond), "2.5 s"},
		{fmtBytes(512), "0.5 KiB"},
		{fmtBytes(3 << 20), "3.0 MiB"},
		{fmtBytes(2048 << 20), "2048.0 MiB"},
		{fmtBytes(24 << 30), "24.0 GiB"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

func TestTableMarkdownEscapesPipes(t *testing.T) {
	tb := Table{Title: "T", Header: []string{"a", "b"}}
	tb.Add("x|y", "1")
	tb.Add("short") // a missing cell renders empty
	want := "**T**\n\n| a | b |\n| --- | --- |\n| x\\|y | 1 |\n| short |  |\n\n"
	if got := tb.markdown(); got != want {
		t.Errorf("markdown:\n%s\nwant:\n%s", got, want)
	}
}

func TestTableTextAligns(t *testing.T) {
	tb := Table{Header: []string{"name", "µs"}}
	tb.Add("a", "1")
	tb.Add("longer", "22")
	lines := strings.Split(strings.TrimSuffix(tb.text(), "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("text:\n%s", tb.text())
	}
	// Every column starts at the same rune offset on every line.
	col := strings.Index(lines[0], "µs")
	for _, l := range lines[1:] {
		if r := []rune(l); len(r) <= col || r[col-1] != ' ' || r[col] == ' ' {
			t.Errorf("misaligned line %q (column at %d)", l, col)
		}
	}
}

func TestSectionMarkdownIsItsDetail(t *testing.T) {
	s := &Section{Key: "tokens", Title: "T", Intro: "How.", Elapsed: 192 * time.Second,
		Goals:  []Goal{atMost("g", 0.9, 0.75, "x")},
		Tables: []Table{{Title: "Tab", Header: []string{"a"}, Rows: [][]string{{"1"}}}},
		Notes:  []string{"a note"}}
	md := s.Markdown(3)
	want := "## 3. T\n\nHow. This section took 3 min 12 s.\n\n**Tab**\n\n| a |\n| --- |\n| 1 |\n\n- a note\n\n"
	if md != want {
		t.Errorf("markdown:\n%s\nwant:\n%s", md, want)
	}
	// The goals are the dashboard's, not the section's: each appears once.
	if strings.Contains(md, "NOT MET") {
		t.Errorf("a section repeats its goals:\n%s", md)
	}
}

func TestParseBench(t *testing.T) {
	out := `goos: linux
BenchmarkReviewOverhead/write-alone-2         	      50	  16761229 ns/op	   0.24 MB/s
BenchmarkTailOpensslRatio-2   	       1	3031648042 ns/op	         0.64 x-openssl	2910000000 linewindow-ns/op
BenchmarkGrep/rg-j1/Literal-16 	5	 213000000 ns/op	 438.0 matches
--- SKIP: BenchmarkOpensslSHA256
    bench_test.go:153: openssl not installed
BenchmarkBroken-2 x 1 ns/op
PASS`
	got := parseBench(out)
	if len(got) != 3 {
		t.Fatalf("parsed %d results: %+v", len(got), got)
	}
	w := got["ReviewOverhead/write-alone"]
	if w.N != 50 || w.Metrics["ns/op"] != 16761229 || w.Metrics["MB/s"] != 0.24 {
		t.Errorf("write-alone: %+v", w)
	}
	if r := got["TailOpensslRatio"]; r.Metrics["x-openssl"] != 0.64 || r.Metrics["linewindow-ns/op"] != 2.91e9 {
		t.Errorf("custom metrics: %+v", r)
	}
	if r, ok := got["Grep/rg-j1/Literal"]; !ok || r.Metrics["matches"] != 438 {
		t.Errorf("the GOMAXPROCS suffix is not stripped: %+v", got)
	}
	if skips := skippedBenches(out); len(skips) != 1 || !strings.Contains(skips[0], "openssl not installed") {
		t.Errorf("skips: %q", skips)
	}
}

func TestParseOptions(t *testing.T) {
	var sink strings.Builder
	o, err := parseOptions([]string{"-sections", "host, tokens,host", "-quick", "-repo", "."}, &sink)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(o.sections, ",") != "host,tokens" || !o.quick {
		t.Errorf("options: %+v", o)
	}
	// The page holds one whole run: some sections write it only when
	// asked to write somewhere.
	if o.out != "" {
		t.Errorf("a run of some sections writes %q", o.out)
	}
	o, err = parseOptions([]string{"-sections", "host", "-out", "x.md", "-repo", "."}, &sink)
	if err != nil || o.out != "x.md" {
		t.Errorf("-out with -sections: %q, %v", o.out, err)
	}
	o, err = parseOptions([]string{"-repo", "."}, &sink)
	if err != nil || len(o.sections) != len(sectionDefs) || o.out != "docs/benchmarks.md" || o.base.ref != defaultBase {
		t.Errorf("defaults: %+v, %v", o, err)
	}
	// Nor does a smoke run of every section overwrite the committed page.
	o, err = parseOptions([]string{"-quick", "-repo", "."}, &sink)
	if err != nil || len(o.sections) != len(sectionDefs) || o.out != "" {
		t.Errorf("-quick writes %q (%v)", o.out, err)
	}
	o, err = parseOptions([]string{"-quick", "-out", "quick.md", "-repo", "."}, &sink)
	if err != nil || o.out != "quick.md" {
		t.Errorf("-quick -out quick.md writes %q (%v)", o.out, err)
	}
	if _, err := parseOptions([]string{"-sections", "speed", "-repo", "."}, &sink); err == nil || !strings.Contains(err.Error(), "unknown section") {
		t.Errorf("unknown section: %v", err)
	}
	if _, err := parseOptions([]string{"-render", "-out", "", "-repo", "."}, &sink); err == nil {
		t.Error("-render without a page was accepted")
	}
}

// FuzzParseBench holds parseBench to a simple oracle: a result line built
// from the fuzzed parts is read back exactly, and arbitrary text around it
// never panics the parser nor adds results.
func FuzzParseBench(f *testing.F) {
	f.Add("ReviewOverhead/write-alone", 50, 16761229.0, "ns/op", 0.24, "MB/s", "goos: linux\nPASS")
	f.Add("Grep/rg-j1/Literal", 5, 1.0, "matches", 2.5, "x-openssl", "--- SKIP: x\n\tBenchmark 1 2 3")
	f.Fuzz(func(t *testing.T, name string, n int, v1 float64, u1 string, v2 float64, u2 string, noise string) {
		ok := func(s string) bool {
			return s != "" && !strings.ContainsAny(s, " \t\n\r\v\f\u0085\u00a0") && utf8.ValidString(s)
		}
		if !ok(name) || !ok(u1) || !ok(u2) || u1 == u2 || n < 0 || v1 != v1 || v2 != v2 || strings.Contains(noise, "Benchmark") {
			return
		}
		line := fmt.Sprintf("Benchmark%s-2\t%d\t%g %s\t%g %s", name, n, v1, u1, v2, u2)
		got := parseBench(noise + "\n" + line + "\n" + noise)
		if len(got) != 1 {
			t.Fatalf("%q: %d results", line, len(got))
		}
		r, found := got[name]
		if !found || r.N != n || r.Metrics[u1] != v1 || r.Metrics[u2] != v2 {
			t.Fatalf("%q read back as %+v", line, got)
		}
	})
}

// TestReadFigures: the replay section reads the FIGURE lines of a go
// test -v output and nothing else.
func TestReadFigures(t *testing.T) {
	out := "=== RUN   TestReplayX\n" +
		"    replay_test.go:12: FIGURE history.wrong 0\n" +
		"    replay_test.go:13: FIGURE history.p50.off.ms 1.708734\n" +
		"    replay_test.go:14: FIGURE broken 1 2\n" +
		"    replay_test.go:15: FIGURE since.tokens.p50 not-a-number\n" +
		"    replay_test.go:16: edit p50 without feedback: 1.7ms\n"
	f := readFigures(out)
	want := figures{"history.wrong": 0, "history.p50.off.ms": 1.708734}
	if len(f) != len(want) || f["history.wrong"] != 0 || f["history.p50.off.ms"] != 1.708734 {
		t.Errorf("figures %v, want %v", f, want)
	}
	if !f.has("history.wrong") || f.has("since.tokens.p50") || f.count("history.wrong") != "0" {
		t.Errorf("has/count: %v", f)
	}
}
