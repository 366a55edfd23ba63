package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"time"
)

// editWithReviewIndex is the latency part of section 4: whole edit calls
// with the review store at its 20,000-entry cap beside the same calls with
// it empty, from cmd/hostd's BenchmarkEditWithReviewIndex, which runs the
// daemon's executor and memory governor in its own process. A full index
// once kept the heap at the soft limit and the collector running.
func editWithReviewIndex(ctx context.Context, o options, s *Section) {
	const goal = "edit latency, full review index (20,000 entries) / empty (median of rounds)"
	const goalCPU = "CPU per edit, full review index / empty (median of rounds)"
	const against = "the same edits with the review index empty"
	rounds, n := 9, 100
	if o.quick {
		rounds, n = 2, 20
	}
	args := []string{"test", "-run", "^$", "-bench", "^BenchmarkEditWithReviewIndex$", "-benchtime", strconv.Itoa(n) + "x", "-count", "1", "-timeout", "20m", "./cmd/hostd"}
	t0 := time.Now()
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = o.repo
	cmd.Env = append(os.Environ(), "HOSTD_BENCH_ROUNDS="+strconv.Itoa(rounds))
	out, err := cmd.CombinedOutput()
	wall := time.Since(t0).Round(100 * time.Millisecond)
	res := parseBench(string(out))
	if err != nil {
		s.Notes = append(s.Notes, fmt.Sprintf("`go test -bench` in cmd/hostd failed: %v: %s", err, lastLines(string(out), 3)))
	}
	t := Table{Title: "Whole edit call with the review index full vs empty (cmd/hostd BenchmarkEditWithReviewIndex)",
		Header: []string{"round", "empty: per edit", "full: per edit", "full / empty", "CPU per edit empty / full", "CPU full / empty", "collections per 100 edits empty / full", "soft limit empty / full"}}
	var ratios, cpuRatios []float64
	index := ""
	for r := 1; r <= rounds; r++ {
		e, eok := res[fmt.Sprintf("EditWithReviewIndex/empty/round=%d", r)]
		f, fok := res[fmt.Sprintf("EditWithReviewIndex/full/round=%d", r)]
		if !eok || !fok {
			continue
		}
		ratio := f.Metrics["ns/op"] / e.Metrics["ns/op"]
		cpu := f.Metrics["cpu-ms/op"] / e.Metrics["cpu-ms/op"]
		ratios, cpuRatios = append(ratios, ratio), append(cpuRatios, cpu)
		t.Add(strconv.Itoa(r), fmtDur(time.Duration(e.Metrics["ns/op"])), fmtDur(time.Duration(f.Metrics["ns/op"])), fmtRatio(ratio),
			fmt.Sprintf("%.2f / %.2f ms", e.Metrics["cpu-ms/op"], f.Metrics["cpu-ms/op"]), fmtRatio(cpu),
			fmt.Sprintf("%.1f / %.1f", 100*e.Metrics["gc-cycles/op"], 100*f.Metrics["gc-cycles/op"]),
			fmt.Sprintf("%.0f / %.0f MiB", e.Metrics["limit-MiB"], f.Metrics["limit-MiB"]))
		index = fmt.Sprintf("%.0f entries, %.1f MiB by review.Store.IndexBytes", f.Metrics["entries"], f.Metrics["index-MiB"])
	}
	if len(ratios) == 0 {
		s.Goals = append(s.Goals, skippedGoal(goal, "<= 1.30x", "the benchmark did not run").vs(against),
			skippedGoal(goalCPU, "<= 1.30x", "the benchmark did not run").vs(against))
		return
	}
	s.Goals = append(s.Goals, atMost(goal, median(ratios), 1.3, "x").vs(against),
		atMost(goalCPU, median(cpuRatios), 1.3, "x").vs(against))
	s.Tables = append(s.Tables, t)
	s.Notes = append(s.Notes, fmt.Sprintf("The full review index: %s. Edit rounds alternate empty and full, %d edits each; CPU per edit is the process's user and system time "+
		"(getrusage), the steadier figure, since it leaves out the time spent waiting in fsync; the full store is filled once (ten sessions, ten entries per call) "+
		"and reopened for each round, so an empty round has no index in its heap. Every edit fsyncs its review intent, the file, its directory "+
		"and the review record, so on a shared disk the absolute times move from round to round; the ratio is per round. "+
		"Command (%s): HOSTD_BENCH_ROUNDS=%d go %s", index, n, wall, rounds, shellJoin(args)))
}
