package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestDashboardIsGenerated holds docs/benchmarks.md to what hostbench
// renders from the run recorded beside it (docs/benchmarks.json), byte for
// byte: a hand-written line, figure or paragraph anywhere in the page
// fails it. It measures nothing.
func TestDashboardIsGenerated(t *testing.T) {
	page := filepath.Join("..", "..", "docs", "benchmarks.md")
	r, err := readReport(page)
	if err != nil {
		t.Fatalf("the page's record: %v (regenerate with go run ./cmd/hostbench)", err)
	}
	keys := map[string]bool{}
	for _, s := range r.Sections {
		if keys[s.Key] {
			t.Errorf("the record holds section %q twice", s.Key)
		}
		keys[s.Key] = true
		if !slices.Contains(sectionKeys(), s.Key) {
			t.Errorf("the record holds section %q, which hostbench no longer registers: regenerate", s.Key)
		}
	}
	if len(r.Machine.Rows) == 0 {
		t.Error("the record has no machine block")
	}
	want := r.Markdown(sectionDefs)
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(data); got != want {
		gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
		i := 0
		for i < len(gl) && i < len(wl) && gl[i] == wl[i] {
			i++
		}
		line := func(ls []string) string {
			if i < len(ls) {
				return ls[i]
			}
			return "(end of file)"
		}
		t.Errorf("docs/benchmarks.md is not what hostbench renders from docs/benchmarks.json: line %d reads\n\t%s\nwhere hostbench writes\n\t%s\n"+
			"The page is generated: history goes to CHANGELOG.md, wording to cmd/hostbench. After changing the generator's text, "+
			"run go run ./cmd/hostbench -render; for new figures, go run ./cmd/hostbench.", i+1, line(gl), line(wl))
	}
}

// TestDashboardLayout checks the page's order: the introduction, the
// machine block, every goal once in one table, then each section's
// detail, numbered in registration order, a registered section the run
// did not measure named as such.
func TestDashboardLayout(t *testing.T) {
	defs := []sectionDef{{key: "a", title: "Alpha"}, {key: "b", title: "Beta"}, {key: "c", title: "Gamma"}}
	r := &Report{
		Quick:   true,
		Machine: Table{Header: []string{"what", "value"}, Rows: [][]string{{"CPU", "test"}}},
		Sections: []*Section{
			{Key: "c", Title: "Gamma", Intro: "How c.", Goals: []Goal{atMost("gc", 0.5, 1, "x").vs("ref c")}},
			{Key: "a", Title: "Alpha", Intro: "How a.", Goals: []Goal{atLeast("ga", 0.5, 1, "x"), skippedGoal("gs", "<= 1x", "absent")}},
			{Key: "old", Title: "Old", Goals: []Goal{atMost("go", 1, 2, "x")}},
		},
		Compare: &Section{Key: "compare", Title: "Before and after"},
	}
	md := r.Markdown(defs)
	order := []string{"# Benchmarks", "quick run", "## Machine", "| CPU | test |", "## Goals",
		"2 of 4 goals met, 1 not met, 1 not measured.",
		"| 1. a | ga |  | >= 1.00x | 0.50x | NOT MET |",
		"| 1. a | gs |  | <= 1x |  | not measured: absent |",
		"| 3. c | gc | ref c | <= 1.00x | 0.50x | met |",
		"| 4. old | go |",
		"## 1. Alpha", "How a.", "## 2. Beta", "Not measured in this run", "## 3. Gamma", "How c.", "## 4. Old", "## 5. Before and after"}
	at := 0
	for _, w := range order {
		i := strings.Index(md[at:], w)
		if i < 0 {
			t.Fatalf("%q missing or out of order in:\n%s", w, md)
		}
		at += i + len(w)
	}
	if n := strings.Count(md, "| gc |"); n != 1 {
		t.Errorf("goal gc appears %d times", n)
	}
	if !strings.HasSuffix(md, "\n") || strings.HasSuffix(md, "\n\n") {
		t.Error("the page does not end with exactly one newline")
	}
}

// TestReportRoundTrip writes a run's record and page and reads the record
// back: the page renders again the same, and -render rewrites a page
// edited by hand.
func TestReportRoundTrip(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, "bench.md")
	r := &Report{
		Elapsed:  90e9,
		Machine:  Table{Header: []string{"what", "value"}, Rows: [][]string{{"CPU", "x|y"}}},
		Sections: []*Section{{Key: "tokens", Title: "T", Elapsed: 3e9, Goals: []Goal{atMost("g", 0.5, 0.75, "x").vs("r")}, Notes: []string{"n"}}},
	}
	if err := writeReport(page, r, sectionDefs); err != nil {
		t.Fatal(err)
	}
	back, err := readReport(page)
	if err != nil {
		t.Fatal(err)
	}
	if back.Markdown(sectionDefs) != r.Markdown(sectionDefs) {
		t.Error("the record read back renders differently")
	}
	if err := os.WriteFile(page, []byte("# Benchmarks\n\nA diary entry.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := renderOnly(page, sectionDefs); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(page); string(data) != r.Markdown(sectionDefs) {
		t.Error("-render did not rewrite the page from its record")
	}
	if err := os.WriteFile(jsonPath(page), []byte(`{"sections": [], "diary": "x"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readReport(page); err == nil {
		t.Error("a record with a field hostbench does not write was read")
	}
}
