package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// This file is -compare: every section this checkout runs is run again,
// right after it, by the base build's own hostbench (built from its own
// tree, measuring what it measured then), and the goals of both are set
// side by side. Both see the same machine in the same run, which is what
// "no worse than before" needs on a shared machine.

// errBaseLacksSection is a section the base's hostbench does not have.
var errBaseLacksSection = errors.New("the base's hostbench has no such section")

// runBaseSection runs one section with the base's hostbench and returns
// its goals.
func runBaseSection(ctx context.Context, o options, key string) ([]Goal, error) {
	bin, err := o.base.hostbench(ctx)
	if err != nil {
		return nil, err
	}
	src, err := o.base.src(ctx)
	if err != nil {
		return nil, err
	}
	if key == "reference" {
		o.base.shareNodeModules(ctx, o.benchDir)
	}
	out := filepath.Join(filepath.Dir(src), "run-"+key+".md")
	args := []string{"-repo", src, "-corpus", o.corpus, "-sections", key, "-out", out}
	if o.quick {
		args = append(args, "-quick")
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = src
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		if strings.Contains(stderr.String(), "unknown section") {
			return nil, errBaseLacksSection
		}
		return nil, fmt.Errorf("the base's hostbench: %v: %s", err, lastLines(stderr.String(), 3))
	}
	// A base with this file writes the run's record beside its page; an
	// older one only the page.
	if r, err := readReport(out); err == nil {
		if s := r.section(key); s != nil {
			return s.Goals, nil
		}
		return nil, fmt.Errorf("the base's record has no %s section", key)
	}
	md, err := os.ReadFile(out)
	if err != nil {
		return nil, err
	}
	return pageGoals(string(md), key)
}

// pageGoals reads a section's goals from a page written by a hostbench
// before this one: the section's block between its markers, and in it the
// table headed "| goal | target | verdict |", whose verdicts read "met
// (X)", "NOT MET (measured X)" or "not measured: why".
func pageGoals(md, key string) ([]Goal, error) {
	begin, end := "<!-- hostbench:section "+key+" -->", "<!-- hostbench:end "+key+" -->"
	i := strings.Index(md, begin)
	if i < 0 {
		return nil, fmt.Errorf("the base's page has no %s section", key)
	}
	block := md[i+len(begin):]
	if j := strings.Index(block, end); j >= 0 {
		block = block[:j]
	}
	var goals []Goal
	in := false
	for _, line := range strings.Split(block, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "| goal | target | verdict |":
			in = true
		case !in || strings.HasPrefix(line, "| ---"):
		case !strings.HasPrefix(line, "|"):
			return goals, nil
		default:
			cells := tableCells(line)
			if len(cells) != 3 {
				return nil, fmt.Errorf("a goal row of the base's page has %d cells: %q", len(cells), line)
			}
			g := Goal{Name: cells[0], Target: cells[1]}
			switch v := cells[2]; {
			case strings.HasPrefix(v, "met (") && strings.HasSuffix(v, ")"):
				g.Met, g.Measured = true, strings.TrimSuffix(strings.TrimPrefix(v, "met ("), ")")
			case strings.HasPrefix(v, "NOT MET (measured ") && strings.HasSuffix(v, ")"):
				g.Measured = strings.TrimSuffix(strings.TrimPrefix(v, "NOT MET (measured "), ")")
			case strings.HasPrefix(v, "not measured: "):
				g.Skipped = strings.TrimPrefix(v, "not measured: ")
			default:
				return nil, fmt.Errorf("a verdict of the base's page reads %q", v)
			}
			goals = append(goals, g)
		}
	}
	return goals, nil
}

// tableCells splits a markdown table row on the pipes that are not
// escaped, and unescapes the cells.
func tableCells(line string) []string {
	line = strings.TrimSuffix(strings.TrimPrefix(line, "|"), "|")
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '\\' && i+1 < len(line) && line[i+1] == '|':
			cur.WriteByte('|')
			i++
		case line[i] == '|':
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(line[i])
		}
	}
	return append(cells, strings.TrimSpace(cur.String()))
}

// baseRun is what the base's hostbench gave for one section.
type baseRun struct {
	key   string
	goals []Goal
	err   error
}

// compareSection sets every goal of this run beside the base's: matched
// by section and name, this run's order first and the goals only the base
// has after them, so nothing either side measured is left out.
func compareSection(base string, head []*Section, runs []baseRun) *Section {
	s := &Section{Key: "compare", Title: "Before and after: " + base + " against this checkout"}
	s.Intro = "Run with `-compare`: right after this checkout's hostbench measured a section, the base build's own " +
		"hostbench (built from " + base + "'s tree, measuring what it measured then) ran the same section, so both saw the " +
		"same machine in the same run. Goals are matched by section and name; a goal whose name changed shows on two rows. " +
		"The parse section compares its workers with the base build itself and is not repeated here. \"Change\" is after " +
		"over before, read in the target's direction; a timing moves a few percent between runs, so read a small change as the same."
	t := Table{Header: []string{"section", "goal", "target", "before (" + base + ")", "after (this checkout)", "change"}}
	for _, r := range runs {
		var sec *Section
		for _, h := range head {
			if h.Key == r.key {
				sec = h
			}
		}
		if r.err != nil {
			s.Notes = append(s.Notes, r.key+": the base was not measured: "+r.err.Error())
		}
		before := map[string]Goal{}
		for _, g := range r.goals {
			before[g.Name] = g
		}
		matched := map[string]bool{}
		if sec != nil {
			for _, g := range sec.Goals {
				b, ok := before[g.Name]
				matched[g.Name] = ok
				t.Add(r.key, g.Name, g.Target, goalFigure(b, ok), goalFigure(g, true), change(b, g, ok))
			}
		}
		for _, g := range r.goals {
			if !matched[g.Name] {
				t.Add(r.key, g.Name, g.Target, goalFigure(g, true), "-", "only the base measures it")
			}
		}
	}
	s.Tables = append(s.Tables, t)
	return s
}

// goalFigure is a goal's measured value and verdict in one cell.
func goalFigure(g Goal, ok bool) string {
	switch {
	case !ok:
		return "-"
	case g.Skipped != "":
		return "not measured"
	case g.Met:
		return g.Measured + ", met"
	}
	return g.Measured + ", NOT MET"
}

var firstNumber = regexp.MustCompile(`-?[0-9]+(\.[0-9]+)?`)

// sameWithin is the change read as none: a figure's last digit, not a
// difference a run can show.
const sameWithin = 0.02

// change reads after against before in the target's direction.
func change(before, after Goal, ok bool) string {
	if !ok {
		return "new: the base does not measure it"
	}
	b, errB := strconv.ParseFloat(firstNumber.FindString(before.Measured), 64)
	a, errA := strconv.ParseFloat(firstNumber.FindString(after.Measured), 64)
	if before.Skipped != "" || after.Skipped != "" || errA != nil || errB != nil || b == 0 {
		return "-"
	}
	lowerIsBetter := strings.HasPrefix(after.Target, "<")
	ratio := a / b
	switch {
	case ratio > 1-sameWithin && ratio < 1+sameWithin:
		return "same (" + fmtRatio(ratio) + ")"
	case (a < b) == lowerIsBetter:
		return "better (" + fmtRatio(ratio) + ")"
	}
	return "worse (" + fmtRatio(ratio) + ")"
}
