package main

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/internal/benchkit"
	"github.com/hostd-dev/hostd/internal/memgov"
	"github.com/hostd-dev/hostd/tools"
	"github.com/hostd-dev/hostd/tools/blocks"
	"github.com/hostd-dev/hostd/tools/hashline"
	"github.com/hostd-dev/hostd/workspace"
)

// referenceSection is hostd's edit language against the
// reference implementation, @oh-my-pi/hashline under Bun, on the same
// 5,000-line file and the same edits, both timed in process in this run.
func referenceSection(ctx context.Context, o options) *Section {
	s := &Section{}
	s.Intro = "Both sides apply the same edits to the same 5,000-line file. hostd's pure apply is `hashline.Run`, the edit " +
		"language's one composed pipeline (parse, then `hashline.Plan`: lower, resolve blocks, expand, validate, boundary repair; " +
		"then apply), lines in and lines out, with the syntax checker the daemon gives a file of this name (`bench.txt`: no grammar, " +
		"so repair finds nothing to check), timed in this process; the goal is held to it. " +
		"hostd's side runs under the daemon's own collector policy (memgov.Start, as hostd runs it: with the few MiB live here, " +
		"one collection per 48 MiB allocated, where the runtime's default target collects every 4 MiB); Run is also timed " +
		"under the default target (GOGC=100), as `go test -bench` runs it, and shown beside. " +
		"Because the reference's applier takes and returns text, hostd is also timed on the text path the edit tool takes, " +
		"bytes in and bytes out: `tools.EditPath`, which decodes the file (UTF-8 and NUL check, BOM, line endings; edit-contract §3.1), " +
		"indexes its lines (offsets into the bytes, no string per line), runs the same pipeline (`hashline.Plan`) and then " +
		"`tools.EditText`, the edit tool's own text step (apply, the final newline, the new file encoded from the runs of untouched " +
		"lines, each copied with its own bytes, and the new rows). The tool runs exactly these functions, with its version and " +
		"provenance gates between the pipeline's steps; the tag's digest is the version gate, not the text path, and the " +
		"reference's loop computes none either. " +
		"Goals: Run at least 5x and the text path at least 2x. The reference runs `Patch.parseSingle` + `applyEdits` " +
		"inside one Bun process (bench/omp-apply.ts), " +
		"timed there with `Bun.nanoseconds`, so process start and module loading are excluded. Each side's patch is in " +
		"its own syntax: the reference's carries its `[PATH#TAG]` header with its own xxHash32 tag. Each figure is the " +
		"median of timed rounds after a warm-up; each round times hostd and then the reference back to back, and the ratio " +
		"(reference time / hostd time) is the median of the per-round ratios."
	goalNames := []string{"hostd apply vs reference, single op", "hostd apply vs reference, 50 ops",
		"hostd text path (the edit tool's) vs reference, single op", "hostd text path (the edit tool's) vs reference, 50 ops"}
	goalTargets := []string{">= 5.00x", ">= 5.00x", ">= 2.00x", ">= 2.00x"}
	const against = "the reference's parse + apply of the same edits (@oh-my-pi/hashline under Bun)"
	for _, v := range []string{"GOGC", "GOMEMLIMIT"} {
		if x := os.Getenv(v); x != "" {
			s.Notes = append(s.Notes, fmt.Sprintf("%s=%s is set in the environment: the daemon's collector policy defers to it, so hostd's side ran under it.", v, x))
		}
	}
	bun, note, err := ensureBun(ctx, o)
	if note != "" {
		s.Notes = append(s.Notes, note)
	}
	if err != nil {
		s.Notes = append(s.Notes, "not measured: "+err.Error())
		for i, n := range goalNames {
			s.Goals = append(s.Goals, skippedGoal(n, goalTargets[i], "Bun is not installed (cd bench && npm install)").vs(against))
		}
		return s
	}
	job := refJob{Path: "bench.txt", Text: refText(5000), Warmup: 200, Iterations: 1000, Rounds: 5}
	if o.quick {
		job.Warmup, job.Iterations, job.Rounds = 20, 100, 1
	}
	job.Patches = []refPatch{
		{Name: "single op (replace 2 lines with 2)", Ops: "PUT 2500.=2501:\n+\tvalue := replaced()\n+\tuse(value)\n"},
		{Name: "50 ops (replace, insert after, cut, insert before)", Ops: benchkit.SpreadOps(50, 5000)},
	}
	// The machine is shared, so its load drifts: each round times hostd and
	// then the reference back to back, and the ratio is the median of the
	// per-round ratios.
	rounds := job.Rounds
	job.Rounds = 1
	var ref refOutput
	host := make([]hostTiming, len(job.Patches))
	ratios := make([][]float64, len(job.Patches))     // reference / Run alone
	defRatios := make([][]float64, len(job.Patches))  // reference / Run alone at GOGC=100
	toolRatios := make([][]float64, len(job.Patches)) // reference / the edit tool's text path
	for r := 0; r < rounds; r++ {
		for i, p := range job.Patches {
			if err := timeHostd(ctx, job, p.Ops, &host[i]); err != nil {
				s.Notes = append(s.Notes, fmt.Sprintf("hostd failed on %q: %v", p.Name, err))
				for i, n := range goalNames {
					s.Goals = append(s.Goals, skippedGoal(n, goalTargets[i], "hostd failed").vs(against))
				}
				return s
			}
		}
		out, err := runReference(ctx, o, bun, job)
		if err != nil {
			s.Notes = append(s.Notes, "the reference run failed: "+err.Error())
			for i, n := range goalNames {
				s.Goals = append(s.Goals, skippedGoal(n, goalTargets[i], "the reference run failed").vs(against))
			}
			return s
		}
		for i := range job.Patches {
			ns := out.Results[i].RoundsNs[0]
			if r == 0 {
				ref.Results = append(ref.Results, out.Results[i])
			} else {
				ref.Results[i].RoundsNs = append(ref.Results[i].RoundsNs, ns)
			}
			ratios[i] = append(ratios[i], ns/float64(host[i].runOnly[r]))
			defRatios[i] = append(defRatios[i], ns/float64(host[i].runDefault[r]))
			toolRatios[i] = append(toolRatios[i], ns/float64(host[i].toolPath[r]))
		}
		ref.Bun, ref.Hashline = out.Bun, out.Hashline
	}
	job.Rounds = rounds
	t := Table{Header: []string{"patch", "hostd hashline.Run", "hostd text path, the edit tool's (tools.EditPath: decode, index, hashline.Plan, tools.EditText)",
		"reference parse + apply", "ratio reference / Run", "ratio reference / tool's text path", "same output",
		"hostd hashline.Run at GOGC=100", "ratio reference / Run at GOGC=100"}}
	var textGoals []Goal
	for i, p := range job.Patches {
		r := ref.Results[i]
		per := time.Duration(job.Iterations)
		refPer := median(toDurations(r.RoundsNs)) / per
		ratio := median(ratios[i])
		same := "yes"
		if host[i].sha256 != r.SHA256 {
			same = "NO: the outputs differ"
		}
		toolRatio := median(toolRatios[i])
		t.Add(p.Name, fmtDur(median(host[i].runOnly)/per), fmtDur(median(host[i].toolPath)/per), fmtDur(refPer),
			fmtRatio(ratio), fmtRatio(toolRatio), same,
			fmtDur(median(host[i].runDefault)/per), fmtRatio(median(defRatios[i])))
		s.Goals = append(s.Goals, atLeast(goalNames[i], ratio, 5, "x").vs(against))
		textGoals = append(textGoals, atLeast(goalNames[len(job.Patches)+i], toolRatio, 2, "x").vs(against))
		if len(r.Warnings) > 0 {
			s.Notes = append(s.Notes, fmt.Sprintf("the reference warned on %q: %s", p.Name, strings.Join(r.Warnings, "; ")))
		}
	}
	s.Goals = append(s.Goals, textGoals...)
	s.Tables = append(s.Tables, t)
	s.Notes = append(s.Notes, fmt.Sprintf("%d applications per round, %d rounds, %d warm-up applications per patch; Bun %s, @oh-my-pi/hashline %s.",
		job.Iterations, job.Rounds, job.Warmup, ref.Bun, ref.Hashline))
	return s
}

