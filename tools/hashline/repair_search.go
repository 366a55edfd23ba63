package hashline

import (
	"errors"
	"strings"
)

// maxRepairChecks bounds the syntax checks (each a parse of the whole
// text) one call may spend on boundary repair.
const maxRepairChecks = 32

// maxRepairCandidates bounds the candidate IRs one call builds and
// applies, whether or not they reach a syntax check, so a call with many
// ops cannot spend combinatorial time on them.
const maxRepairCandidates = 4 * maxRepairChecks

// maxRepairParseBytes bounds the text all of one call's syntax checks
// parse together: at the block parse limit (4 MiB) a check takes most of
// a second, so a big file gets a few checks rather than 32.
const maxRepairParseBytes = 24 << 20

// search is one call's retention search (edit-contract §8.4): the
// original lines, the validated IR, the ops in scope with their
// restatements and admissible-by-shape kept rows, and the budget spent.
type search struct {
	text Text
	// all is every line of text, split out by lines() for the steps
	// that read them all: a whole result, a syntax check.
	all  []string
	ir   IR
	reps []replacement
	syn  Syntax

	checks, built int
	parsed        int          // bytes of text checked
	judged        bool         // a check answered supported
	exhausted     bool         // the budget ran out; the search result is void
	outOfTime     bool         // it was the call's parse time that ran out
	unjudged      bool         // it was a text the grammar could not judge
	essential     map[int]bool // line -> deleting it alone breaks the original
}

// check runs one syntax check within the budget. Past the budget it
// reports unsupported and marks the search exhausted. A check that
// answers unsupported after an earlier one answered (the grammar exists,
// but this text could not be judged: the call's parse time ran out, or a
// candidate outgrew the parse limit) exhausts the search too: candidates
// are compared only when every one of them was judged, so a text nobody
// could parse never loses to one that could be, and repair never guesses.
func (s *search) check(text string) (supported, clean bool) {
	if s.syn == nil {
		return false, false
	}
	if s.checks >= maxRepairChecks || s.parsed+len(text) > maxRepairParseBytes {
		s.exhausted = true
		return false, false
	}
	s.checks++
	s.parsed += len(text)
	supported, clean = s.syn.Check(text)
	out := spent(s.syn)
	switch {
	case supported:
		s.judged = true
	case s.judged || out:
		s.exhausted, s.outOfTime, s.unjudged = true, out, !out
	}
	return supported, clean
}

// spent reports whether syn says its checks ran out of the call's parse
// time (a Syntax may implement Spent() bool; see Syntax).
func spent(syn Syntax) bool {
	sp, ok := syn.(interface{ Spent() bool })
	return ok && sp.Spent()
}

// release lets syn free what it keeps between checks (a Syntax may
// implement Release(); see Syntax).
func release(syn Syntax) {
	if r, ok := syn.(interface{ Release() }); ok {
		r.Release()
	}
}

// build returns the IR with every restated row dropped and the given rows
// kept. A kept row loses its delete, and the body moves to stay on the
// right side of it: after a kept first row, before a kept last row.
func (s *search) build(keeps []action) IR {
	skip := map[int]bool{}
	for _, r := range s.reps {
		for _, d := range r.drops {
			skip[r.ins[d.row]] = true
		}
	}
	moved := map[int]Cursor{} // src -> where its body goes now
	for _, k := range keeps {
		r := s.rep(k.src)
		for i, e := range s.ir.Edits {
			if e.Kind == KindDelete && e.Src == k.src && e.Line == k.line {
				skip[i] = true
			}
		}
		switch {
		case k.kind == keepFirst && r.end > r.start:
			moved[k.src] = Cursor{Pos: PosAt, Line: r.start + 1}
		case k.kind == keepFirst:
			moved[k.src] = Cursor{Pos: PosAfter, Line: r.start}
		case k.line == r.start && r.start == 1:
			moved[k.src] = Cursor{Pos: PosHead}
		case k.line == r.start:
			moved[k.src] = Cursor{Pos: PosBefore, Line: r.start}
		}
	}
	out := s.ir.clone()
	out.Edits = out.Edits[:0:0]
	for i, e := range s.ir.Edits {
		if skip[i] {
			continue
		}
		if c, ok := moved[e.Src]; ok && e.Kind == KindInsert && e.Cursor.Pos == PosAt {
			e.Cursor = c
		}
		out.Edits = append(out.Edits, e)
	}
	return out
}

