package hashline

import (
	"fmt"
	"slices"
	"strings"
)

// Boundary repair (edit-contract §8.4); the rules and the decisions
// behind them are in the package doc. Repair applies candidates (through
// Apply) only to look at them: the caller still applies the IR it returns.

// Syntax reports whether a whole text parses without errors in the
// grammar of the file being edited. supported is false when the file type
// has no grammar, or the text could not be judged (too large, a parse cut
// short); clean means nothing then. The tool supplies it (a tree-sitter
// checker); this package never parses source code. A Syntax whose checks
// share the edit call's parse time may also have a method Spent() bool,
// true once a check answered unsupported because that time ran out:
// repair then stops its search and says so in a warning. One that keeps
// something between checks (a parse tree to parse the next candidate
// from) may have a method Release(), which repair calls once its search
// is done.
type Syntax interface {
	Check(text string) (supported, clean bool)
}

// Repair applies edit-contract §8.4 to an expanded, validated IR of lines:
// it returns the IR to apply, one warning per repair, or an
// EDIT_REPAIR_AMBIGUOUS *Error. A nil syn means no grammar: only exact
// restatements are dropped. The returned IR still satisfies Validate.
func Repair(lines []string, ir IR, syn Syntax) (IR, []string, error) {
	return RepairText(Lines(lines), ir, syn)
}

// RepairText is Repair on any Text. It reads the lines around each
// replaced range, and every line only when a restatement or a kept row
// needs the whole result or a syntax check (an edit with neither costs
// no pass over the text).
func RepairText(text Text, ir IR, syn Syntax) (IR, []string, error) {
	s := &search{text: text, ir: ir, syn: syn}
	out, acts, notes, err := s.run()
	release(syn)
	if err != nil {
		return IR{}, nil, wholeCall(len(ir.Sources), err)
	}
	warns := make([]string, 0, len(acts)+len(notes))
	for _, a := range acts {
		warns = append(warns, a.warning(ir))
	}
	return out, append(warns, notes...), nil
}

// actKind is one kind of repair.
type actKind uint8

const (
	dropLead  actKind = iota + 1 // the body's first row restated line N-1
	dropTrail                    // the body's last row restated line M+1
	keepFirst                    // line N kept, before the body
	keepLast                     // the effective-last line kept, after the body
)

// action is one repair: which op, which body row (drops, 0-based) or
// which original line (keeps, and the restated line of a drop).
type action struct {
	kind actKind
	src  int
	row  int    // drops: index into the op's authored body
	line int    // the line restated (drops) or kept (keeps)
	text string // the row's text
}

// replacement is one op in scope: it deletes lines start..end and puts
// body rows at PosAt start.
type replacement struct {
	src        int
	start, end int
	ins        []int // indexes into IR.Edits of its body rows, in order
	drops      []action
	keeps      []action // retention candidates that passed the row rules
	withheld   []action // closers the body re-authored: no candidates (reauthored)
}

// repair is Repair with the repairs as data, so tests can check a result
// against exactly what was reported.
func repair(lines []string, ir IR, syn Syntax) (IR, []action, []string, error) {
	s := &search{text: Lines(lines), ir: ir, syn: syn}
	defer release(syn)
	return s.run()
}

