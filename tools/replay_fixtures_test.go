package tools

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"

	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/workspace"
)

// TestReplayBrokenFixtureFixes breaks each of the 106 real TypeScript
// fixes of the shared corpus (ts-edit-fixtures) as a model might, and
// counts how often syntax feedback (edit-contract §5.6) names the broken
// place, within 2 lines: "drop", the fix's last body row left out
// (fixes whose last op has two rows or more); "bracket", an unbalanced
// "(" before the last body row's text. A variant counts as broken when a
// fresh parse of the file it leaves has more error regions than the
// fixed file has.
func TestReplayBrokenFixtureFixes(t *testing.T) {
	replaySize(t)
	dir, cases := loadFixtureFixes(t)
	r := newReplayEnv(t)
	s := r.session()
	type tally struct {
		made, broken, right, flaggedClean int
		startsAt                          int   // of right: a flag starts within 2 lines of the break
		spans                             []int // of right: the lines of the flag that holds the break
	}
	noRow := 0
	tallies := map[string]*tally{"drop": {}, "bracket": {}}
	for _, c := range cases {
		input, err1 := os.ReadFile(filepath.Join(dir, "fixtures", c.ID, "input", c.File))
		want, err2 := os.ReadFile(filepath.Join(dir, "fixtures", c.ID, "expected", c.File))
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		body := c.Patch[strings.Index(c.Patch, "\n")+1:] // the ops, without the [PATH#TAG] line
		variants := brokenVariants(body)
		if len(variants) == 0 {
			noRow++
		}
		for kind, ops := range variants {
			tl := tallies[kind]
			tl.made++
			path := c.ID + "/" + c.File
			r.write(path, string(input))
			tag := r.showIn(s, path, 1, 1<<30)
			out, _ := r.call(r.on, s, "edit", map[string]any{"path": path, "tag": tag, "ops": ops})
			er := out.(*wire.EditResult)
			if !er.OK {
				t.Fatalf("%s %s: %s", c.ID, kind, er.Content)
			}
			result := r.file(path)
			got, ok1 := r.errorsOf(path, result)
			fixed, ok2 := r.errorsOf(path, string(want))
			if !ok1 || !ok2 {
				t.Fatalf("%s %s: the judge's parse could not be made", c.ID, kind)
			}
			broken := len(got) > len(fixed)
			if !broken {
				if len(er.SyntaxErrors) > 0 {
					tl.flaggedClean++
				}
				continue
			}
			tl.broken++
			if at := firstDifference(result, string(want)); covers(er.SyntaxErrors, at, 2) {
				tl.right++
				for _, f := range er.SyntaxErrors {
					if f.StartLine-2 <= at && at <= f.EndLine+2 {
						tl.spans = append(tl.spans, f.EndLine-f.StartLine+1)
						if f.StartLine >= at-2 {
							tl.startsAt++
						}
						break
					}
				}
			} else {
				t.Logf("MISSED %s %s: broken at line %d, flagged %+v", c.ID, kind, at, er.SyntaxErrors)
			}
		}
	}
	t.Logf("%d fixes add no row (deletions), so have no broken variant", noRow)
	for _, kind := range []string{"drop", "bracket"} {
		tl := tallies[kind]
		pct := 100 * float64(tl.right) / float64(max(tl.broken, 1))
		t.Logf("%s: %d variants, %d of them broken; %d (%.1f%%) flagged within 2 lines of the break (goal at least 95%%); %d unbroken variants flagged", kind, tl.made, tl.broken, tl.right, pct, tl.flaggedClean)
		t.Logf("%s: of those flagged there, %d start within 2 lines of the break; the flag holding it spans %d lines at the median, %d at most", kind, tl.startsAt, median(slices.Clone(tl.spans)), slices.Max(append([]int{0}, tl.spans...)))
		if pct < 95 {
			t.Errorf("%s variants flagged at the right line %.1f%% (goal at least 95%%)", kind, pct)
		}
		if tl.flaggedClean > 0 {
			t.Errorf("%s: %d variants that leave the file no more broken than the fix were flagged", kind, tl.flaggedClean)
		}
		figure(t, "broken."+kind+".made", float64(tl.made))
		figure(t, "broken."+kind+".broken", float64(tl.broken))
		figure(t, "broken."+kind+".right", float64(tl.right))
		figure(t, "broken."+kind+".startsAt", float64(tl.startsAt))
		figure(t, "broken."+kind+".span.p50", float64(median(slices.Clone(tl.spans))))
		figure(t, "broken."+kind+".flaggedClean", float64(tl.flaggedClean))
	}
}

