package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/workspace"
)

// This file measures read's outline mode on the 106 TypeScript fixtures
// of ts-edit-fixtures: what the model reads to make each fix through the
// outline (the outline, then a read of each block holding a changed line)
// against a read of the whole file, with every fix applied by the real
// edit tool on the lines those reads showed.

// outlineFixture is one fixture: its input file, the file the fix must
// produce, and the fix as edit ops.
type outlineFixture struct {
	ID, File        string
	Input, Expected string
	Ops             string // the ops without their [PATH#TAG] header
}

func loadOutlineFixtures(corpus string) ([]outlineFixture, error) {
	dir := filepath.Join(corpus, "ts-edit-fixtures")
	f, err := os.Open(filepath.Join(dir, "roundtrip-patches.jsonl"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []outlineFixture
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var p struct {
			ID    string `json:"id"`
			File  string `json:"file"`
			Patch string `json:"patch"`
		}
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			return nil, fmt.Errorf("roundtrip-patches.jsonl: %w", err)
		}
		in, err := os.ReadFile(filepath.Join(dir, "fixtures", p.ID, "input", p.File))
		if err != nil {
			return nil, err
		}
		want, err := os.ReadFile(filepath.Join(dir, "fixtures", p.ID, "expected", p.File))
		if err != nil {
			return nil, err
		}
		ops := p.Patch
		if strings.HasPrefix(ops, "[") {
			_, ops, _ = strings.Cut(ops, "\n")
		}
		out = append(out, outlineFixture{ID: p.ID, File: p.File, Input: string(in), Expected: string(want), Ops: ops})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("roundtrip-patches.jsonl: no fixtures")
	}
	return out, nil
}

// outlineCount is what one fixture cost to read each way.
type outlineCount struct {
	id                    string
	whole, outline, reads int // tokens of the whole-file read, the outlines, the block reads
	outlines, blocks      int // outline reads and block reads made
	linesRead, totalLines int
}

// span is an inclusive line range.
type lineSpan struct{ from, to int }

// outlineRow matches an outline row: "N:text", with "  …E" when the
// construct runs on to line E, or "  …S-E" when it starts at line S.
var outlineRow = regexp.MustCompile(`^(\d+):.*?(?:  …(?:(\d+)-)?(\d+))?$`)

// parseOutline reads the spans off an outline's content as a model would.
func parseOutline(content string) []lineSpan {
	var out []lineSpan
	for _, row := range strings.Split(content, "\n")[1:] {
		m := outlineRow.FindStringSubmatch(row)
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		s := lineSpan{n, n}
		if m[2] != "" {
			s.from, _ = strconv.Atoi(m[2])
		}
		if m[3] != "" {
			s.to, _ = strconv.Atoi(m[3])
		}
		out = append(out, s)
	}
	return out
}

// opsHeader matches the locator of an op header: a range "PUT 12.=14:",
// "CUT 3.=4", or a gap "PUT <60:", "PUT >7:".
var opsHeader = regexp.MustCompile(`^(?:PUT|CUT) (?:(\d+)\.=(\d+)|[<>](\d+))`)

// changedLines are the lines the ops anchor on: every line of a range,
// the line beside a gap.
func changedLines(ops string) []int {
	var out []int
	for _, l := range strings.Split(ops, "\n") {
		m := opsHeader.FindStringSubmatch(l)
		switch {
		case m == nil:
		case m[3] != "":
			n, _ := strconv.Atoi(m[3])
			out = append(out, n)
		default:
			a, _ := strconv.Atoi(m[1])
			b, _ := strconv.Atoi(m[2])
			for n := a; n <= b; n++ {
				out = append(out, n)
			}
		}
	}
	return out
}

// drillLines is the block length past which the measured reader outlines
// a block instead of reading it: a model that knows the block it needs is
// long looks inside it first, as the tool description teaches. The table
// also gives the reader that never does (noDrill).
const (
	drillLines = 30
	noDrill    = 1 << 30
)

// pick is the smallest row span in rows that holds line n, or, when no
// row holds it, the lines of w between the rows around it.
func pick(rows []lineSpan, n int, w lineSpan) lineSpan {
	best := lineSpan{}
	for _, r := range rows {
		if r.from <= n && n <= r.to && (best.from == 0 || r.to-r.from < best.to-best.from) {
			best = r
		}
	}
	if best.from != 0 {
		return best
	}
	best = w
	for _, r := range rows {
		if r.to < n {
			best.from = max(best.from, r.to+1)
		}
		if r.from > n {
			best.to = min(best.to, r.from-1)
		}
	}
	return best
}

// merge sorts spans and merges the ones that overlap into one read.
func merge(spans []lineSpan) []lineSpan {
	sort.Slice(spans, func(i, j int) bool { return spans[i].from < spans[j].from })
	var out []lineSpan
	for _, p := range spans {
		if k := len(out) - 1; k >= 0 && p.from <= out[k].to {
			out[k].to = max(out[k].to, p.to)
			continue
		}
		out = append(out, p)
	}
	return out
}