// run is one call's repair; the search keeps what it spent, for tests of
// the bounds.
func (s *search) run() (IR, []action, []string, error) {
	ir := s.ir
	if n := s.text.Len(); n != ir.NumLines {
		return IR{}, nil, nil, fail(CodeInvalidArgument, 0, 0,
			"the text has %d lines but the edit was lowered for %d; lower it again for this text", n, ir.NumLines)
	}
	reps := replacements(ir)
	if len(reps) == 0 {
		return ir, nil, nil, nil
	}
	var drops []action
	nb := neighboursOf(ir, s.text.Len())
	for i := range reps {
		r := &reps[i]
		r.drops = echoes(s.text, ir, r, nb)
		if len(r.drops) > 0 && len(r.drops) >= len(r.ins) {
			return IR{}, nil, nil, onlyEchoes(ir, r)
		}
		drops = append(drops, r.drops...)
	}
	s.reps = reps
	// normal is the IR without the restated rows; an edit with none
	// needs it only once kept rows are in play.
	var normal IR
	if len(drops) > 0 {
		normal = s.build(nil)
		if slices.Equal(s.render(normal), s.lines()) && !slices.Equal(s.render(ir), s.lines()) {
			return IR{}, nil, nil, echoesOnlyChange(ir, drops)
		}
	}
	for i := range reps {
		reps[i].keeps, reps[i].withheld = keepCandidates(s.text, ir, &reps[i])
	}
	hasKeeps := slices.ContainsFunc(reps, func(r replacement) bool { return len(r.keeps) > 0 })
	hasWithheld := slices.ContainsFunc(reps, func(r replacement) bool { return len(r.withheld) > 0 })
	if len(drops) == 0 && !hasKeeps && !hasWithheld {
		return ir, nil, nil, nil
	}
	if len(drops) == 0 {
		normal = s.build(nil)
	}
	// Without a grammar a check answers unsupported: the result is not
	// built for it.
	sup, clean := false, false
	if s.syn != nil {
		sup, clean = s.check(wholeText(s.render(normal)))
	}
	if !sup || clean {
		// No grammar (restatements go on equality alone), the normal form
		// could not be checked in time (the same, and a note says so), or
		// it parses: nothing for retention to do.
		return normal, drops, s.notes(), nil
	}
	if len(drops) > 0 {
		if sup, clean := s.check(wholeText(s.render(ir))); sup && clean {
			// The removal is what would break the file: apply as written.
			return ir, nil, nil, nil
		}
	}
	if !hasKeeps {
		return normal, drops, append(s.notes(), s.withheldNotes(normal)...), nil
	}
	best, acts, err := s.retain()
	switch {
	case err != nil:
		return IR{}, nil, nil, err
	case s.exhausted:
		return normal, drops, s.notes(), nil
	case acts == nil:
		return normal, drops, s.withheldNotes(normal), nil
	}
	return best, append(drops, acts...), nil, nil
}

// replacements finds the ops in scope. A span paste lowers to the same
// deletes and PosAt inserts, so the header tells them apart: Parse
// accepts only canonical headers, and a canonical PUT header ends with
// ':' exactly when the model wrote body rows under it (§7.1).
func replacements(ir IR) []replacement {
	n := len(ir.Sources)
	// Each source's edits in IR order, grouped in one list by a counting
	// sort: source s's are order[at[s]:at[s+1]]. The body rows of every
	// replacement are stretches of one list too, so finding them costs a
	// few allocations for any number of ops.
	at := make([]int, n+2)
	for _, e := range ir.Edits {
		if e.Src >= 0 && e.Src < n {
			at[e.Src+2]++
		}
	}
	for s := 2; s < len(at); s++ {
		at[s] += at[s-1]
	}
	order := make([]int, at[n+1])
	for i, e := range ir.Edits {
		if e.Src >= 0 && e.Src < n {
			order[at[e.Src+1]] = i
			at[e.Src+1]++
		}
	}
	candidates := 0
	for _, s := range ir.Sources {
		if inScope(s) {
			candidates++
		}
	}
	out := make([]replacement, 0, candidates)
	var dels []int
	ins := make([]int, 0, len(order))
	for src, s := range ir.Sources {
		if !inScope(s) {
			continue
		}
		r := replacement{src: src}
		ok := true
		dels = dels[:0]
		mark := len(ins)
		for _, i := range order[at[src]:at[src+1]] {
			e := &ir.Edits[i]
			switch {
			case e.Kind == KindDelete:
				dels = append(dels, e.Line)
			case e.Kind == KindInsert && e.Cursor.Pos == PosAt:
				ins = append(ins, i)
			default:
				ok = false // a gap insert: not a replacement
			}
		}
		r.ins = ins[mark:len(ins):len(ins)]
		if !ok || len(dels) == 0 || len(r.ins) == 0 {
			ins = ins[:mark]
			continue
		}
		slices.Sort(dels)
		r.start, r.end = dels[0], dels[len(dels)-1]
		if r.end-r.start+1 != len(slices.Compact(dels)) || // not one contiguous range
			slices.ContainsFunc(r.ins, func(i int) bool { return ir.Edits[i].Cursor.Line != r.start }) {
			ins = ins[:mark]
			continue
		}
		out = append(out, r)
	}
	return orNil(out)
}

// inScope reports whether an op's header is a PUT with body rows.
func inScope(s Source) bool {
	return strings.HasPrefix(s.Header, "PUT ") && strings.HasSuffix(s.Header, ":")
}

