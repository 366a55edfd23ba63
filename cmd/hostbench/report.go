package main

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Section is one part of the report: its goals, its tables, and notes
// that say how it was measured. It is what a run records in
// docs/benchmarks.json, and what the dashboard is rendered from.
type Section struct {
	Key     string        `json:"key"`
	Title   string        `json:"title"`
	Intro   string        `json:"intro,omitempty"` // how the figures were measured, one paragraph
	Goals   []Goal        `json:"goals,omitempty"`
	Tables  []Table       `json:"tables,omitempty"`
	Notes   []string      `json:"notes,omitempty"` // caveats and things not measured, each said plainly
	Elapsed time.Duration `json:"elapsedNs,omitempty"`
}

// Table is a titled grid of cells.
type Table struct {
	Title  string     `json:"title,omitempty"`
	Header []string   `json:"header"`
	Rows   [][]string `json:"rows,omitempty"`
}

// Add appends a row.
func (t *Table) Add(cells ...string) { t.Rows = append(t.Rows, cells) }

// Goal is one target hostd is held to and what this run measured. A goal
// that could not be measured is neither met nor failed: Skipped says why.
type Goal struct {
	Name     string `json:"name"`              // what is measured, e.g. "round trip vs str_replace"
	Against  string `json:"against,omitempty"` // the reference it is compared with
	Target   string `json:"target"`            // e.g. "<= 0.75x"
	Measured string `json:"measured,omitempty"`
	Met      bool   `json:"met,omitempty"`
	Skipped  string `json:"skipped,omitempty"`
}

// Verdict is how a goal reads in a table: plain words, never a symbol
// alone.
func (g Goal) Verdict() string {
	switch {
	case g.Skipped != "":
		return "not measured: " + g.Skipped
	case g.Met:
		return "met"
	}
	return "NOT MET"
}

// vs names the reference a goal is compared with.
func (g Goal) vs(reference string) Goal {
	g.Against = reference
	return g
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

// Markdown renders the section's detail for docs/benchmarks.md: how it
// was measured, its tables and its notes. Its goals are in the
// dashboard's one table of goals (dashboard.go), so each appears once.
func (s *Section) Markdown(number int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## %d. %s\n\n", number, s.Title)
	intro := s.Intro
	if s.Elapsed > 0 {
		intro = strings.TrimSpace(intro + " This section took " + fmtElapsed(s.Elapsed) + ".")
	}
	if intro != "" {
		b.WriteString(intro + "\n\n")
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

// fmtElapsed is a run's wall time for people: "42 s", "3 min 12 s".
func fmtElapsed(d time.Duration) string {
	d = d.Round(time.Second)
	if d < time.Minute {
		return fmt.Sprintf("%d s", int(d.Seconds()))
	}
	return fmt.Sprintf("%d min %d s", int(d.Minutes()), int(d.Seconds())%60)
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
		gt := Table{Header: []string{"goal", "compared with", "target", "measured", "verdict"}}
		for _, g := range s.Goals {
			gt.Add(g.Name, g.Against, g.Target, g.Measured, g.Verdict())
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
	t := Table{Title: "Goals", Header: []string{"section", "goal", "target", "measured", "verdict"}}
	for _, s := range sections {
		for _, g := range s.Goals {
			t.Add(s.Key, g.Name, g.Target, g.Measured, g.Verdict())
		}
	}
	return t.text()
}