// outliner runs outline reads for one fixture, each window once.
type outliner struct {
	drill  int // outline a block over this many lines instead of reading it
	ctx    context.Context
	x      *toolRig
	file   string
	enc    cl100k
	tag    string
	tokens int
	calls  int
	rows   map[lineSpan][]lineSpan
}

// outline reads the outline of w (the zero span: the whole file).
func (o *outliner) outline(w lineSpan) ([]lineSpan, error) {
	if rows, ok := o.rows[w]; ok {
		return rows, nil
	}
	args := jsonArgs("path", o.file, "mode", "outline")
	if w.from != 0 {
		args = jsonArgs("path", o.file, "mode", "outline", "offset", json.RawMessage(strconv.Itoa(w.from)), "limit", json.RawMessage(strconv.Itoa(w.to-w.from+1)))
	}
	out, err := o.x.call(o.ctx, "read", args)
	if err != nil {
		return nil, fmt.Errorf("outline %v: %w", w, err)
	}
	if tag := out.(*wire.ReadResult).Tag; o.tag == "" {
		o.tag = tag
	} else if tag != o.tag {
		return nil, fmt.Errorf("outline %v minted %s, the first outline %s", w, tag, o.tag)
	}
	o.tokens += o.enc.Count(out.Base().Content)
	o.calls++
	rows := parseOutline(out.Base().Content)
	o.rows[w] = rows
	return rows, nil
}

// blockFor is the span the reader reads for changed line n: the smallest
// outline row holding it, outlined again while it is longer than
// drillLines and its outline has rows.
func (o *outliner) blockFor(n, total int) (lineSpan, error) {
	rows, err := o.outline(lineSpan{})
	if err != nil {
		return lineSpan{}, err
	}
	b := pick(rows, n, lineSpan{1, total})
	for depth := 0; depth < 4 && b.to-b.from+1 > o.drill; depth++ {
		inner, err := o.outline(b)
		if err != nil {
			return lineSpan{}, err
		}
		if len(inner) == 0 {
			break
		}
		next := pick(inner, n, b)
		if next == b {
			break
		}
		b = next
	}
	return b, nil
}

// runOutlineFixture makes one fix through the outline: read the outline
// (and the outline of a long block), read the blocks holding the changed
// lines, edit with the outline's tag. The edit's provenance gate refuses
// any anchor those reads did not show, and the file must end as the
// fixture expects. The whole-file read is measured in a session of its
// own, so it lends the edit no seen lines.
func runOutlineFixture(ctx context.Context, f outlineFixture, enc cl100k, drill int) (outlineCount, error) {
	c := outlineCount{id: f.ID}
	whole, err := newToolRigAt(f.File, f.Input)
	if err != nil {
		return c, err
	}
	read, err := whole.call(ctx, "read", jsonArgs("path", f.File))
	whole.close()
	if err != nil {
		return c, err
	}
	c.whole = enc.Count(read.Base().Content)
	c.totalLines = read.(*wire.ReadResult).TotalLines

	x, err := newToolRigAt(f.File, f.Input)
	if err != nil {
		return c, err
	}
	defer x.close()
	o := &outliner{drill: drill, ctx: ctx, x: x, file: f.File, enc: enc, rows: map[lineSpan][]lineSpan{}}
	var picks []lineSpan
	for _, n := range changedLines(f.Ops) {
		b, err := o.blockFor(n, c.totalLines)
		if err != nil {
			return c, err
		}
		picks = append(picks, b)
	}
	for _, b := range merge(picks) {
		r, err := x.call(ctx, "read", jsonArgs("path", f.File, "offset", json.RawMessage(strconv.Itoa(b.from)), "limit", json.RawMessage(strconv.Itoa(b.to-b.from+1))))
		if err != nil {
			return c, fmt.Errorf("block read %d-%d: %w", b.from, b.to, err)
		}
		if r.(*wire.ReadResult).Tag != o.tag {
			return c, fmt.Errorf("block read %d-%d minted %s, the outline %s", b.from, b.to, r.(*wire.ReadResult).Tag, o.tag)
		}
		c.reads += enc.Count(r.Base().Content)
		c.blocks++
		c.linesRead += b.to - b.from + 1
	}
	c.outline, c.outlines = o.tokens, o.calls
	if _, err := x.call(ctx, "edit", hostdEditArgs(f.File, o.tag, f.Ops)); err != nil {
		return c, fmt.Errorf("edit: %w", err)
	}
	if got := x.fileAt(f.File); got != f.Expected {
		return c, fmt.Errorf("the fix landed, but the file differs from the expected one")
	}
	return c, nil
}

// outlineTotals sums one reader policy over the fixtures.
type outlineTotals struct {
	whole, outline, reads, outlines, blocks, linesRead, totalLines, applied int
	ratios                                                                  []float64
	failed                                                                  []string
}

