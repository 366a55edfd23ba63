package hashline

import (
	"fmt"
	"slices"
	"strings"
)

// Boundary repair asks rather than answers (edit-contract §8.4): when a
// repair would drop a row the model sent or keep a line its range
// deletes, the edit is refused with the row, the reason, and the edit
// both as sent and as repaired, ready to send. Real edits pass through
// states that do not parse and real files repeat lines, so neither a
// parse nor equality proves a slip; the model knows which it meant.

// Question is what boundary repair sends back instead of changing an
// edit: the edit as sent and as each repair would have it, both ready to
// send, in the line numbers of the version the model holds.
type Question struct {
	// AsSent is the patch as sent, in canonical form (Patch.Format). The
	// same request sent again with the same tag applies exactly as sent.
	AsSent string
	// Repaired holds one ops text per repair the refusal names; "" is a
	// repair that is no edit at all (the rows changed nothing else).
	Repaired []string
}

// askKind is what a question is about.
type askKind uint8

const (
	askRepair   askKind = iota + 1 // rows dropped or lines kept, or a body made only of restatements
	askNoChange                    // the only change is a restated row
	askTie                         // repairs of equal cost give different texts
)

// question is a refusal of the search that asks. It is an error only
// inside the package: repairStep turns it into the *Error the model reads.
type question struct {
	kind askKind
	acts []action    // askRepair, askNoChange
	cand IR          // askRepair, askNoChange: the edit as repaired
	ties []candidate // askTie
}

func (q *question) Error() string { return "boundary repair asks" }

// propose is the question for a candidate that changes the edit.
func (s *search) propose(cand IR, acts []action) *question {
	return &question{kind: askRepair, cand: cand, acts: acts}
}

// ask renders q as the refusal the model reads: what repair would change
// and why, and the edit as sent and as repaired, numbered by shown.
func (q *question) ask(s *search, p *Patch, shown func(int) int) *Error {
	num := func(l int) int { return l }
	if shown != nil {
		num = shown
	}
	var why []string
	var repaired []string
	first := -1
	switch q.kind {
	case askTie:
		var opts []string
		for _, c := range q.ties {
			var parts []string
			for _, k := range c.keeps {
				side := "after"
				if k.kind == keepFirst {
					side = "before"
				}
				parts = append(parts, fmt.Sprintf("keeping line %d %s %s the body of %q", num(k.line), quote(k.text), side, s.ir.source(k.src).Header))
			}
			opts = append(opts, strings.Join(parts, " and "))
			repaired = append(repaired, s.repairedText(p, c.ir, append(s.allDrops(), c.keeps...), num))
		}
		first = q.ties[0].keeps[0].src
		why = append(why, fmt.Sprintf("the edit does not parse as sent, and %d repairs of equal cost would make it parse (%s), and the host does not choose between them", len(q.ties), strings.Join(opts, "; or ")))
	case askNoChange:
		d := q.acts[0]
		first = d.src
		why = append(why, fmt.Sprintf("%q: body row %d %s is the same text as line %d just outside the range, and without it the edit changes nothing: as sent, the file gets a second copy of that line; repaired, there is nothing to send (if the file already reads as you want, no edit is needed)",
			s.ir.source(d.src).Header, d.row+1, quote(d.text), num(d.line)))
		repaired = append(repaired, "")
	default:
		first = q.acts[0].src
		why = s.whys(q.acts, num)
		repaired = append(repaired, s.repairedText(p, q.cand, q.acts, num))
	}
	src := s.ir.source(first)
	forms := "Both forms are shown below"
	if len(repaired) > 1 {
		forms = "The edit as sent and each repair are shown below"
	}
	msg := fmt.Sprintf("ops line %d: %s. Boundary repair does not decide this for you (real files repeat lines, and an edit may pass through a state that does not parse), so nothing was written. %s, in the line numbers of the tag you sent: send the one you mean. This same edit, sent again unchanged with the same tag, applies exactly as sent",
		src.OpsLine, strings.Join(why, "; "), forms)
	return &Error{Code: CodeRepairAmbiguous, OpsLine: src.OpsLine, Message: msg,
		Question: &Question{AsSent: formatPatch(p), Repaired: repaired}}
}