// refJob is the job file the Bun driver reads.
type refJob struct {
	Path       string     `json:"path"`
	Text       string     `json:"text"`
	Warmup     int        `json:"warmup"`
	Iterations int        `json:"iterations"`
	Rounds     int        `json:"rounds"`
	Patches    []refPatch `json:"patches"`
}

type refPatch struct {
	Name string `json:"name"`
	Ops  string `json:"ops"`
}

// refOutput is what the Bun driver prints.
type refOutput struct {
	Bun      string `json:"bun"`
	Hashline string `json:"hashline"`
	Results  []struct {
		Name     string    `json:"name"`
		SHA256   string    `json:"sha256"`
		Warnings []string  `json:"warnings"`
		RoundsNs []float64 `json:"roundsNs"`
	} `json:"results"`
}

// refText is a source-like file of n lines.
func refText(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "\tvalue%d := compute(%d, \"line\") // %d\n", i, i*7, i)
	}
	return b.String()
}

// ensureBun returns the pinned Bun, installing bench/ with npm when its
// node_modules is absent. npm ci cannot be used: @oh-my-pi/pi-natives
// lists platform packages the registry does not serve, so no lockfile can
// hold them all; npm install with the committed lockfile installs exactly
// the pinned versions and leaves the lockfile as it is.
func ensureBun(ctx context.Context, o options) (bun, note string, err error) {
	bun = filepath.Join(o.benchDir, "node_modules", ".bin", "bun")
	if _, err := os.Stat(bun); err == nil {
		return bun, "", nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", "", fmt.Errorf("bench/node_modules is absent and npm is not installed; install Node.js, then run: (cd bench && npm install)")
	}
	fmt.Fprintln(o.log, "hostbench: installing Bun and @oh-my-pi/hashline: (cd bench && npm install)")
	cmd := exec.CommandContext(ctx, npm, "install", "--no-audit", "--no-fund")
	cmd.Dir = o.benchDir
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", "", fmt.Errorf("(cd bench && npm install) failed: %v: %s", err, lastLines(string(out), 5))
	}
	if _, err := os.Stat(bun); err != nil {
		return "", "", fmt.Errorf("npm install did not install Bun at %s", bun)
	}
	return bun, "bench/node_modules was absent: this run installed it with `npm install` from the committed lockfile.", nil
}

