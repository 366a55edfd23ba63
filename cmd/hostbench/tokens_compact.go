package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/session"
	"github.com/hostd-dev/hostd/tools"
)

// This file measures the edit tool's compact result (wire-contract
// session.create editResult) on the token benchmark, beside the full
// result and beside str_replace tools that answer "ok" (Codex's
// apply_patch) or a numbered snippet.

// okResult is what an "ok"-result str_replace tool answers a success.
const okResult = "ok"

// compactEdits is what the real tools returned with compact results.
type compactEdits struct {
	contents    []string // each per-edit result's content, session form
	perCallArgs []string // each per-edit request carrying result "compact"
	batchResult string   // the one call of the applicable ops
	// shown pairs what an MCP host shows the model of a result: its text
	// (hostd mcp's default) and its JSON, which structuredContent carries
	// with --structured-results: the read, a grep, each edit.
	shown []mcpShown
}

// mcpShown is one result as text and as JSON.
type mcpShown struct{ call, text, json string }

// shownOf is out as mcpShown: the JSON written as JSON.stringify writes
// it (no HTML escapes).
func shownOf(call string, out tools.Outcome) mcpShown {
	return mcpShown{call: call, text: out.Base().Content, json: jsonValue(out)}
}

// runCompactEdits repeats the edit-by-edit run and the one call in a
// session created compact, and checks each leaves the file the full run
// left.
func runCompactEdits(ctx context.Context, c tokenCorpus, real realEdits) (compactEdits, error) {
	var out compactEdits
	x, err := newCompactRig(c.Text)
	if err != nil {
		return out, err
	}
	defer x.close()
	read, err := x.call(ctx, "read", jsonArgs("path", benchPath))
	if err != nil {
		return out, err
	}
	tag := read.(*wire.ReadResult).Tag
	out.shown = append(out.shown, shownOf("read", read))
	grep, err := x.call(ctx, "grep", jsonArgs("pattern", mcpGrepPattern))
	if err != nil {
		return out, err
	}
	out.shown = append(out.shown, shownOf("grep", grep))
	for _, e := range c.Edits {
		ops := hostdOp(e.SeqStart, e.SeqEnd, e.Replacement)
		res, err := x.call(ctx, "edit", hostdArgs(benchPath, tag, ops))
		if err != nil {
			return out, fmt.Errorf("compact edit %d: %w", e.I, err)
		}
		out.shown = append(out.shown, shownOf("edit", res))
		out.contents = append(out.contents, res.Base().Content)
		out.perCallArgs = append(out.perCallArgs, jsonArgs("path", benchPath+"#"+tag, "ops", ops, "result", "compact"))
		tag = res.(*wire.EditResult).Tag
	}
	if x.file() != real.final {
		return out, fmt.Errorf("the compact edit-by-edit run left a different file")
	}

	y, err := newCompactRig(c.Text)
	if err != nil {
		return out, err
	}
	defer y.close()
	read, err = y.call(ctx, "read", jsonArgs("path", benchPath))
	if err != nil {
		return out, err
	}
	res, err := y.call(ctx, "edit", hostdArgs(benchPath, read.(*wire.ReadResult).Tag, real.batchOps))
	if err != nil {
		return out, fmt.Errorf("compact one call: %w", err)
	}
	if y.file() != real.batchFinal {
		return out, fmt.Errorf("the compact one call left a different file")
	}
	out.batchResult = res.Base().Content
	return out, nil
}

// newCompactRig is a rig (newToolRig) whose session is created compact,
// as session.create with editResult "compact" makes it.
func newCompactRig(text string) (*toolRig, error) {
	r, err := newToolRig(text)
	if err != nil {
		return nil, err
	}
	s, err := r.m.CreateWith("compact", r.s.State().Workspace, session.Prefs{EditResult: session.FormCompact})
	if err != nil {
		r.close()
		return nil, err
	}
	r.s = s
	return r, nil
}