// echoes finds the body rows of r that exactly restate the line just
// outside its range; only a non-blank row can restate a line. The outside line must survive (no op consumes it)
// and sit right next to the body in the result (nothing else is inserted
// in between); otherwise the row restates nothing that will be there.
func echoes(lines Text, ir IR, r *replacement, nb neighbours) []action {
	n := lines.Len()
	consumed := nb.consumed
	// The gaps holding inserts other than r's body: every edit of r's
	// source is a delete or a body row inserted at r.start (replacements).
	gaps := map[int]bool{r.start: nb.inserts[r.start] > len(r.ins), r.end + 1: nb.inserts[r.end+1] > 0}
	var out []action
	first, last := ir.Edits[r.ins[0]].Text, ir.Edits[r.ins[len(r.ins)-1]].Text
	// A row equal to the range's own boundary row is that row's final
	// text, which the body is meant to carry (§7.4), as much as it is a
	// restatement of the neighbour: it is not taken for an echo. A blank
	// row restates nothing either: it carries no text a model could have
	// copied by mistake, and a blank line beside a blank line is ordinary
	// (paragraphs, two blank lines between Python definitions).
	if p := r.start - 1; p >= 1 && !consumed[p] && !gaps[r.start] && !blank(first) && first == lines.Line(p) && first != lines.Line(r.start) {
		out = append(out, action{kind: dropLead, src: r.src, row: 0, line: p, text: first})
	}
	if q := r.end + 1; q <= n && !consumed[q] && !gaps[q] && !blank(last) && last == lines.Line(q) && last != lines.Line(r.end) {
		out = append(out, action{kind: dropTrail, src: r.src, row: len(r.ins) - 1, line: q, text: last})
	}
	return out
}

// neighbours is what echoes reads of a whole IR, gathered once per
// call rather than once per replacement: the original lines an op
// consumes, and how many edits insert into each gap.
type neighbours struct {
	consumed map[int]bool
	inserts  map[int]int
}

func neighboursOf(ir IR, n int) neighbours {
	// The maps are sized once, from what the edits can put in them.
	lines, gaps := 0, 0
	for _, e := range ir.Edits {
		if s, en, ok := consumes(e); ok {
			lines += max(en-s+1, 0)
		} else if _, ok := inserts(e); ok {
			gaps++
		}
	}
	nb := neighbours{consumed: make(map[int]bool, lines), inserts: make(map[int]int, gaps)}
	for _, e := range ir.Edits {
		if s, en, ok := consumes(e); ok {
			for l := s; l <= en; l++ {
				nb.consumed[l] = true
			}
		}
		if c, ok := inserts(e); ok {
			nb.inserts[gapOf(c, n)]++
		}
	}
	return nb
}

// onlyEchoes refuses a body with nothing left once its restatements go.
func onlyEchoes(ir IR, r *replacement) error {
	src := ir.source(r.src)
	var what []string
	for _, d := range r.drops {
		what = append(what, fmt.Sprintf("row %d %s is line %d", d.row+1, quote(d.text), d.line))
	}
	return &Error{
		Code: CodeRepairAmbiguous, OpsLine: src.OpsLine, Line: r.start,
		Message: fmt.Sprintf("ops line %d: %q: every body row restates a line just outside the range (%s), so the intent is unclear: without those rows the op would delete %s, with them a line would appear twice. Nothing was written. To delete, use CUT %d.=%d; if %s really should read exactly like its neighbour, write CUT %d.=%d and then %s with the rows: an insertion is never repaired",
			src.OpsLine, src.Header, strings.Join(what, "; "), span(r.start, r.end), r.start, r.end, span(r.start, r.end), r.start, r.end, insertAfterCut(r.end, ir.NumLines)),
	}
}

// insertAfterCut is the gap that takes the place of lines cut up to end.
func insertAfterCut(end, numLines int) string {
	if end >= numLines {
		return "PUT >$:"
	}
	return fmt.Sprintf("PUT <%d:", end+1)
}

// echoesOnlyChange refuses an edit whose only change is a restated row:
// dropping it leaves nothing to write, and keeping it duplicates a line.
// No edit is sent to change nothing, so neither reading is safe.
func echoesOnlyChange(ir IR, drops []action) error {
	d := drops[0]
	src := ir.source(d.src)
	return &Error{
		Code: CodeRepairAmbiguous, OpsLine: src.OpsLine, Line: d.line,
		Message: fmt.Sprintf("ops line %d: %q: body row %d %s restates line %d just outside the range, and without it the edit changes nothing, so the intent is unclear: a second copy of line %d, or no edit at all. Nothing was written. To add a copy, insert it with PUT <%d: or PUT >%d: and that row; if the file already reads as intended, no edit is needed",
			src.OpsLine, src.Header, d.row+1, quote(d.text), d.line, d.line, d.line, d.line),
	}
}

