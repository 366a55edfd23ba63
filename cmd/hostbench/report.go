package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"
	"unicode/utf8"
)

// Section is one part of the report: its tables, the goals it checks, and
// notes that say how it was measured.
type Section struct {
	Key     string
	Title   string
	Intro   string // how the figures were measured, one paragraph
	Tables  []Table
	Goals   []Goal
	Notes   []string // caveats and things not measured, each said plainly
	Quick   bool
	Elapsed time.Duration
}

// Table is a titled grid of cells.
type Table struct {
	Title  string
	Header []string
	Rows   [][]string
}

// Add appends a row.
func (t *Table) Add(cells ...string) { t.Rows = append(t.Rows, cells) }

// Goal is one target of the benchmark issue and what this run measured.
// A goal that could not be measured is neither met nor failed: Skipped
// says why.
type Goal struct {
	Name     string // what is compared, e.g. "round trip vs str_replace"
	Target   string // e.g. "<= 0.75x"
	Measured string // e.g. "0.62x"
	Met      bool
	Skipped  string
}

// Verdict is how a goal reads in a table: plain words, never a symbol
// alone.
func (g Goal) Verdict() string {
	switch {
	case g.Skipped != "":
		return "not measured: " + g.Skipped
	case g.Met:
		return "met (" + g.Measured + ")"
	}
	return "NOT MET (measured " + g.Measured + ")"
}

// atMost and atLeast build goals from a measured ratio.
func atMost(name string, measured, limit float64, unit string) Goal {
	return Goal{Name: name, Target: "<= " + fmtFloat(limit) + unit, Measured: fmtFloat(measured) + unit, Met: measured <= limit}
}

func atLeast(name string, measured, limit float64, unit string) Goal {
	return Goal{Name: name, Target: ">= " + fmtFloat(limit) + unit, Measured: fmtFloat(measured) + unit, Met: measured >= limit}
}

func skippedGoal(name, target, why string) Goal {
	return Goal{Name: name, Target: target, Skipped: why}
}

// fmtFloat prints a ratio with two decimals, or three significant digits
// for small values so they do not print as 0.00.
func fmtFloat(x float64) string {
	if x != 0 && x < 0.1 && x > -0.1 {
		return fmt.Sprintf("%.3g", x)
	}
	return fmt.Sprintf("%.2f", x)
}

// fmtRatio is a ratio as "0.62x".
func fmtRatio(x float64) string { return fmtFloat(x) + "x" }