// resultFormTable compares the round trip of each result form with the
// two str_replace arms.
func resultFormTable(a armCounts, comp compactEdits, enc cl100k) (Table, Goal, string) {
	t := Table{Title: "Edit result forms: round trip (request + result) against str_replace answering \"ok\" or a snippet",
		Header: []string{"arm", "request", "result", "total", "vs str_replace \"ok\"", "vs str_replace snippet"}}
	var hq, hr, sq, ss, cr, cq, long int
	for i, p := range a.per {
		hq, hr, sq, ss = hq+p.hostReq, hr+p.hostRes, sq+p.strReq, ss+p.strRes
		long += p.hostLong
		cr += enc.Count(comp.contents[i])
		cq += enc.Count(comp.perCallArgs[i])
	}
	ok := sq + len(a.per)*enc.Count(okResult)
	snippet := sq + ss
	row := func(name string, req, res int) {
		t.Add(name, strconv.Itoa(req), strconv.Itoa(res), strconv.Itoa(req+res),
			fmtRatio(float64(req+res)/float64(ok)), fmtRatio(float64(req+res)/float64(snippet)))
	}
	row("str_replace, \"ok\" result, one call per edit", sq, ok-sq)
	row("str_replace, numbered snippet result, one call per edit", sq, ss)
	row("hostd edit, full result, one call per edit", hq, hr)
	row("hostd edit, compact result (session editResult), one call per edit", hq, cr)
	row("hostd edit, compact result (result arg in every call), one call per edit", cq, cr)
	row("hostd edit, full result, one call of the applicable ops", a.hostBatch, a.hostBatchRes)
	row("hostd edit, compact result, one call of the applicable ops", a.hostBatch, enc.Count(comp.batchResult))
	room := 0.75*float64(ok) - float64(hq)
	bare := 0 // results that are the new tag alone
	for _, c := range comp.contents {
		if !strings.ContainsAny(c, " \n") {
			bare++
		}
	}
	note := fmt.Sprintf("Compact result: the %d one-call-per-edit requests alone cost %d tokens, %s of the \"ok\" arm's %d, so 0.75x leaves %.0f tokens for %d results (%.1f each); "+
		"the new tag alone (\"#\" and 4 hex digits) costs 3-5 tokens, and a result lists a region's span only when the region moved or changed size: %d of the %d results here are the tag alone, "+
		"and the results average %.1f tokens. The requests name the file as PATH#TAG and a one-line range as `PUT N:` (edit-contract §6, §7.1); with a separate tag argument and `PUT N.=N:` they cost %d. "+
		"The session form adds nothing to the requests; a result argument in every call adds %d tokens in all.",
		len(a.per), hq, fmtRatio(float64(hq)/float64(ok)), ok, room, len(a.per), room/float64(len(a.per)), bare, len(a.per), float64(cr)/float64(len(a.per)), long, cq-hq)
	return t, atMost(goalCompact, float64(hq+cr)/float64(ok), 0.75, "x").vs(againstOK), note
}

// mcpGrepPattern is the grep of the MCP table: a word the token bench's
// file uses on several lines.
const mcpGrepPattern = "return"

// mcpTable is what an MCP host shows the model of the compact run's
// results: hostd mcp's default, the text alone, against the JSON that
// structuredContent carries with --structured-results, which Claude Code
// shows the model in place of the text and other hosts beside it.
func mcpTable(comp compactEdits, enc cl100k) Table {
	t := Table{Title: "What an MCP host shows the model of a result: the text (hostd mcp's default) or structuredContent's JSON (--structured-results)",
		Header: []string{"results", "text", "structuredContent JSON", "ratio"}}
	type sum struct{ n, text, json int }
	sums := map[string]*sum{}
	var order []string
	for _, r := range comp.shown {
		if sums[r.call] == nil {
			sums[r.call] = &sum{}
			order = append(order, r.call)
		}
		s := sums[r.call]
		s.n++
		s.text += enc.Count(r.text)
		s.json += enc.Count(r.json)
	}
	names := map[string]string{
		"read": "read of the whole file",
		"grep": fmt.Sprintf("grep %q in the workspace", mcpGrepPattern),
		"edit": "compact edit results, one call per replacement",
	}
	for _, k := range order {
		s := sums[k]
		name := names[k]
		if s.n > 1 {
			name = fmt.Sprintf("%s (%d, summed)", name, s.n)
		}
		t.Add(name, strconv.Itoa(s.text), strconv.Itoa(s.json), fmtRatio(float64(s.json)/float64(s.text)))
	}
	return t
}