func runReference(ctx context.Context, o options, bun string, job refJob) (refOutput, error) {
	var out refOutput
	dir, err := os.MkdirTemp("", "hostbench-ref-")
	if err != nil {
		return out, err
	}
	defer os.RemoveAll(dir)
	data, err := json.Marshal(job)
	if err != nil {
		return out, err
	}
	jobPath := filepath.Join(dir, "job.json")
	if err := os.WriteFile(jobPath, data, 0o600); err != nil {
		return out, err
	}
	cmd := exec.CommandContext(ctx, bun, "run", filepath.Join(o.benchDir, "omp-apply.ts"), jobPath)
	cmd.Dir = o.benchDir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	raw, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("bun: %v: %s", err, lastLines(stderr.String(), 5))
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return out, fmt.Errorf("the driver's output is not JSON: %v", err)
	}
	if len(out.Results) != len(job.Patches) {
		return out, fmt.Errorf("the driver returned %d results for %d patches", len(out.Results), len(job.Patches))
	}
	return out, nil
}

// hostTiming is hostd's side of one patch, accumulated over rounds.
type hostTiming struct {
	toolPath []time.Duration // the edit tool's text path, tools.EditPath: bytes in, bytes out
	runOnly  []time.Duration // hashline.Run alone on lines split beforehand
	// runDefault is Run alone under the runtime's default collection
	// target (GOGC=100), as `go test -bench` times it; the others run
	// under the daemon's collector policy (memgov).
	runDefault []time.Duration
	sha256     string
}

// timeHostd times one round of ops on the job's text: hashline.Run,
// lines in and lines out, and the edit tool's text path (tools.EditPath),
// bytes in and bytes out. Both run the edit language's one pipeline, with
// the syntax checker the daemon builds for the job's path on every call,
// as the tool does. Run is timed first under the runtime's default
// collection target, then everything under the daemon's collector policy
// (memgov.Start), which it stops on return. The tag's digest is not in the
// path: it is the version gate, and the reference's loop computes no tag
// either.
func timeHostd(ctx context.Context, job refJob, ops string, h *hostTiming) error {
	lim := hashline.DefaultLimits()
	maxParse := config.DefaultLimits().MaxBlockParseBytes
	env := func() hashline.Env {
		env := hashline.Env{Limits: lim}
		if syn, err := blocks.NewSyntax(job.Path, job.Text, maxParse); err == nil {
			env.Syntax = syn
		}
		return env
	}
	raw := []byte(job.Text)
	tool := func() ([]byte, error) { return tools.EditPath(raw, ops, env()) }
	out, err := tool()
	if err != nil {
		return err
	}
	lines := workspace.Lines(job.Text)
	res, err := hashline.Run(lines, ops, env())
	if err != nil {
		return err
	}
	if !bytes.Equal(out, []byte(workspace.Join(res.Lines, true))) {
		return fmt.Errorf("hashline.Run and the edit tool's text path gave different texts")
	}
	sum := sha256.Sum256(out)
	h.sha256 = hex.EncodeToString(sum[:])
	for range job.Warmup {
		tool()
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	// Each timed loop starts from a collected heap, as testing.B does, so
	// it does not pay for the garbage of the loop before it; the Bun
	// driver does the same with Bun.gc.
	runtime.GC()
	t0 := time.Now()
	for range job.Iterations {
		hashline.Run(lines, ops, env())
	}
	h.runDefault = append(h.runDefault, time.Since(t0))
	// The rest runs under the daemon's collector policy, as hostd runs
	// them: with a small heap, one collection per memgov.Headroom
	// allocated rather than one per 4 MiB.
	defer memgov.Start(config.DefaultLimits(), memgov.Sources{})()
	runtime.GC()
	t0 = time.Now()
	for range job.Iterations {
		hashline.Run(lines, ops, env())
	}
	h.runOnly = append(h.runOnly, time.Since(t0))
	runtime.GC()
	t0 = time.Now()
	for range job.Iterations {
		tool()
	}
	h.toolPath = append(h.toolPath, time.Since(t0))
	return nil
}

func toDurations(ns []float64) []time.Duration {
	out := make([]time.Duration, len(ns))
	for i, n := range ns {
		out[i] = time.Duration(n)
	}
	return out
}

// median of a list of times or ratios: the upper middle for an even
// count, zero for none.
func median[T cmp.Ordered](xs []T) T {
	if len(xs) == 0 {
		var zero T
		return zero
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " / ")
}