// whys says, per op, what the repair would change and why.
func (s *search) whys(acts []action, num func(int) int) []string {
	var out []string
	done := map[int]bool{}
	for _, a := range acts {
		head := s.ir.source(a.src).Header
		if r := s.rep(a.src); r != nil && len(r.drops) > 0 && len(r.drops) >= len(r.ins) {
			if done[a.src] {
				continue
			}
			done[a.src] = true
			var what []string
			for _, d := range r.drops {
				what = append(what, fmt.Sprintf("row %d %s is line %d", d.row+1, quote(d.text), num(d.line)))
			}
			out = append(out, fmt.Sprintf("%q: every body row is the same text as a line just outside the range (%s): as sent, %s is replaced by rows that repeat the lines beside it, which then appear twice; repaired, the op deletes %s",
				head, strings.Join(what, "; "), span(num(r.start), num(r.end)), span(num(r.start), num(r.end))))
			continue
		}
		switch a.kind {
		case dropLead:
			out = append(out, fmt.Sprintf("%q: body row %d %s is the same text as line %d just above the range, which stays: as sent, that text is there twice in a row; repaired, the row is left out", head, a.row+1, quote(a.text), num(a.line)))
		case dropTrail:
			out = append(out, fmt.Sprintf("%q: body row %d %s is the same text as line %d just below the range, which stays: as sent, that text is there twice in a row; repaired, the row is left out", head, a.row+1, quote(a.text), num(a.line)))
		case keepFirst:
			out = append(out, fmt.Sprintf("%q deletes line %d %s, and the result as sent does not parse; keeping that line before the body would make it parse (deleting it alone breaks the file, it is only structure, and its indentation fits the body); repaired, the line stays", head, num(a.line), quote(a.text)))
		case keepLast:
			out = append(out, fmt.Sprintf("%q deletes line %d %s, and the result as sent does not parse; keeping that line after the body would make it parse (deleting it alone breaks the file, it is only structure, and its indentation fits the body); repaired, the line stays", head, num(a.line), quote(a.text)))
		}
	}
	return out
}

// allDrops is every restatement the search found.
func (s *search) allDrops() []action {
	var out []action
	for _, r := range s.reps {
		out = append(out, r.drops...)
	}
	return out
}

// repairedText is the ops of p with each op an action names rewritten as
// cand has it, numbered by num. An op becomes a PUT over what is left of
// its range (or at the gap beside a kept line), and the lines it deletes
// apart from that become plain CUTs, put after every other op so that an
// anonymous paste of the call never takes them.
func (s *search) repairedText(p *Patch, cand IR, acts []action, num func(int) int) string {
	if p == nil {
		return ""
	}
	out := *p
	out.Ops = nil
	changed := map[int]bool{}
	for _, a := range acts {
		changed[a.src] = true
	}
	var cuts []Op
	for i, op := range p.Ops {
		if !changed[i] {
			out.Ops = append(out.Ops, op)
			continue
		}
		put, del := opsOf(cand, i, num)
		if put != nil {
			out.Ops = append(out.Ops, *put)
		}
		cuts = append(cuts, del...)
	}
	out.Ops = append(out.Ops, cuts...)
	return out.Format()
}

// opsOf writes op src of an IR as ops: its rows as one PUT, over the run
// of deleted lines where they go or at their gap, and every other run of
// deleted lines as a CUT.
func opsOf(ir IR, src int, num func(int) int) (*Op, []Op) {
	var dels []int
	var rows []string
	var at Cursor
	for _, e := range ir.Edits {
		if e.Src != src {
			continue
		}
		switch e.Kind {
		case KindDelete:
			dels = append(dels, e.Line)
		case KindInsert:
			rows = append(rows, e.Text)
			at = e.Cursor
		}
	}
	slices.Sort(dels)
	var put *Op
	var cuts []Op
	for i := 0; i < len(dels); {
		j := i
		for j+1 < len(dels) && dels[j+1] == dels[j]+1 {
			j++
		}
		loc := Locator{Kind: LocRange, Start: num(dels[i]), End: num(dels[j])}
		if len(rows) > 0 && at.Pos == PosAt && at.Line >= dels[i] && at.Line <= dels[j] {
			put = &Op{Kind: OpPut, Colon: true, Loc: loc, Body: rows}
		} else {
			cuts = append(cuts, Op{Kind: OpCut, Loc: loc})
		}
		i = j + 1
	}
	if put == nil && len(rows) > 0 {
		var loc Locator
		switch at.Pos {
		case PosHead:
			loc = Locator{Kind: LocBefore, Start: 1, End: 1}
		case PosAfter:
			loc = Locator{Kind: LocAfter, Start: num(at.Line), End: num(at.Line)}
		case PosEnd:
			loc = Locator{Kind: LocEnd}
		default:
			loc = Locator{Kind: LocBefore, Start: num(at.Line), End: num(at.Line)}
		}
		put = &Op{Kind: OpPut, Colon: true, Loc: loc, Body: rows}
	}
	return put, cuts
}

