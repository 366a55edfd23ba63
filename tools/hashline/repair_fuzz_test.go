package hashline

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// nestedFile appends a well-formed file of nested blocks, statements and
// doc comments, indented by depth, so the original often parses and the
// rows a range swallows are real closers and fences.
func nestedFile(c *chooser, depth int, out []string) []string {
	ind := strings.Repeat("  ", depth)
	for k := 1 + c.next(3); k > 0 && len(out) < 24; k-- {
		switch c.next(4) {
		case 0:
			out = append(out, ind+"s();")
		case 1:
			out = append(out, ind+"/**", ind+" * d", ind+" */")
		default:
			if depth >= 3 {
				out = append(out, ind+"t();")
				continue
			}
			out = append(out, ind+"if (x) {")
			out = nestedFile(c, depth+1, out)
			out = append(out, ind+"}")
		}
	}
	return out
}

// spliceOracle is the simple model boundary repair is checked against: it
// builds the result from the patch's PUTs with body rows alone (ranges
// and gaps, no registers or blocks), taking each op's
// body with the reported rows dropped and the reported lines kept, and
// splicing it over the op's range. With no actions it is the edit as
// written.
func spliceOracle(lines []string, p *Patch, acts []action) []string {
	type seg struct {
		start, end int
		rows       []string
	}
	var segs []seg
	for src, op := range p.Ops {
		body := slices.Clone(op.Body)
		dropFirst, dropLast := false, false
		var first, last int
		for _, a := range acts {
			if a.src != src {
				continue
			}
			switch a.kind {
			case dropLead:
				dropFirst = true
			case dropTrail:
				dropLast = true
			case keepFirst:
				first = a.line
			case keepLast:
				last = a.line
			}
		}
		if dropLast {
			body = body[:len(body)-1]
		}
		if dropFirst && len(body) > 0 {
			body = body[1:]
		}
		if first > 0 {
			body = append([]string{lines[first-1]}, body...)
		}
		if last > 0 {
			body = append(body, lines[last-1])
		}
		start, end := op.Loc.Start, op.Loc.End
		switch op.Loc.Kind { // a gap replaces no line: end = start-1
		case LocBefore:
			end = start - 1
		case LocAfter:
			start, end = start+1, start
		case LocEnd:
			start, end = len(lines)+1, len(lines)
		}
		segs = append(segs, seg{start, end, body})
	}
	slices.SortFunc(segs, func(a, b seg) int { return cmp.Or(a.start-b.start, a.end-b.end) })
	var out []string
	l := 1
	for _, s := range segs {
		out = append(out, lines[l-1:s.start-1]...)
		out = append(out, s.rows...)
		l = s.end + 1
	}
	return append(out, lines[l-1:]...)
}

// validIR is ops parsed, then planned for lines as repair receives an
// edit (the pipeline's steps before it: Plan with AsSent asks nothing);
// ok is false for ops the language refuses.
func validIR(lines []string, ops string) (p *Patch, ir IR, ok bool) {
	p, err := Parse(ops, Limits{})
	if err != nil {
		return nil, IR{}, false
	}
	ir, _, err = Plan(Lines(lines), p, Env{AsSent: true})
	return p, ir, err == nil
}