// TestReplayFixtureFixesCost sends each of the 106 real fixes, edits of
// the size a model makes, as the model would: a read of the file, then
// the fix once the read's parse has settled, with syntax feedback and
// without (each on its own copy of the file). It logs the edit p50 of
// each, and holds every flag against a fresh parse of the fixed file, as
// the history replay does.
func TestReplayFixtureFixesCost(t *testing.T) {
	replaySize(t)
	dir, cases := loadFixtureFixes(t)
	r := newReplayEnv(t)
	s := r.session()
	var on, off []time.Duration
	flags, wrong := 0, 0
	for i, c := range cases {
		input, err1 := os.ReadFile(filepath.Join(dir, "fixtures", c.ID, "input", c.File))
		want, err2 := os.ReadFile(filepath.Join(dir, "fixtures", c.ID, "expected", c.File))
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		ops := c.Patch[strings.Index(c.Patch, "\n")+1:]
		ways := []*Executor{r.on, r.off}
		if i%2 == 1 {
			ways = []*Executor{r.off, r.on}
		}
		for _, x := range ways {
			path := map[*Executor]string{r.on: "on/", r.off: "off/"}[x] + c.ID + "/" + c.File
			r.write(path, string(input))
			tag := r.read(x, s, path)
			if err := r.pool.Settle(context.Background()); err != nil {
				t.Fatal(err)
			}
			out, took := r.call(x, s, "edit", map[string]any{"path": path, "tag": tag, "ops": ops})
			er := out.(*wire.EditResult)
			if !er.OK || r.file(path) != string(want) {
				t.Fatalf("%s: the fix did not land: %.300s", c.ID, er.Content)
			}
			if x == r.off {
				off = append(off, took)
				continue
			}
			on = append(on, took)
			fixed, ok := r.errorsOf(path, string(want))
			if !ok {
				t.Fatalf("%s: the judge's parse could not be made", c.ID)
			}
			for _, f := range er.SyntaxErrors {
				flags++
				if !covers(fixed, f.StartLine, 0) && !covers(fixed, f.EndLine, 0) {
					wrong++
					t.Logf("WRONG FLAG %s: %+v; the fixed file's regions %+v", c.ID, f, fixed)
				}
			}
		}
	}
	pOn, pOff := median(on), median(off)
	t.Logf("fixes: %d; flags %d, %d of them where the fixed file has no error", len(cases), flags, wrong)
	t.Logf("fix p50, read then edited after the read's parse settled: %v with feedback, %v without (%.2fx; goal at most 1.5x)", pOn, pOff, float64(pOn)/float64(max(pOff, 1)))
	figure(t, "fixes.count", float64(len(cases)))
	figure(t, "fixes.flags", float64(flags))
	figure(t, "fixes.wrong", float64(wrong))
	figure(t, "fixes.p50.on.ms", ms(pOn))
	figure(t, "fixes.p50.off.ms", ms(pOff))
	if wrong > 0 {
		t.Errorf("%d flags name an error the fixed file does not have", wrong)
	}
}

// brokenVariants breaks a fix's ops (PUT blocks of + rows, CUTs) by its
// last body row: "drop" leaves it out, when its op keeps another row;
// "bracket" puts an unbalanced "(" before its text. A fix with no body
// row (a deletion) has no variants.
func brokenVariants(ops string) map[string]string {
	lines := strings.Split(strings.TrimRight(ops, "\n"), "\n")
	last := len(lines) - 1
	for last >= 0 && !strings.HasPrefix(lines[last], "+") {
		last--
	}
	if last < 1 {
		return nil
	}
	out := map[string]string{}
	if strings.HasPrefix(lines[last-1], "+") {
		out["drop"] = strings.Join(slices.Delete(slices.Clone(lines), last, last+1), "\n")
	}
	row := lines[last][1:]
	indent := len(row) - len(strings.TrimLeft(row, " \t"))
	b := slices.Clone(lines)
	b[last] = "+" + row[:indent] + "(" + row[indent:]
	out["bracket"] = strings.Join(b, "\n")
	return out
}

// firstDifference is the first line where a and b differ.
func firstDifference(a, b string) int {
	la, lb := workspace.Lines(a), workspace.Lines(b)
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return i + 1
		}
	}
	return min(len(la), len(lb)) + 1
}

// tokenCounter counts cl100k_base tokens, as hostbench's token section
// does; the encoding ships inside the loader, so no network.
type tokenCounter struct{ enc *tiktoken.Tiktoken }

var (
	tokenOnce sync.Once
	tokenEnc  *tiktoken.Tiktoken
	tokenErr  error
)

func newTokenCounter(t *testing.T) tokenCounter {
	tokenOnce.Do(func() {
		tiktoken.SetBpeLoader(tiktokenloader.NewOfflineLoader())
		tokenEnc, tokenErr = tiktoken.GetEncoding("cl100k_base")
	})
	if tokenErr != nil {
		t.Fatal(tokenErr)
	}
	return tokenCounter{enc: tokenEnc}
}

func (c tokenCounter) Count(s string) int { return len(c.enc.EncodeOrdinary(s)) }
