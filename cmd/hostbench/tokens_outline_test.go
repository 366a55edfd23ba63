package main

import (
	"fmt"
	"testing"
)

// The measured reader reads spans off the outline's text as a model
// would, so its parsing and picking must follow the row format exactly.
func TestOutlineReader(t *testing.T) {
	content := "[a.ts#1234]\n3:export interface Opts {  …5\n4:  verbose?: boolean;\n9:  add(x) {  …7-12\n(outline: 3 rows of 20 lines)"
	rows := parseOutline(content)
	if got := fmt.Sprint(rows); got != "[{3 5} {4 4} {7 12}]" {
		t.Fatalf("rows %s", got)
	}
	if got := fmt.Sprint(changedLines("PUT 4.=5:\n+x\nCUT 9.=9\nPUT <14:\n+y\nPUT >$:\n+z")); got != "[4 5 9 14]" {
		t.Fatalf("changed lines %s", got)
	}
	cases := []struct {
		n    int
		want lineSpan
	}{
		{4, lineSpan{4, 4}},    // the smallest row holding it
		{5, lineSpan{3, 5}},    // the interface
		{8, lineSpan{7, 12}},   // from the decorator
		{15, lineSpan{13, 20}}, // no row: the lines after the last one
		{1, lineSpan{1, 2}},    // no row: the lines before the first
	}
	for _, c := range cases {
		if got := pick(rows, c.n, lineSpan{1, 20}); got != c.want {
			t.Errorf("pick(%d) = %v, want %v", c.n, got, c.want)
		}
	}
	if got := fmt.Sprint(merge([]lineSpan{{7, 12}, {3, 5}, {4, 4}, {12, 14}})); got != "[{3 5} {7 14}]" {
		t.Fatalf("merge %s", got)
	}
}
