package main

import (
	"context"
	"fmt"
	"iter"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// goBenchSection is the figures the packages' own Go
// benchmarks produce, each beside the reference it is held to, run by
// `go test -bench` from this command and parsed.
func goBenchSection(ctx context.Context, o options) *Section {
	s := &Section{}
	s.Intro = "Run from this command with `go test -run '^$' -bench PATTERN -benchtime N PACKAGE` and parsed; each " +
		"command is listed so a figure can be reproduced alone. Ratios are hostd's time over the reference's."
	cmds := Table{Title: "Commands", Header: []string{"package", "command", "wall time"}}
	run := func(pkg, pattern string, n, quickN int) map[string]benchResult {
		if o.quick {
			n = quickN
		}
		args := []string{"test", "-run", "^$", "-bench", pattern, "-benchtime", strconv.Itoa(n) + "x", "-count", "1", "-timeout", "20m", "./" + pkg}
		t0 := time.Now()
		cmd := exec.CommandContext(ctx, "go", args...)
		cmd.Dir = o.repo
		out, err := cmd.CombinedOutput()
		cmds.Add(pkg, "go "+shellJoin(args), time.Since(t0).Round(100*time.Millisecond).String())
		res := parseBench(string(out))
		if err != nil {
			s.Notes = append(s.Notes, fmt.Sprintf("`go test -bench` in %s failed: %v: %s", pkg, err, lastLines(string(out), 3)))
		}
		for _, skip := range skippedBenches(string(out)) {
			s.Notes = append(s.Notes, pkg+": "+skip)
		}
		return res
	}

	// Read of a 50-line window at the end of a 1 GiB file, beside openssl.
	const goalTail, againstOpenssl = "read tail of 1 GiB vs openssl SHA-256", "`openssl dgst -sha256` of the same file, in alternating runs"
	const goalHeap, againstHeap = "peak heap reading 1 GiB", "a fixed bound: the read holds one chunk and its window, whatever the file's size"
	lw := run("tools/linewindow", "^Benchmark(ReadTail1GiB|TailOpensslRatio)$", 3, 1)
	t := Table{Title: "Read the last 50 lines of a 1 GiB file vs `openssl dgst -sha256` of it (tools/linewindow)", Header: []string{"measure", "value"}}
	if r, ok := lw["TailOpensslRatio"]; ok {
		ratio := r.Metrics["x-openssl"]
		t.Add("hostd read (whole file hashed and validated)", fmtDur(time.Duration(r.Metrics["linewindow-ns/op"])))
		t.Add("openssl dgst -sha256", fmtDur(time.Duration(r.Metrics["openssl-ns/op"])))
		t.Add("ratio, alternating runs", fmtRatio(ratio))
		s.Goals = append(s.Goals, atMost(goalTail, ratio, 1.3, "x").vs(againstOpenssl))
	} else {
		s.Goals = append(s.Goals, skippedGoal(goalTail, "<= 1.30x", "benchmark did not run").vs(againstOpenssl))
	}
	if r, ok := lw["ReadTail1GiB"]; ok {
		peak := r.Metrics["peak-heap-B"]
		t.Add("throughput", fmt.Sprintf("%.0f MB/s", r.Metrics["MB/s"]))
		t.Add("peak live heap while reading", fmtBytes(int64(peak)))
		s.Goals = append(s.Goals, atMost(goalHeap, peak/(1<<20), 64, " MiB").vs(againstHeap))
	} else {
		s.Goals = append(s.Goals, skippedGoal(goalHeap, "<= 64.00 MiB", "benchmark did not run").vs(againstHeap))
	}
	s.Tables = append(s.Tables, t)

	// grep over the Go standard library's source vs ripgrep: at the default
	// thread counts, and both held to one thread: at most 1.0x each.
	gr := run("tools", "^BenchmarkGrep$", 5, 1)
	t = Table{Title: "grep over $GOROOT/src vs ripgrep, at the default thread counts and both held to one (tools)",
		Header: []string{"pattern", "hostd", "ripgrep", "ratio hostd / rg", "matches hostd / rg"}}
	for _, side := range []struct{ hostd, rg, label string }{
		{"hostd", "rg", "ripgrep"},
		{"hostd-j1", "rg-j1", "ripgrep -j1"},
	} {
		against := "`rg` on the same tree, same pattern (its own thread count)"
		if side.rg == "rg-j1" {
			against = "`rg -j1` on the same tree, same pattern"
		}
		for _, p := range []string{"Literal", "Regex", "RegexNoLiteral"} {
			goal := "grep " + p + " " + side.hostd + " vs " + side.label
			h, hok := gr["Grep/"+side.hostd+"/"+p]
			r, rok := gr["Grep/"+side.rg+"/"+p]
			label := p + ", " + side.hostd + " vs " + side.rg
			switch {
			case hok && rok:
				ratio := h.Metrics["ns/op"] / r.Metrics["ns/op"]
				t.Add(label, fmtDur(time.Duration(h.Metrics["ns/op"])), fmtDur(time.Duration(r.Metrics["ns/op"])), fmtRatio(ratio),
					fmt.Sprintf("%.0f / %.0f", h.Metrics["matches"], r.Metrics["matches"]))
				s.Goals = append(s.Goals, atMost(goal, ratio, 1, "x").vs(against))
			case hok:
				t.Add(label, fmtDur(time.Duration(h.Metrics["ns/op"])), "not run", "", "")
				s.Goals = append(s.Goals, skippedGoal(goal, "<= 1.00x", "ripgrep is not installed").vs(against))
			default:
				t.Add(label, "not run", "", "", "")
				s.Goals = append(s.Goals, skippedGoal(goal, "<= 1.00x", "the benchmark did not run").vs(against))
			}
		}
	}
	s.Tables = append(s.Tables, t)

	// Review overhead.
	rv := run("review", "^BenchmarkReviewOverhead$", 200, 20)
	t = Table{Title: "Review overhead on a 4 KiB file (review)", Header: []string{"what", "per call", "vs the write alone"}}
	base := rv["ReviewOverhead/write-alone"].Metrics["ns/op"]
	for _, row := range []struct{ key, label string }{
		{"write-alone", "atomic write alone (fsync, rename, fsync dir)"},
		{"review-fsync", "review Begin + Commit, fsynced (the daemon's setting)"},
		{"review-nosync", "review Begin + Commit without fsync"},
		{"edit-review-off", "edit file work, review off"},
		{"edit-review-on", "edit file work, review on"},
	} {
		r, ok := rv["ReviewOverhead/"+row.key]
		if !ok {
			continue
		}
		rel := ""
		if base > 0 {
			rel = fmtRatio(r.Metrics["ns/op"] / base)
		}
		t.Add(row.label, fmtDur(time.Duration(r.Metrics["ns/op"])), rel)
	}
	if off, on := rv["ReviewOverhead/edit-review-off"], rv["ReviewOverhead/edit-review-on"]; off.N > 0 && on.N > 0 {
		t.Add("edit with review / edit without", "", fmtRatio(on.Metrics["ns/op"]/off.Metrics["ns/op"]))
	}
	s.Tables = append(s.Tables, t)

	// Drift recovery, blocks, and the edit language.
	t = Table{Title: "Drift recovery, block ops and the edit language", Header: []string{"benchmark", "per op", "note"}}
	for name, r := range sortedBench(run("tools/drift", "^BenchmarkRecover50kLines100Changes$", 5, 1)) {
		t.Add("drift "+name, fmtDur(time.Duration(r.Metrics["ns/op"])), "diff + anchor check, 50,000 lines")
	}
	const againstParse = "one full tree-sitter parse of the same file, in process"
	if hasBenchmarks(filepath.Join(o.repo, "tools", "blocks")) {
		bl := run("tools/blocks", "^Benchmark(Parse5000|BlockOp5000|BlockOps20x5000)$", 50, 5)
		parse, op := bl["Parse5000"].Metrics["ns/op"], bl["BlockOp5000"].Metrics["ns/op"]
		for name, r := range sortedBench(bl) {
			t.Add("blocks "+name, fmtDur(time.Duration(r.Metrics["ns/op"])), "5,000-line TypeScript file")
		}
		if parse > 0 && op > 0 {
			s.Goals = append(s.Goals, atMost("block op vs one tree-sitter parse", op/parse, 1.2, "x").vs(againstParse))
		} else {
			s.Goals = append(s.Goals, skippedGoal("block op vs one tree-sitter parse", "<= 1.20x", "benchmark did not run").vs(againstParse))
		}
	} else {
		s.Notes = append(s.Notes, "tools/blocks has no benchmarks in this checkout: block op vs parse not measured.")
	}
	for name, r := range sortedBench(run("tools/hashline", "^Benchmark(ParseApply|Parse50Ops)", 500, 50)) {
		t.Add("hashline "+name, fmtDur(time.Duration(r.Metrics["ns/op"])), fmt.Sprintf("%.0f allocs/op", r.Metrics["allocs/op"]))
	}
	s.Tables = append(s.Tables, t, cmds)
	return s
}

// benchResult is one line of `go test -bench` output.
type benchResult struct {
	Name    string // without the Benchmark prefix and the -GOMAXPROCS suffix
	N       int
	Metrics map[string]float64 // by unit: ns/op, MB/s, B/op, custom units
}

// parseBench reads benchmark result lines; everything else is ignored.
func parseBench(out string) map[string]benchResult {
	res := map[string]benchResult{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		n, err := strconv.Atoi(f[1])
		if err != nil {
			continue
		}
		name := strings.TrimPrefix(f[0], "Benchmark")
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			if _, err := strconv.Atoi(name[i+1:]); err == nil {
				name = name[:i]
			}
		}
		r := benchResult{Name: name, N: n, Metrics: map[string]float64{}}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				break
			}
			r.Metrics[f[i+1]] = v
		}
		res[name] = r
	}
	return res
}

// skippedBenches finds "--- SKIP" reasons in the output.
func skippedBenches(out string) []string {
	var skips []string
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if strings.Contains(l, "--- SKIP:") && i+1 < len(lines) {
			skips = append(skips, strings.TrimSpace(strings.TrimPrefix(l, "--- SKIP:"))+": "+strings.TrimSpace(lines[i+1]))
		}
	}
	return skips
}

// sortedBench iterates results in name order.
func sortedBench(m map[string]benchResult) iter.Seq2[string, benchResult] {
	return func(yield func(string, benchResult) bool) {
		for _, n := range slices.Sorted(maps.Keys(m)) {
			if !yield(n, m[n]) {
				return
			}
		}
	}
}

// hasBenchmarks reports whether a package directory has a benchmark.
func hasBenchmarks(dir string) bool {
	files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err == nil && strings.Contains(string(data), "func Benchmark") {
			return true
		}
	}
	return false
}

// shellJoin quotes arguments for a command line a person can paste.
func shellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if strings.ContainsAny(a, " ^$|()*") {
			a = "'" + a + "'"
		}
		out[i] = a
	}
	return strings.Join(out, " ")
}
