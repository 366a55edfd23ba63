package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// replaySection is the figures of the replay of real edits (the tests
// under HOSTD_REPLAY in package tools, docs/testing.md "Replay of this
// repository's history"): syntax feedback judged against each commit's
// own file, its cost, how often broken fixture fixes are flagged at the
// break, and reads since a tag. The tests log each figure as a FIGURE
// line, which this section reads.
func replaySection(ctx context.Context, o options) *Section {
	s := &Section{}
	args := []string{"test", "-run", "^TestReplay", "-v", "-count", "1", "-timeout", "30m", "./tools"}
	s.Intro = "Real edits replayed through the edit tool, with the daemon's executor and parse workers (processes of the " +
		"test binary): every file a commit of this repository's last 40 commits modified, in a language with a grammar, " +
		"sent as one `edit` from its pre-image to its post-image; the 106 fixes of the TypeScript fixture corpus, as a " +
		"model sends them; and those fixes broken by their last row; the valid-code corpus of the shared folder " +
		"(released code of 29 languages: its files written, its real changes edited in one call and hunk by hunk, and " +
		"broken by an unbalanced bracket or a dropped closing row). Run from this command with `HOSTD_REPLAY=1 go " +
		shellJoin(args) + "` and read from its FIGURE lines; HOSTD_REPLAY=long replays the whole history. A flag is " +
		"wrong when a fresh parse of the file the commit (or fix) left has no error there. An edit's time is the " +
		"`tools.execute` call's, with syntax feedback and without (the executor given no feedback function: the edit " +
		"as it was before feedback), each on its own copy of the file, read through the read tool first; \"settled\" " +
		"edits once the parse the read started has finished, as after a model's turn, \"at once\" right after the read."
	t0 := time.Now()
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = o.repo
	// The page's figures are back to back: no think time, whatever the
	// environment says (docs/testing.md has the runs with it).
	cmd.Env = append(os.Environ(), "HOSTD_REPLAY=1", "HOSTD_REPLAY_THINK=")
	out, err := cmd.CombinedOutput()
	f := readFigures(string(out))
	if err != nil {
		s.Notes = append(s.Notes, fmt.Sprintf("the replay failed: %v: %s", err, lastLines(string(out), 5)))
	}
	for _, skip := range skippedBenches(string(out)) {
		s.Notes = append(s.Notes, "tools: "+skip)
	}

	const againstPost = "a fresh parse of the file the commit left"
	const againstOff = "the same edit with no syntax feedback, same run"
	history := Table{Title: "This repository's history (the last 40 commits)", Header: []string{"figure", "value"}}
	if f.has("history.edits") {
		history.Add("file edits replayed, landed byte-exact each way", fmt.Sprintf("%s, %s", f.count("history.edits"), f.count("history.landed")))
		history.Add("flags (edits flagged)", fmt.Sprintf("%s (%s)", f.count("history.flags"), f.count("history.flagged")))
		history.Add("flags with no error there in the post-image", f.count("history.wrong"))
		history.Add("post-images with syntax errors of their own", f.count("history.brokenPosts"))
		history.Add("feedback not made (a worker overran or ended)", f.count("history.uncheckable"))
		off, settled, atOnce := f["history.p50.off.ms"], f["history.p50.settled.ms"], f["history.p50.atonce.ms"]
		history.Add("edit p50 without feedback", fmtMs(off))
		history.Add("edit p50 with feedback, settled", fmt.Sprintf("%s (%s)", fmtMs(settled), fmtRatio(settled/off)))
		history.Add("edit p50 with feedback, at once", fmt.Sprintf("%s (%s)", fmtMs(atOnce), fmtRatio(atOnce/off)))
		s.Goals = append(s.Goals,
			atMost("history: flags where the post-image has no error", f["history.wrong"], 0, "").vs(againstPost),
			atMost("history: edit p50 with feedback, settled", settled/off, 1.5, "x").vs(againstOff),
			atMost("history: edit p50 with feedback, at once", atOnce/off, 2, "x").vs(againstOff))
	} else {
		s.Goals = append(s.Goals,
			skippedGoal("history: flags where the post-image has no error", "<= 0.00", "the history replay did not run").vs(againstPost),
			skippedGoal("history: edit p50 with feedback, settled", "<= 1.50x", "the history replay did not run").vs(againstOff),
			skippedGoal("history: edit p50 with feedback, at once", "<= 2.00x", "the history replay did not run").vs(againstOff))
	}
	s.Tables = append(s.Tables, history)

	fixes := Table{Title: "The 106 TypeScript fixture fixes, and the same fixes broken by their last row", Header: []string{"figure", "value"}}
	if f.has("fixes.count") {
		on, off := f["fixes.p50.on.ms"], f["fixes.p50.off.ms"]
		fixes.Add("fixes: flags, of them where the fixed file has no error", fmt.Sprintf("%s, %s", f.count("fixes.flags"), f.count("fixes.wrong")))
		fixes.Add("fix p50 settled, with feedback / without", fmt.Sprintf("%s / %s (%s)", fmtMs(on), fmtMs(off), fmtRatio(on/off)))
		s.Goals = append(s.Goals, atMost("fixes: edit p50 with feedback, settled", on/off, 1.5, "x").vs(againstOff))
	} else {
		s.Goals = append(s.Goals, skippedGoal("fixes: edit p50 with feedback, settled", "<= 1.50x", "the fixture replay did not run").vs(againstOff))
	}
	for _, kind := range []string{"bracket", "drop"} {
		const againstBreak = "the first line where the file differs from the fixed one"
		goal := "broken fixes, " + kind + ": flagged within 2 lines of the break"
		k := "broken." + kind + "."
		if !f.has(k + "broken") {
			s.Goals = append(s.Goals, skippedGoal(goal, ">= 95.00%", "the fixture replay did not run").vs(againstBreak))
			continue
		}
		pct := 100 * f[k+"right"] / max(f[k+"broken"], 1)
		fixes.Add(kind+": variants, broken, flagged within 2 lines", fmt.Sprintf("%s, %s, %s (%.1f%%)", f.count(k+"made"), f.count(k+"broken"), f.count(k+"right"), pct))
		fixes.Add(kind+": of those, starting within 2 lines; lines of the flag, median", fmt.Sprintf("%s; %s", f.count(k+"startsAt"), f.count(k+"span.p50")))
		fixes.Add(kind+": variants left unbroken that were flagged", f.count(k+"flaggedClean"))
		s.Goals = append(s.Goals, atLeast(goal, pct, 95, "%").vs(againstBreak))
	}
	s.Tables = append(s.Tables, fixes)

	corpus := Table{Title: "The valid-code corpus (released code of 29 languages: its files written, its real changes edited)", Header: []string{"figure", "value"}}
	const againstValid = "released code, valid in its own build"
	if f.has("corpus.edits") {
		corpus.Add("files written; flagged", fmt.Sprintf("%s; %s", f.count("corpus.files"), f.count("corpus.files.flagged")))
		corpus.Add("changes edited in one call; flagged; given an unsure note", fmt.Sprintf("%s; %s; %s", f.count("corpus.edits"), f.count("corpus.edits.flagged"), f.count("corpus.edits.unsure")))
		corpus.Add("changes edited as a chain of one call per hunk; last call flagged", fmt.Sprintf("%s; %s", f.count("corpus.chains"), f.count("corpus.chains.flagged")))
		corpus.Add("old errors reported as new", f.count("corpus.oldAsNew"))
		corpus.Add("breakages that broke the file; caught within 2 lines (of them as an error)", fmt.Sprintf("%s; %s (%s)", f.count("corpus.broken"), f.count("corpus.caught"), f.count("corpus.caught.sure")))
		corpus.Add("one-call edit p50 settled, with feedback / without", fmt.Sprintf("%s / %s (%s)", fmtMs(f["corpus.p50.on.ms"]), fmtMs(f["corpus.p50.off.ms"]), fmtRatio(f["corpus.p50.on.ms"]/f["corpus.p50.off.ms"])))
		s.Goals = append(s.Goals,
			atMost("corpus: valid results flagged", f["corpus.edits.flagged"]+f["corpus.chains.flagged"]+f["corpus.files.flagged"], 0, "").vs(againstValid),
			atMost("corpus: old errors reported as new", f["corpus.oldAsNew"], 0, "").vs("the version before the change, or the chain's first"),
			atLeast("corpus: breakages caught within 2 lines", 100*f["corpus.caught"]/max(f["corpus.broken"], 1), 95, "%").vs("the first line where the file differs from the valid one"))
	} else {
		s.Goals = append(s.Goals,
			skippedGoal("corpus: valid results flagged", "<= 0.00", "the corpus replay did not run").vs(againstValid),
			skippedGoal("corpus: old errors reported as new", "<= 0.00", "the corpus replay did not run").vs("the version before the change, or the chain's first"),
			skippedGoal("corpus: breakages caught within 2 lines", ">= 95.00%", "the corpus replay did not run").vs("the first line where the file differs from the valid one"))
	}
	s.Tables = append(s.Tables, corpus)

	since := Table{Title: "read since a tag, after a commit the session missed", Header: []string{"figure", "value"}}
	const againstWhole = "a whole read of the same version (paged at the read limit), cl100k_base tokens"
	if f.has("since.reads") {
		since.Add("since reads (answered as a plain read)", fmt.Sprintf("%s (%s)", f.count("since.reads"), f.count("since.plain")))
		since.Add("since / whole read tokens, median", fmtFloat(f["since.tokens.p50"]))
		since.Add("next commit's edit applied with no other read", fmt.Sprintf("%s of %s", f.count("since.next.applied"), f.count("since.next")))
		since.Add("of those anchored only on lines the diff left unchanged", fmt.Sprintf("%s of %s", f.count("since.unchanged.applied"), f.count("since.unchanged")))
		s.Goals = append(s.Goals,
			atMost("since read tokens / whole read, median", f["since.tokens.p50"], 0.2, "x").vs(againstWhole),
			atLeast("next edit on unchanged lines applied with no other read", 100*f["since.unchanged.applied"]/max(f["since.unchanged"], 1), 100, "%").vs("every such edit"))
	} else {
		s.Goals = append(s.Goals,
			skippedGoal("since read tokens / whole read, median", "<= 0.20x", "the since replay did not run").vs(againstWhole),
			skippedGoal("next edit on unchanged lines applied with no other read", ">= 100.00%", "the since replay did not run").vs("every such edit"))
	}
	s.Tables = append(s.Tables, since)
	s.Notes = append(s.Notes, fmt.Sprintf("the replay took %s; the history it covers grows with each commit, so its counts change from run to run", time.Since(t0).Round(100*time.Millisecond)))
	return s
}

// figures are a replay's FIGURE lines: key to value.
type figures map[string]float64

// readFigures collects the "FIGURE key value" lines of a go test -v
// output; a line that does not parse is left out.
func readFigures(out string) figures {
	f := figures{}
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		_, rest, ok := strings.Cut(sc.Text(), "FIGURE ")
		if !ok {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) != 2 {
			continue
		}
		if v, err := strconv.ParseFloat(fields[1], 64); err == nil {
			f[fields[0]] = v
		}
	}
	return f
}

func (f figures) has(key string) bool { _, ok := f[key]; return ok }

// count prints a figure that counts things.
func (f figures) count(key string) string { return strconv.FormatFloat(f[key], 'f', -1, 64) }

// fmtMs prints milliseconds as a duration.
func fmtMs(v float64) string { return fmtDur(time.Duration(v * float64(time.Millisecond))) }