func runOutlinePolicy(ctx context.Context, fixtures []outlineFixture, enc cl100k, drill int) outlineTotals {
	var t outlineTotals
	for _, f := range fixtures {
		c, err := runOutlineFixture(ctx, f, enc, drill)
		if err != nil {
			t.failed = append(t.failed, f.ID+": "+err.Error())
			continue
		}
		t.whole, t.outline, t.reads = t.whole+c.whole, t.outline+c.outline, t.reads+c.reads
		t.outlines, t.blocks = t.outlines+c.outlines, t.blocks+c.blocks
		t.linesRead, t.totalLines, t.applied = t.linesRead+c.linesRead, t.totalLines+c.totalLines, t.applied+1
		t.ratios = append(t.ratios, float64(c.outline+c.reads)/float64(c.whole))
	}
	sort.Float64s(t.ratios)
	return t
}

func (t outlineTotals) ratio() float64 { return float64(t.outline+t.reads) / float64(t.whole) }

func (t outlineTotals) spread() string {
	r := t.ratios
	return fmtRatio(r[len(r)/2]) + " / " + fmtRatio(r[len(r)*9/10]) + " / " + fmtRatio(r[len(r)-1])
}

// scaleRow is a token count shown for scale beside the outline reads.
type scaleRow struct {
	what   string
	tokens int
}

// outlineTable runs every fixture under both reader policies and sums
// what each read, and shows the token bench's file read whole and
// outlined, for scale.
func outlineTable(ctx context.Context, corpus string, enc cl100k, benchText string, scale []scaleRow) (Table, Goal, []string) {
	const goalName = "outline + block reads vs whole-file read, 106 TypeScript fixes"
	const against = "reading each file whole"
	t := Table{Title: "Reading to fix: outline, then the blocks that hold the changed lines, against the whole file",
		Header: []string{"what", "tokens", "vs whole-file read"}}
	fixtures, err := loadOutlineFixtures(corpus)
	if err != nil {
		return t, skippedGoal(goalName, "<= 0.30x", "corpus absent").vs(against), []string{"outline not measured: the fixtures are not available (" + err.Error() + "); they live in <repo>/../shared/corpus/ts-edit-fixtures"}
	}
	drill := runOutlinePolicy(ctx, fixtures, enc, drillLines)
	flat := runOutlinePolicy(ctx, fixtures, enc, noDrill)
	if drill.applied == 0 || flat.applied == 0 {
		return t, skippedGoal(goalName, "<= 0.30x", "no fixture applied").vs(against), append(drill.failed, flat.failed...)
	}
	ratio := func(n int) string { return fmtRatio(float64(n) / float64(drill.whole)) }
	t.Add(fmt.Sprintf("whole-file read (%d files, %d lines)", drill.applied, drill.totalLines), strconv.Itoa(drill.whole), "1.00x")
	t.Add(fmt.Sprintf("outlines: each file's, and of each block over %d lines (%d outline reads)", drillLines, drill.outlines), strconv.Itoa(drill.outline), ratio(drill.outline))
	t.Add(fmt.Sprintf("block reads (%d reads, %d lines)", drill.blocks, drill.linesRead), strconv.Itoa(drill.reads), ratio(drill.reads))
	t.Add("outline + block reads", strconv.Itoa(drill.outline+drill.reads), fmtRatio(drill.ratio()))
	t.Add("per fix: median / 90th percentile / worst", "-", drill.spread())
	t.Add(fmt.Sprintf("reader that never outlines a block: file outlines + %d block reads (%d lines)", flat.blocks, flat.linesRead),
		strconv.Itoa(flat.outline)+" + "+strconv.Itoa(flat.reads), fmtRatio(flat.ratio())+" (per fix "+flat.spread()+")")
	notes := []string{fmt.Sprintf("Outline: %d of %d fixes applied through the tool path: read mode \"outline\" of the file; for each changed line the smallest row span holding it "+
		"(or the lines between rows when none holds it), outlined in turn (mode \"outline\" with the span's offset and limit) while it is over %d lines and its outline has rows; "+
		"one read (offset, limit) of each span so found; then the fixture's ops in one edit call with the outline's tag. The provenance gate refused nothing, and every file ended byte for byte as the fixture expects. "+
		"The whole-file read is measured in a separate session, so it lends the edit no seen lines. The %d-line threshold is the measured reader's policy; the last row is the reader that reads every block whole.",
		drill.applied, len(fixtures), drillLines, drillLines)}
	for _, f := range append(drill.failed, flat.failed...) {
		notes = append(notes, "outline: not applied: "+f)
	}
	if benchText != "" {
		if x, err := newToolRigAt(benchPath, benchText); err == nil {
			if out, err := x.call(ctx, "read", jsonArgs("path", benchPath, "mode", "outline")); err == nil {
				scale = append(scale, scaleRow{"its outline (read mode \"outline\")", enc.Count(out.Base().Content)})
			}
			x.close()
		}
	}
	for _, r := range scale {
		t.Add(fmt.Sprintf("for scale, the token bench's %d-line file: %s", len(workspace.Lines(benchText)), r.what), strconv.Itoa(r.tokens), "-")
	}
	goal := atMost(goalName, drill.ratio(), 0.3, "x").vs(against)
	if len(drill.failed) > 0 {
		goal = skippedGoal(goalName, "<= 0.30x", fmt.Sprintf("%d fixes did not apply", len(drill.failed))).vs(against)
	}
	return t, goal, notes
}