// fmtDur prints a duration with three significant digits in a unit that
// suits it.
func fmtDur(d time.Duration) string {
	switch {
	case d < time.Microsecond:
		return fmt.Sprintf("%d ns", d.Nanoseconds())
	case d < time.Millisecond:
		return fmt.Sprintf("%.3g µs", float64(d)/float64(time.Microsecond))
	case d < time.Second:
		return fmt.Sprintf("%.3g ms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.3g s", d.Seconds())
}

// fmtBytes prints a byte count in MiB (KiB when small, GiB past 8 GiB,
// where MiB stop being readable).
func fmtBytes(n int64) string {
	switch {
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	case n >= 8<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// Markdown renders the section for docs/benchmarks.md.
func (s *Section) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "## %s\n\n", s.Title)
	if s.Quick {
		b.WriteString("_Quick run (`-quick`): few iterations, not figures to quote._\n\n")
	}
	if s.Intro != "" {
		b.WriteString(s.Intro + "\n\n")
	}
	if len(s.Goals) > 0 {
		gt := Table{Header: []string{"goal", "target", "verdict"}}
		for _, g := range s.Goals {
			gt.Add(g.Name, g.Target, g.Verdict())
		}
		b.WriteString(gt.markdown())
	}
	for _, t := range s.Tables {
		b.WriteString(t.markdown())
	}
	for _, n := range s.Notes {
		b.WriteString("- " + n + "\n")
	}
	if len(s.Notes) > 0 {
		b.WriteString("\n")
	}
	return b.String()
}

func (t Table) markdown() string {
	var b strings.Builder
	if t.Title != "" {
		b.WriteString("**" + t.Title + "**\n\n")
	}
	row := func(cells []string) {
		b.WriteString("|")
		for i := range t.Header {
			c := ""
			if i < len(cells) {
				c = strings.ReplaceAll(cells[i], "|", `\|`)
			}
			b.WriteString(" " + c + " |")
		}
		b.WriteString("\n")
	}
	row(t.Header)
	b.WriteString("|")
	for range t.Header {
		b.WriteString(" --- |")
	}
	b.WriteString("\n")
	for _, r := range t.Rows {
		row(r)
	}
	b.WriteString("\n")
	return b.String()
}

// Text renders the section for the terminal: aligned columns.
func (s *Section) Text() string {
	var b strings.Builder
	title := s.Title
	if s.Elapsed > 0 {
		title += fmt.Sprintf("  [%s]", s.Elapsed.Round(100*time.Millisecond))
	}
	fmt.Fprintf(&b, "\n== %s\n", title)
	if len(s.Goals) > 0 {
		gt := Table{Header: []string{"goal", "target", "verdict"}}
		for _, g := range s.Goals {
			gt.Add(g.Name, g.Target, g.Verdict())
		}
		b.WriteString(gt.text())
	}
	for _, t := range s.Tables {
		b.WriteString(t.text())
	}
	for _, n := range s.Notes {
		b.WriteString("  - " + n + "\n")
	}
	return b.String()
}

func (t Table) text() string {
	widths := make([]int, len(t.Header))
	measure := func(cells []string) {
		for i := range widths {
			if i < len(cells) {
				widths[i] = max(widths[i], utf8.RuneCountInString(cells[i]))
			}
		}
	}
	measure(t.Header)
	for _, r := range t.Rows {
		measure(r)
	}
	var b strings.Builder
	if t.Title != "" {
		b.WriteString("\n  " + t.Title + "\n")
	}
	line := func(cells []string) {
		b.WriteString(" ")
		for i, w := range widths {
			c := ""
			if i < len(cells) {
				c = cells[i]
			}
			b.WriteString(" " + c + strings.Repeat(" ", w-utf8.RuneCountInString(c)) + " ")
		}
		b.WriteString("\n")
	}
	line(t.Header)
	sep := make([]string, len(widths))
	for i, w := range widths {
		sep[i] = strings.Repeat("-", w)
	}
	line(sep)
	for _, r := range t.Rows {
		line(r)
	}
	return b.String()
}

// goalSummary is the last thing printed: every goal of the run and its
// verdict, so a goal that failed cannot scroll out of sight.
func goalSummary(sections []*Section) string {
	t := Table{Title: "Goals", Header: []string{"section", "goal", "target", "verdict"}}
	for _, s := range sections {
		for _, g := range s.Goals {
			t.Add(s.Key, g.Name, g.Target, g.Verdict())
		}
	}
	return t.text()
}

// The markdown file keeps a hand-written introduction above introEnd and
// one block per section between markers, so a run of some sections
// replaces those and keeps the others from an earlier run.
const (
	introEnd     = "<!-- hostbench: everything below is generated by `go run ./cmd/hostbench`; edit above this line -->"
	sectionBegin = "<!-- hostbench:section %s -->"
	sectionEnd   = "<!-- hostbench:end %s -->"
)

const defaultIntro = `# Benchmarks

What an edit costs the model, how fast the host answers, and whether it
stays inside its memory bounds, measured against the real alternatives on
the same machine in the same run. Every timing is a ratio against a
reference measured in that run, beside the absolute numbers: the machines
these figures come from are shared, so absolute times move from run to run
while ratios move less. A goal that is not met says so, with the
measured ratio. Regenerate with:

    go run ./cmd/hostbench                 # every section, a few minutes on 2 cores
    go run ./cmd/hostbench -quick          # a smoke run of every section
    go run ./cmd/hostbench -sections host  # some sections; the others' blocks stay

The reference implementation runs under Bun from bench/: the command runs
` + "`(cd bench && npm install)`" + ` itself when bench/node_modules is absent,
installing the versions the committed lockfile pins (Bun 1.4.4 and
@oh-my-pi/hashline 18.1.5). ` + "`npm ci`" + ` refuses that lockfile because
@oh-my-pi/pi-natives lists platform packages the registry does not serve.
The token section needs the shared corpus beside the checkout
(../shared/corpus/token-bench).
`

// errNoMarkers reports a markdown file whose generated part cannot be
// found; hostbench refuses to overwrite what it did not write.
var errNoMarkers = errors.New("has no hostbench marker; move it aside or add the marker line")

// updateMarkdown writes sections into the file at path, keeping its
// introduction and the blocks of sections this run did not measure.
func updateMarkdown(path string, sections []*Section) error {
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	out, err := mergeMarkdown(string(old), sections)
	if err != nil {
		return fmt.Errorf("%s %w", path, err)
	}
	return os.WriteFile(path, []byte(out), 0o644)
}

// mergeMarkdown is updateMarkdown on text: the introduction (or the
// default one for an empty file), then every section in sectionKeys order,
// each from this run when it ran and from old otherwise.
func mergeMarkdown(old string, sections []*Section) (string, error) {
	intro := defaultIntro
	rest := ""
	if strings.TrimSpace(old) != "" {
		i := strings.Index(old, introEnd)
		if i < 0 {
			return "", errNoMarkers
		}
		intro, rest = old[:i], old[i+len(introEnd):]
	}
	fresh := map[string]*Section{}
	for _, s := range sections {
		fresh[s.Key] = s
	}
	var b bytes.Buffer
	b.WriteString(strings.TrimRight(intro, "\n") + "\n\n" + introEnd + "\n\n")
	for _, key := range append([]string{"machine"}, sectionKeys...) {
		block := ""
		if s, ok := fresh[key]; ok {
			block = s.Markdown()
		} else if prev, ok := oldBlock(rest, key); ok {
			block = prev
		}
		if strings.TrimSpace(block) == "" {
			continue
		}
		fmt.Fprintf(&b, sectionBegin+"\n\n%s\n"+sectionEnd+"\n\n", key, strings.TrimSpace(block), key)
	}
	return strings.TrimRight(b.String(), "\n") + "\n", nil
}

// oldBlock returns the text of a section's block in a generated part.
func oldBlock(text, key string) (string, bool) {
	begin, end := fmt.Sprintf(sectionBegin, key), fmt.Sprintf(sectionEnd, key)
	i := strings.Index(text, begin)
	if i < 0 {
		return "", false
	}
	j := strings.Index(text[i:], end)
	if j < 0 {
		return "", false
	}
	return text[i+len(begin) : i+j], true
}
