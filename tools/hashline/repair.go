package hashline

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Boundary repair (edit-contract §8.4); the rules and the decisions
// behind them are in the package doc. The search applies candidates
// (through Apply) only to look at them; repairStep never returns one to apply:
// it asks about the one it found (repair_ask.go).

// Syntax reports whether a whole text parses without errors in the
// grammar of the file being edited. supported is false when the file type
// has no grammar, or the text could not be judged (too large, a parse cut
// short, a parse the checker declined); clean means nothing then. The
// tool supplies it (a tree-sitter checker); this package never parses
// source code.
//
// A Syntax may have four more methods. Language() string: "" says the
// file type has no grammar, so there is nothing to check; without it, or
// when it names a grammar, an unsupported answer means the check could
// not run, and repair then writes the rows as sent and says so (§8.4).
// Spent() bool: true once a check answered unsupported because the edit
// call's parse time ran out, which the warning names. Unavailable()
// string: why the last check could not be made (its parse worker ended,
// say), which the warning names; "" when none failed. Release(): frees
// what the Syntax keeps between checks (a parse tree to parse the next
// candidate from); repair calls it once its search is done.
type Syntax interface {
	Check(text string) (supported, clean bool)
}

// repairStep is boundary repair (edit-contract §8.4) on an expanded, validated
// IR of text, p being the patch it was lowered from. It never changes the
// edit. When a repair would drop a row the model sent or keep a line its
// range deletes, it refuses with an EDIT_REPAIR_AMBIGUOUS *Error whose
// Question holds the edit as sent and as repaired, ready to send; with
// env.AsSent (the model sent the same request again after that question)
// it asks nothing. When the syntax check that would judge a candidate
// cannot run (no checker, out of time, over a bound, declined), the edit
// applies as sent and the warnings returned say so, naming what to check
// in the numbers of the new version.
func repairStep(text Text, p *Patch, ir IR, env Env) ([]string, error) {
	if env.AsSent {
		return nil, nil
	}
	s := &search{text: text, ir: ir, syn: env.Syntax}
	cand, acts, notes, err := s.run()
	release(env.Syntax)
	var q *question
	switch {
	case errors.As(err, &q):
		// a refusal that is a question: below
	case err != nil:
		return nil, wholeCall(len(ir.Sources), err)
	case len(acts) > 0:
		q = s.propose(cand, acts)
	default:
		return notes, nil
	}
	return nil, q.ask(s, p, env.Shown)
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

// repair is the search as data, for tests: the IR a repair would apply,
// its actions, the warnings of an edit applied as sent, or a refusal (a
// *question for the cases repair asks about).
func repair(lines []string, ir IR, syn Syntax) (IR, []action, []string, error) {
	s := &search{text: Lines(lines), ir: ir, syn: syn}
	defer release(syn)
	return s.run()
}

// run is one call's search. It returns the edit as sent and no actions
// when there is nothing to ask (with warnings when a check that was
// needed could not run, or a closer was left out); the candidate and its
// actions when a repair would change the edit; a *question for the
// refusals that need no candidate search; another error for misuse.
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
	var nb *neighbours // built once some row reads like its neighbour
	for i := range reps {
		r := &reps[i]
		if !mayEcho(s.text, ir, r) {
			continue
		}
		if nb == nil {
			n := neighboursOf(ir, s.text.Len())
			nb = &n
		}
		r.drops = echoes(s.text, ir, r, *nb)
		drops = append(drops, r.drops...)
	}
	s.reps = reps
	// normal is the IR without the restated rows; an edit with none
	// needs it only once kept rows are in play.
	var normal IR
	if len(drops) > 0 {
		normal = s.build(nil)
		for i := range reps {
			if r := &reps[i]; len(r.drops) > 0 && len(r.drops) >= len(r.ins) {
				return IR{}, nil, nil, &question{kind: askRepair, acts: drops, cand: normal}
			}
		}
		if slices.Equal(s.render(normal), s.lines()) && !slices.Equal(s.render(ir), s.lines()) {
			return IR{}, nil, nil, &question{kind: askNoChange, acts: drops, cand: normal}
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
	if !hasGrammar(s.syn) {
		// Nothing to check: a restatement is asked about on equality
		// alone, and nothing is ever kept.
		return normal, drops, nil, nil
	}
	sup, clean := s.check(wholeText(s.render(normal)))
	switch {
	case !sup:
		return ir, nil, s.unavailable(), nil
	case clean:
		// The result without the restated rows parses: parsing is no
		// proof the rows were slips, so they are asked about.
		return normal, drops, nil, nil
	}
	if len(drops) > 0 {
		sup, clean := s.check(wholeText(s.render(ir)))
		switch {
		case !sup:
			return ir, nil, s.unavailable(), nil
		case clean:
			// The removal is what would break the file: apply as written.
			return ir, nil, nil, nil
		}
	}
	if !hasKeeps {
		return normal, drops, s.withheldNotes(ir), nil
	}
	best, acts, err := s.retain()
	switch {
	case err != nil:
		return IR{}, nil, nil, err
	case s.exhausted:
		return ir, nil, s.unavailable(), nil
	case acts == nil:
		return normal, drops, s.withheldNotes(ir), nil
	}
	return best, append(drops, acts...), nil, nil
}

// hasGrammar reports whether syn can judge texts of the file at all: a
// checker that names no grammar (Language() == "") has nothing to check.
// A nil syn is no checker, which is not the same: the file may have a
// grammar the check could not use.
func hasGrammar(syn Syntax) bool {
	if syn == nil {
		return true
	}
	l, ok := syn.(interface{ Language() string })
	return !ok || l.Language() != ""
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

// mayEcho reports whether r's first or last row has the text of the line
// just outside its range: the two line reads that let an edit with no
// restatement skip the rest of the search (echoes checks the rest).
func mayEcho(lines Text, ir IR, r *replacement) bool {
	first, last := ir.Edits[r.ins[0]].Text, ir.Edits[r.ins[len(r.ins)-1]].Text
	return r.start > 1 && first == lines.Line(r.start-1) || r.end < lines.Len() && last == lines.Line(r.end+1)
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