// formatPatch is p in canonical form, "" for none.
func formatPatch(p *Patch) string {
	if p == nil {
		return ""
	}
	return p.Format()
}

// unavailable is the warning of an edit written as sent because a check
// repair needed could not run: why, and each row or line it would have
// asked about, with the one edit that changes it, numbered in the result
// (the version whose tag the edit hands back).
func (s *search) unavailable() []string {
	var items []string
	for i := range s.reps {
		r := &s.reps[i]
		head := s.ir.source(r.src).Header
		for _, d := range r.drops {
			at := rowLine(s.ir, r, d.row)
			side := "below"
			if d.kind == dropLead {
				side = "above"
			}
			items = append(items, fmt.Sprintf("body row %d %s of %q, now line %d, is the same text as the line just %s it: if it was copied from there by mistake, remove it with CUT %d",
				d.row+1, quote(d.text), head, at, side, at))
		}
		for _, k := range r.keeps {
			put := fmt.Sprintf("PUT >%d:", rowLine(s.ir, r, len(r.ins)-1))
			if k.kind == keepFirst {
				put = fmt.Sprintf("PUT <%d:", rowLine(s.ir, r, 0))
			}
			items = append(items, fmt.Sprintf("%q deleted line %d %s, which opens or closes a construct: if it was meant to stay, put it back with %s and the row %s",
				head, k.line, quote(k.text), put, quote(k.text)))
		}
	}
	msg := fmt.Sprintf("boundary repair could not run its syntax check (%s), so it judged nothing and the rows were written exactly as sent", s.reason())
	if len(items) > 0 {
		msg += ". Check what it would have asked about, numbered in the new version: " + strings.Join(items, "; ")
	}
	return []string{msg}
}

// reason says why a check could not run.
func (s *search) reason() string {
	switch {
	case s.syn == nil:
		return "no syntax checker is available"
	case unavailableWhy(s.syn) != "":
		return unavailableWhy(s.syn)
	case s.outOfTime || spent(s.syn):
		return "the edit call's parse time ran out"
	case s.exhausted && !s.unjudged:
		return fmt.Sprintf("it reached its bound of %d checks, %d MiB parsed or %d candidates", maxRepairChecks, maxRepairParseBytes>>20, maxRepairCandidates)
	}
	return "the checker could not judge a text: over the parse limit, declined, or a shape the grammar cannot parse safely"
}

// unavailableWhy is why syn's last check could not be made, when it says
// (a Syntax may implement Unavailable() string; see Syntax).
func unavailableWhy(syn Syntax) string {
	u, ok := syn.(interface{ Unavailable() string })
	if !ok {
		return ""
	}
	return u.Unavailable()
}

// rowLine is the 1-based line, in the result of applying ir, of body row
// j of r: the lines that survive above its range, every row inserted at
// an earlier gap or at the top beside it, and the rows before it.
func rowLine(ir IR, r *replacement, j int) int {
	n := r.start - 1
	for _, e := range ir.Edits {
		switch e.Kind {
		case KindDelete:
			if e.Line < r.start {
				n--
			}
		case KindInsert:
			if g := gapOf(e.Cursor, ir.NumLines); g < r.start || g == r.start && e.Cursor.Pos != PosAt {
				n++
			}
		}
	}
	return n + j + 1
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