// checkRepair runs one edit of range PUTs through the repair search and
// the public step, and checks the contract of §8.4 against the oracle:
// the search proposes the edit as written, or the edit with exactly the
// reported rows dropped or kept; nothing is kept without a grammar; a
// result that parsed as written is never proposed broken. The step itself
// never changes the edit: it asks exactly when the search proposes a
// change (or refuses without one), naming each row and op, and the
// repaired form it offers, sent, gives exactly the proposed text. It
// returns the actions and the search's refusal for callers that expect
// more.
func checkRepair(t *testing.T, lines []string, ops string, syn Syntax) ([]action, error) {
	t.Helper()
	p, ir, ok := validIR(lines, ops)
	if !ok {
		return nil, nil
	}
	counted := &countingSyntax{Syntax: syn}
	var use Syntax
	if syn != nil {
		use = counted
	}
	out, acts, notes, err := repair(lines, ir, use)
	if counted.n > maxRepairChecks {
		t.Fatalf("%d syntax checks, over the bound %d", counted.n, maxRepairChecks)
	}
	var q *question
	if err != nil && !errors.As(err, &q) {
		t.Fatalf("repair failed with %v; only a question is a refusal", err)
	}
	authored := applied(lines, ir)
	if !slices.Equal(authored, spliceOracle(lines, p, nil)) {
		t.Fatalf("the oracle disagrees with Apply on the edit as written")
	}
	var got []string
	if err == nil {
		if err := validateStep(out); err != nil {
			t.Fatalf("repaired IR fails Validate: %v", err)
		}
		got = applied(lines, out)
		if want := spliceOracle(lines, p, acts); !slices.Equal(got, want) {
			t.Fatalf("result differs from the edit with the reported repairs %+v:\ngot  %q\nwant %q", acts, got, want)
		}
		if len(acts) == 0 && !slices.Equal(got, authored) {
			t.Fatalf("the result changed without a reported repair")
		}
		if len(acts) > 0 && len(notes) > 0 {
			t.Fatalf("notes %q beside a proposed repair", notes)
		}
	}
	for _, a := range acts {
		if (a.kind == dropLead || a.kind == dropTrail) && blank(a.text) {
			t.Fatalf("dropped blank row %d as a restatement of line %d", a.row+1, a.line)
		}
		if a.kind == keepFirst || a.kind == keepLast {
			if !hasGrammar(syn) || syn == nil {
				t.Fatalf("kept line %d without a grammar", a.line)
			}
			if sup, clean := syn.Check(wholeText(lines)); !sup || !clean {
				t.Fatalf("kept line %d although the original does not parse", a.line)
			}
		}
	}
	for _, n := range notes {
		if !strings.HasPrefix(n, "boundary repair could not run its syntax check") && !strings.Contains(n, "was not kept") {
			t.Fatalf("unexpected note %q", n)
		}
	}
	if syn != nil && got != nil {
		if sup, clean := syn.Check(wholeText(authored)); sup && clean {
			if sup, clean := syn.Check(wholeText(got)); !sup || !clean {
				t.Fatalf("repair proposed breaking a result that parsed as written:\n%q\n%q", authored, got)
			}
		}
	}
	// The public step, with the same checker.
	warns, perr := repairStep(Lines(lines), p, ir, Env{Syntax: syn})
	var e *Error
	switch {
	case err == nil && len(acts) == 0:
		if perr != nil || !slices.Equal(warns, notes) {
			t.Fatalf("Repair gave %q, %v; the search proposed nothing and noted %q", warns, perr, notes)
		}
		return acts, nil
	case !errors.As(perr, &e) || e.Code != CodeRepairAmbiguous || e.Question == nil || len(warns) > 0:
		t.Fatalf("Repair gave %q, %v; want a question", warns, perr)
	}
	for _, a := range acts {
		if !strings.Contains(e.Message, quote(a.text)) || !strings.Contains(e.Message, p.Ops[a.src].Header) {
			t.Fatalf("question %q does not name row %s of %q", e.Message, quote(a.text), p.Ops[a.src].Header)
		}
	}
	if e.Question.AsSent != p.Format() {
		t.Fatalf("the edit as sent is shown as %q, want %q", e.Question.AsSent, p.Format())
	}
	for i, r := range e.Question.Repaired {
		rp, err := Parse(r, Limits{})
		if r == "" {
			continue
		}
		if err != nil {
			t.Fatalf("the repaired form %q does not parse: %v", r, err)
		}
		rir, _, err := Plan(Lines(lines), rp, Env{AsSent: true})
		if err != nil {
			t.Fatalf("the repaired form %q does not apply: %v", r, err)
		}
		if i == 0 && got != nil && !slices.Equal(applied(lines, rir), got) {
			t.Fatalf("the repaired form %q gives %q; the search proposed %q", r, applied(lines, rir), got)
		}
	}
	return acts, err
}

func applied(lines []string, ir IR) []string {
	res, err := Apply(lines, ir)
	if err != nil {
		return lines // no change
	}
	return res.Lines
}

// balanceSyntax is a grammar small enough to be its own oracle: a text
// parses when its brackets nest.
type balanceSyntax struct{}

func (balanceSyntax) Check(text string) (bool, bool) {
	var stack []byte
	for i := 0; i < len(text); i++ {
		switch c := text[i]; c {
		case '{', '(', '[':
			stack = append(stack, c)
		case '}', ')', ']':
			open := map[byte]byte{'}': '{', ')': '(', ']': '['}[c]
			if len(stack) == 0 || stack[len(stack)-1] != open {
				return true, false
			}
			stack = stack[:len(stack)-1]
		}
	}
	return true, len(stack) == 0
}

// repairRows is the alphabet of fuzzed files: code, blank rows and boundary
// rows at a few depths, so restatements and swallowed closers are common.
var repairRows = []string{
	"a();", "  b();", "    c();", "", "if (x) {", "  if (y) {", "}", "  }", "    }", "});", "/**", " */",
	"<div>", "</div>", "  a();", "const o = {", "};", "(", ")",
}

// FuzzRepair: random files and random range PUTs, whose bodies often
// restate the rows around the range or leave out its boundary rows, never
// propose a result that differs from the edit as written except by the
// repairs they ask about (checkRepair), with a grammar, a bracket grammar,
// none, or no checker.
func FuzzRepair(f *testing.F) {
	f.Add([]byte{8, 0, 4, 1, 6, 2, 1, 3, 2, 0, 0, 1, 1, 2})
	f.Add([]byte{12, 4, 0, 6, 4, 1, 6, 6, 1, 1, 2, 3, 4, 5, 6, 7})
	f.Add([]byte{5, 17, 15, 16, 3, 9, 1, 2, 2, 2, 0, 1})
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRepairCase(t, data) })
}