func span(start, end int) string {
	if start == end {
		return fmt.Sprintf("line %d", start)
	}
	return fmt.Sprintf("lines %d-%d", start, end)
}

// withheldNotes names, for a result that does not parse, each closer the
// range covers that was not kept because the body re-authored what it
// closes, and the one edit that puts it back if it was meant to stay.
// Line numbers are those of the result, which the next call's tag names.
func (s *search) withheldNotes(result IR) []string {
	var out []string
	for _, r := range s.reps {
		for _, k := range r.withheld {
			src := s.ir.source(k.src)
			open, _ := partner(s.text, r.start, k.line)
			put := "PUT >$:"
			if r.end < s.ir.NumLines {
				put = fmt.Sprintf("PUT <%d:", resultIndex(result, r.end+1)+1)
			}
			out = append(out, fmt.Sprintf("boundary repair on %q (ops line %d): the result does not parse, and line %d %s, which the range covers, was not kept: the body carries line %d %s again with its own closer, so what is left open is something the body opened, which a later edit may close. If line %d was meant to stay, insert it after the body with %s and the row %s, using the new tag",
				src.Header, src.OpsLine, k.line, quote(k.text), open, quote(strings.TrimSpace(s.text.Line(open))), k.line, put, quote(k.text)))
		}
	}
	return out
}

// notes is the warning of a search cut short, none otherwise.
func (s *search) notes() []string {
	switch {
	case s.outOfTime:
		return []string{timeNote()}
	case s.unjudged:
		return []string{unjudgedNote()}
	case s.exhausted:
		return []string{budgetNote()}
	}
	return nil
}

func timeNote() string {
	return "boundary repair could not finish its syntax checks within the edit call's parse time, so no row the ranges replaced was kept: the edit was applied as written (apart from any restated rows reported above). Check the changed lines below; if a closing or opening line went missing, put it back with one more edit"
}

func unjudgedNote() string {
	return "boundary repair could not check the syntax of one of its candidate results (over the parse limit, or a shape the grammar cannot parse safely), so no row the ranges replaced was kept: the edit was applied as written (apart from any restated rows reported above). Check the changed lines below; if a closing or opening line went missing, put it back with one more edit"
}

func budgetNote() string {
	return fmt.Sprintf("boundary repair stopped at its bound (%d syntax checks, %d MiB parsed, %d candidates) without finishing its search, so no row the ranges replaced was kept: the edit was applied as written (apart from any restated rows reported above). Check the changed lines below; if a closing or opening line went missing, put it back with one more edit", maxRepairChecks, maxRepairParseBytes>>20, maxRepairCandidates)
}

// warning names what an action changed.
func (a action) warning(ir IR) string {
	src := ir.source(a.src)
	head := fmt.Sprintf("boundary repair on %q (ops line %d): ", src.Header, src.OpsLine)
	const next = "Next time name only the lines that change and give their final text as the body"
	switch a.kind {
	case dropLead:
		return head + fmt.Sprintf("dropped body row %d %s, an exact restatement of line %d just above the range, which stays as it is. %s", a.row+1, quote(a.text), a.line, next)
	case dropTrail:
		return head + fmt.Sprintf("dropped body row %d %s, an exact restatement of line %d just below the range, which stays as it is. %s", a.row+1, quote(a.text), a.line, next)
	case keepFirst:
		return head + fmt.Sprintf("kept line %d %s before the body although the range covers it: the result does not parse without it, deleting that line alone breaks the file, and its indentation fits the body. If it was meant to go, remove it with CUT %d.=%d", a.line, quote(a.text), a.line, a.line)
	}
	return head + fmt.Sprintf("kept line %d %s after the body although the range covers it: the result does not parse without it, deleting that line alone breaks the file, and its indentation fits the body. If it was meant to go, remove it with CUT %d.=%d", a.line, quote(a.text), a.line, a.line)
}

// quote shows a row in a message, clipped so one huge line cannot make a
// huge warning.
func quote(s string) string {
	const max = 80
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8Start(s[cut]) {
			cut--
		}
		return fmt.Sprintf("%q…", s[:cut])
	}
	return fmt.Sprintf("%q", s)
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
