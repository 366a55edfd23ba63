package main

import (
	"errors"
	"strings"
	"testing"
)

// oldPage is a page as the hostbench before the dashboard wrote it: a
// block per section between markers, a goal table of three columns whose
// verdict carries the measured value.
const oldPage = `# Benchmarks

Hand-written history.

<!-- hostbench:section gobench -->

## 5. The packages' own benchmarks

| goal | target | verdict |
| --- | --- | --- |
| read tail of 1 GiB vs openssl SHA-256 | <= 1.30x | met (0.96x) |
| grep Literal vs ripgrep -j1 \| one thread | <= 3.00x | NOT MET (measured 3.03x) |
| block op vs one tree-sitter parse | <= 1.20x | not measured: benchmark did not run |

**Commands**

| package | command |
| --- | --- |
| tools | go test |
<!-- hostbench:end gobench -->
`

func TestPageGoals(t *testing.T) {
	goals, err := pageGoals(oldPage, "gobench")
	if err != nil {
		t.Fatal(err)
	}
	want := []Goal{
		{Name: "read tail of 1 GiB vs openssl SHA-256", Target: "<= 1.30x", Measured: "0.96x", Met: true},
		{Name: "grep Literal vs ripgrep -j1 | one thread", Target: "<= 3.00x", Measured: "3.03x"},
		{Name: "block op vs one tree-sitter parse", Target: "<= 1.20x", Skipped: "benchmark did not run"},
	}
	if len(goals) != len(want) {
		t.Fatalf("goals %+v", goals)
	}
	for i := range want {
		if goals[i] != want[i] {
			t.Errorf("goal %d: %+v, want %+v", i, goals[i], want[i])
		}
	}
	if _, err := pageGoals(oldPage, "host"); err == nil {
		t.Error("a section the page lacks gave goals")
	}
	bad := strings.Replace(oldPage, "met (0.96x)", "fine", 1)
	if _, err := pageGoals(bad, "gobench"); err == nil {
		t.Error("a verdict in no known form was read")
	}
}

func TestTableCells(t *testing.T) {
	got := tableCells(`| a \| b |  c | |`)
	if strings.Join(got, ",") != "a | b,c," || len(got) != 3 {
		t.Errorf("cells %q", got)
	}
}

// TestCompareSection sets goals side by side: a change read in the
// target's direction, a goal only one side measures kept on its own row,
// and a base that could not run said so.
func TestCompareSection(t *testing.T) {
	head := []*Section{
		{Key: "host", Goals: []Goal{atLeast("reads", 0.8, 0.7, "x"), atLeast("new", 1, 0.7, "x"), atMost("rss", 1.0, 2, "x")}},
		{Key: "gobench", Goals: []Goal{atMost("grep", 0.9, 1, "x"), atMost("tail", 1.2, 1.3, "x"), skippedGoal("heap", "<= 64 MiB", "no")}},
		{Key: "tokens", Goals: []Goal{atMost("rt", 0.44, 0.75, "x")}},
	}
	runs := []baseRun{
		{key: "host", goals: []Goal{atLeast("reads", 0.75, 0.7, "x"), atLeast("gone", 0.9, 0.7, "x"), atMost("rss", 1.01, 2, "x")}},
		{key: "gobench", goals: []Goal{atMost("grep", 3.03, 1, "x"), atMost("tail", 0.96, 1.3, "x"), atMost("heap", 8.5, 64, " MiB")}},
		{key: "tokens", err: errors.New("boom")},
	}
	s := compareSection("260266a", head, runs)
	rows := map[string][]string{}
	for _, r := range s.Tables[0].Rows {
		rows[r[0]+"/"+r[1]] = r
	}
	for key, want := range map[string][2]string{
		"host/reads":   {"0.75x, met", "better (1.07x)"},
		"host/new":     {"-", "new: the base does not measure it"},
		"host/gone":    {"0.90x, met", "only the base measures it"},
		"host/rss":     {"1.01x, met", "same (0.99x)"},
		"gobench/grep": {"3.03x, NOT MET", "better (0.30x)"},
		"gobench/tail": {"0.96x, met", "worse (1.25x)"},
		"gobench/heap": {"8.50 MiB, met", "-"},
		"tokens/rt":    {"-", "new: the base does not measure it"},
	} {
		r, ok := rows[key]
		if !ok {
			t.Errorf("no row for %s: %q", key, s.Tables[0].Rows)
			continue
		}
		if r[3] != want[0] || r[5] != want[1] {
			t.Errorf("%s: before %q, change %q; want %q, %q", key, r[3], r[5], want[0], want[1])
		}
	}
	if len(s.Notes) != 1 || !strings.Contains(s.Notes[0], "tokens: the base was not measured: boom") {
		t.Errorf("notes %q", s.Notes)
	}
	if !strings.Contains(s.Title, "260266a") || !strings.Contains(s.Tables[0].Header[3], "260266a") {
		t.Errorf("the base is not named: %q, %q", s.Title, s.Tables[0].Header)
	}
}