// fuzzRepairCase builds one file and edit from data and checks it.
func fuzzRepairCase(t *testing.T, data []byte) ([]action, error) {
	lines, ops, grammar := fuzzRepairInput(data)
	if len(lines) == 0 {
		return nil, nil
	}
	var syn Syntax = noGrammar{}
	switch grammar {
	case 0:
		// No checker at all: nothing can be judged, nothing is asked
		// but what needs no check.
		checkRepair(t, lines, ops, nil)
	case 1:
		syn = balanceSyntax{}
	case 2:
		syn = treeSitter(t, "f.ts", "")
	}
	return checkRepair(t, lines, ops, syn)
}

// fuzzRepairInput builds one file and edit of range PUTs from data, and
// picks a grammar: 0 none, 1 balanceSyntax, 2 TypeScript. No file: no
// lines.
func fuzzRepairInput(data []byte) (lines []string, ops string, grammar int) {
	{
		c := &chooser{b: data}
		var lines []string
		if c.next(2) == 0 {
			n := 1 + c.next(14)
			for range n {
				lines = append(lines, repairRows[c.next(len(repairRows))])
			}
		} else {
			lines = nestedFile(c, 0, nil)
		}
		n := len(lines)
		if n == 0 {
			return nil, "", 0
		}
		var ops strings.Builder
		next := 1
		for k := 0; k < 1+c.next(3) && next <= n; k++ {
			start := next + c.next(3)
			if start > n {
				break
			}
			end := min(n, start+c.next(3))
			next = end + 1 + c.next(2)
			ops.WriteString("PUT " + strconv.Itoa(start) + ".=" + strconv.Itoa(end) + ":\n")
			var body []string
			if c.next(3) == 0 && start > 1 {
				body = append(body, lines[start-2]) // restate the line above
			}
			for r := 0; r < c.next(4); r++ {
				body = append(body, repairRows[c.next(len(repairRows))])
			}
			if c.next(2) == 0 { // the range's own rows, less one at either end
				from, to := start-1+c.next(2), end-c.next(2)
				for _, row := range lines[from:max(from, to)] {
					if c.next(3) == 0 {
						row = indent(row) + "z();"
					}
					body = append(body, row)
				}
			}
			if c.next(3) == 0 && end < n {
				body = append(body, lines[end]) // restate the line below
			}
			if len(body) == 0 {
				body = append(body, "z();")
			}
			for _, row := range body {
				ops.WriteString("+" + row + "\n")
			}
		}
		return lines, ops.String(), c.next(3)
	}
}

// FuzzRepairTreeCache: a repair whose checks go through a tree cache (each
// candidate parsed incrementally, from the file's tree or from the last
// candidate's, as the daemon parses them) gives exactly the answer of one
// whose checks parse every text from scratch, after the same checks.
func FuzzRepairTreeCache(f *testing.F) {
	f.Add([]byte{8, 0, 4, 1, 6, 2, 1, 3, 2, 0, 0, 1, 1, 2})
	f.Add([]byte{12, 4, 0, 6, 4, 1, 6, 6, 1, 1, 2, 3, 4, 5, 6, 7})
	f.Add([]byte{1, 2, 1, 0, 1, 2, 0, 1, 1, 0, 2, 2, 1, 2, 0, 1, 2, 2})
	f.Fuzz(func(t *testing.T, data []byte) {
		lines, ops, _ := fuzzRepairInput(data)
		if len(lines) == 0 {
			return
		}
		_, ir, ok := validIR(lines, ops)
		if !ok {
			return
		}
		base := wholeText(lines)
		scratch := &countingSyntax{Syntax: treeSitter(t, "f.ts", base)}
		cached := &countingSyntax{Syntax: cachedTreeSitter(t, "f.ts", base)}
		out, acts, notes, err := repair(lines, ir, scratch)
		cout, cacts, cnotes, cerr := repair(lines, ir, cached)
		if fmt.Sprint(err) != fmt.Sprint(cerr) || !slices.Equal(applied(lines, out), applied(lines, cout)) ||
			!slices.EqualFunc(acts, cacts, func(a, b action) bool { return a == b }) || !slices.Equal(notes, cnotes) || scratch.n != cached.n {
			t.Fatalf("%q on %q: from scratch %d checks, %+v, %q, %v; through the cache %d checks, %+v, %q, %v",
				ops, lines, scratch.n, acts, notes, err, cached.n, cacts, cnotes, cerr)
		}
	})
}
