package tools

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/aymanbagabas/go-udiff"

	"github.com/hostd-dev/hostd/workspace"
)

// windowDiff must be a correct diff of the whole files: its hunks, with
// their whole-file line numbers, turn the old lines into the new ones. It
// is byte-identical to the whole diff when the alignment is unambiguous.
func TestWindowDiffIsADiffOfTheWholeFiles(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	identical := 0
	for i := range 3000 {
		n := r.IntN(40)
		old := make([]string, n)
		for j := range old {
			old[j] = fmt.Sprintf("l%d", r.IntN(6))
		}
		cur := append([]string(nil), old...)
		for range 1 + r.IntN(3) {
			switch k := r.IntN(3); {
			case k == 0 && len(cur) > 0:
				j := r.IntN(len(cur))
				cur = append(cur[:j], cur[j+1:]...)
			case k == 1:
				j := r.IntN(len(cur) + 1)
				cur = append(cur[:j], append([]string{fmt.Sprintf("new%d", r.IntN(9))}, cur[j:]...)...)
			case len(cur) > 0:
				cur[r.IntN(len(cur))] = fmt.Sprintf("chg%d", r.IntN(9))
			}
		}
		ot, ct := r.IntN(2) == 0, r.IntN(2) == 0
		got := windowDiff("a/f", "b/f", old, cur, ot, ct)
		if got == udiff.Unified("a/f", "b/f", workspace.Join(old, ot), workspace.Join(cur, ct)) {
			identical++
		}
		applied, err := applyUnified(old, got)
		if err != nil || !slices.Equal(applied, cur) {
			t.Fatalf("case %d: old %q new %q: the window diff does not turn one into the other (%v)\n%s", i, old, cur, err, got)
		}
	}
	if identical < 2000 {
		t.Fatalf("only %d of 3000 window diffs equal the whole diff", identical)
	}
}

var testHunk = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@`)

// applyUnified applies a unified diff's hunks to lines, checking every
// context and removed line against them.
func applyUnified(lines []string, d string) ([]string, error) {
	var out []string
	next := 0 // index of the next old line not yet copied
	rows := strings.Split(d, "\n")
	for i := 0; i < len(rows); i++ {
		m := testHunk.FindStringSubmatch(rows[i])
		if m == nil {
			continue
		}
		a, _ := strconv.Atoi(m[1])
		b := 1
		if m[2] != "" {
			b, _ = strconv.Atoi(m[2])
		}
		start := a - 1
		if b == 0 {
			start = a
		}
		if start < next || start > len(lines) {
			return nil, fmt.Errorf("hunk %q out of order", rows[i])
		}
		out = append(out, lines[next:start]...)
		next = start
		for i+1 < len(rows) && rows[i+1] != "" && !strings.HasPrefix(rows[i+1], "@@") {
			i++
			row := rows[i]
			switch row[0] {
			case ' ', '-':
				if next >= len(lines) || lines[next] != row[1:] {
					return nil, fmt.Errorf("row %q does not match old line %d", row, next+1)
				}
				if row[0] == ' ' {
					out = append(out, row[1:])
				}
				next++
			case '+':
				out = append(out, row[1:])
			}
		}
	}
	return append(out, lines[next:]...), nil
}
