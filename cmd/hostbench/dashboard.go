package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// This file renders docs/benchmarks.md whole: a fixed introduction, the
// machine block of the run, every goal once in one table, then each
// section's detail. The figures come from one run, recorded beside the
// page in docs/benchmarks.json; the page is a function of that record and
// of this file's text, so `hostbench -render` rewrites it without
// measuring and TestDashboardIsGenerated fails on anything written by hand.

// Report is one run: what docs/benchmarks.json holds.
type Report struct {
	Quick    bool          `json:"quick,omitempty"`
	Elapsed  time.Duration `json:"elapsedNs"`
	Machine  Table         `json:"machine"`
	Sections []*Section    `json:"sections"`
	// Compare is the before/after table of a -compare run, or nil.
	Compare *Section `json:"compare,omitempty"`
}

// section returns the run's section of that key, or nil.
func (r *Report) section(key string) *Section {
	for _, s := range r.Sections {
		if s.Key == key {
			return s
		}
	}
	return nil
}

const dashboardIntro = `# Benchmarks

What an edit costs the model in tokens, how fast hostd's edit language and daemon are, whether
the daemon stays inside its memory bounds, grep against ripgrep, parsing in worker processes,
and syntax feedback and reads since a tag on replayed real edits: each against a reference
measured on the same machine in the same run. This page is
generated whole by ` + "`go run ./cmd/hostbench`" + ` from one run, recorded beside it in
[benchmarks.json](benchmarks.json); a test holds the page to that record, so do not edit it by
hand. What moved a figure, and when, is in the [changelog](../CHANGELOG.md).

**Reading a ratio.** Each timing is a ratio against its reference in the same run, beside the
absolute numbers: these machines are shared, so absolute times move between runs and ratios
move less. The target gives the direction: ` + "`<= 0.75x`" + ` means hostd needs at most 0.75 of what
the reference needs, ` + "`>= 5x`" + ` that the reference takes at least five times hostd's time. A
goal missed reads NOT MET with its measured value; nothing is tuned to pass. A timing near its
target can land on either side from run to run on a loaded machine: read it with the load below.

    go run ./cmd/hostbench                 # every section: rewrites this page and benchmarks.json
    go run ./cmd/hostbench -quick          # few iterations: a smoke run, printed only
                                           # (-out FILE writes it, marked as such)
    go run ./cmd/hostbench -sections host  # some sections, printed only (-out FILE writes them)
    go run ./cmd/hostbench -compare        # each section also run by the base build's own
                                           # hostbench (-base): a before/after table of every goal,
                                           # appended to the page (-out FILE to keep it elsewhere)
    go run ./cmd/hostbench -render         # this page again from benchmarks.json, measuring nothing

It needs Bun in bench/ (installed from the lockfile by ` + "`npm install`" + ` when absent), the shared
corpus beside the checkout (../shared/corpus), ripgrep, openssl, and git to build the base.
`

// Markdown renders the whole page. defs are the registered sections, in
// the order they run: one the run did not measure is named as such, and
// one the run measured that is no longer registered follows them.
func (r *Report) Markdown(defs []sectionDef) string {
	var b strings.Builder
	b.WriteString(dashboardIntro + "\n")
	if r.Quick {
		b.WriteString("**This is a quick run (`-quick`): few iterations, a smoke test of the generator, not figures to quote.**\n\n")
	}
	b.WriteString("## Machine\n\n")
	b.WriteString(r.Machine.markdown())

	// Every section the page shows, numbered in that order.
	var shown []*Section
	seen := map[string]bool{}
	for _, d := range defs {
		seen[d.key] = true
		s := r.section(d.key)
		if s == nil {
			s = &Section{Key: d.key, Title: d.title, Intro: "Not measured in this run: regenerate the page with every section."}
		}
		shown = append(shown, s)
	}
	for _, s := range r.Sections {
		if !seen[s.Key] {
			shown = append(shown, s)
		}
	}

	b.WriteString("## Goals\n\n")
	goals := Table{Header: []string{"section", "goal", "compared with", "target", "measured", "verdict"}}
	met, total, skipped := 0, 0, 0
	for i, s := range shown {
		for _, g := range s.Goals {
			goals.Add(strconv.Itoa(i+1)+". "+s.Key, g.Name, g.Against, g.Target, g.Measured, clip(g.Verdict(), maxVerdict))
			total++
			switch {
			case g.Skipped != "":
				skipped++
			case g.Met:
				met++
			}
		}
	}
	fmt.Fprintf(&b, "%d of %d goals met, %d not met, %d not measured. Each section below says how its figures were measured.\n\n",
		met, total, total-met-skipped, skipped)
	b.WriteString(goals.markdown())

	for i, s := range shown {
		b.WriteString(s.Markdown(i + 1))
	}
	if r.Compare != nil {
		b.WriteString(r.Compare.Markdown(len(shown) + 1))
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// maxVerdict is the longest verdict the goal table shows: a goal not
// measured gives its whole reason in its section's notes.
const maxVerdict = 160

// clip cuts s to at most n runes, saying so.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// jsonPath is where the record of a run is kept beside its page.
func jsonPath(mdPath string) string {
	return strings.TrimSuffix(mdPath, filepath.Ext(mdPath)) + ".json"
}

// writeReport writes the run's record and the page rendered from it.
func writeReport(mdPath string, r *Report, defs []sectionDef) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(jsonPath(mdPath), append(data, '\n'), 0o644); err != nil {
		return err
	}
	return os.WriteFile(mdPath, []byte(r.Markdown(defs)), 0o644)
}

// readReport reads the record kept beside a page.
func readReport(mdPath string) (*Report, error) {
	data, err := os.ReadFile(jsonPath(mdPath))
	if err != nil {
		return nil, err
	}
	var r Report
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("%s: %w", jsonPath(mdPath), err)
	}
	return &r, nil
}

// renderOnly rewrites the page from its record, measuring nothing: for a
// change to this file's text or to a section's registration.
func renderOnly(mdPath string, defs []sectionDef) error {
	r, err := readReport(mdPath)
	if err != nil {
		return err
	}
	return os.WriteFile(mdPath, []byte(r.Markdown(defs)), 0o644)
}