func (s *search) rep(src int) *replacement {
	for i := range s.reps {
		if s.reps[i].src == src {
			return &s.reps[i]
		}
	}
	return nil
}

// render applies ir and returns the new lines; an apply that changes
// nothing yields the original lines (Apply reports that later, to the
// model).
func (s *search) render(ir IR) []string {
	res, err := ApplyText(s.text, ir)
	if err != nil {
		return s.lines()
	}
	return res.NewLines(s.text)
}

// lines returns every original line, reading them on first use.
func (s *search) lines() []string {
	if s.all == nil {
		s.all = linesOf(s.text, 1, s.text.Len())
	}
	return s.all
}

// wholeText is what a syntax check sees: the lines with a final newline,
// as the file is written.
func wholeText(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

// candidate is an admissible set of kept rows and the result it gives.
type candidate struct {
	ir    IR
	keeps []action
	text  string
}

var errExhausted = errors.New("repair budget exhausted")

// retain searches the kept-row candidates, cheapest first. It returns the
// single cheapest admissible candidate's IR and its keeps; no keeps when
// nothing is admissible or the original did not parse; an
// EDIT_REPAIR_AMBIGUOUS error when the cheapest admissible candidates give
// different texts. s.exhausted says the search was cut short.
func (s *search) retain() (IR, []action, error) {
	if sup, clean := s.check(wholeText(s.lines())); !sup || !clean {
		return IR{}, nil, nil // retention needs an original that parsed
	}
	var groups [][]action
	for _, r := range s.reps {
		if len(r.keeps) > 0 {
			groups = append(groups, r.keeps)
		}
	}
	s.essential = map[int]bool{}
	for size := 1; size <= len(groups); size++ {
		var found []candidate
		err := s.combine(groups, size, nil, func(keeps []action) error {
			c, ok, err := s.try(keeps)
			if ok {
				found = append(found, c)
			}
			return err
		})
		if errors.Is(err, errExhausted) {
			s.exhausted = true
			return IR{}, nil, nil
		}
		if len(found) == 0 {
			continue
		}
		for _, c := range found[1:] {
			if c.text != found[0].text {
				return IR{}, nil, s.ambiguous(found)
			}
		}
		return found[0].ir, found[0].keeps, nil
	}
	return IR{}, nil, nil
}

// combine calls f with every way of keeping one row in each of size of the
// groups, in a fixed order.
func (s *search) combine(groups [][]action, size int, picked []action, f func([]action) error) error {
	if size == 0 {
		return f(append([]action(nil), picked...))
	}
	for i := range groups {
		if len(groups)-i < size {
			break
		}
		for _, k := range groups[i] {
			if err := s.combine(groups[i+1:], size-1, append(picked, k), f); err != nil {
				return err
			}
		}
	}
	return nil
}

// try builds one candidate and tests every admission rule that depends on
// the candidate as a whole, cheapest first.
func (s *search) try(keeps []action) (candidate, bool, error) {
	if s.built >= maxRepairCandidates {
		return candidate{}, false, errExhausted
	}
	s.built++
	ir := s.build(keeps)
	if validate(ir) != nil {
		return candidate{}, false, nil
	}
	out := s.render(ir)
	for _, k := range keeps {
		if !linesUp(out, ir, k) {
			return candidate{}, false, nil
		}
	}
	for _, k := range keeps {
		ess, known := s.essential[k.line]
		if !known {
			sup, clean := s.check(wholeText(deleteLine(s.lines(), k.line)))
			if s.exhausted {
				return candidate{}, false, errExhausted
			}
			ess = sup && !clean
			s.essential[k.line] = ess
		}
		if !ess {
			return candidate{}, false, nil
		}
	}
	text := wholeText(out)
	sup, clean := s.check(text)
	if s.exhausted {
		return candidate{}, false, errExhausted
	}
	if !sup || !clean {
		return candidate{}, false, nil
	}
	return candidate{ir: ir, keeps: keeps, text: text}, true, nil
}

func deleteLine(lines []string, line int) []string {
	out := make([]string, 0, len(lines)-1)
	out = append(out, lines[:line-1]...)
	return append(out, lines[line:]...)
}

// ambiguous is the question of a tie: every cheapest repair is named,
// and the host picks none of them.
func (s *search) ambiguous(found []candidate) error {
	return &question{kind: askTie, ties: found}
}
