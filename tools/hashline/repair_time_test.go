package hashline

import (
	"strings"
	"testing"
)

// timedSyntax answers like its grammar for the first left checks, then
// as a checker whose call ran out of parse time: unsupported, and Spent.
type timedSyntax struct {
	grammar setSyntax
	left    int
	spent   bool
}

func (s *timedSyntax) Check(text string) (bool, bool) {
	if s.left <= 0 {
		s.spent = true
		return false, false
	}
	s.left--
	return s.grammar.Check(text)
}

func (s *timedSyntax) Spent() bool { return s.spent }

// Two ops each swallowed a closer and either kept closer makes the text
// parse (TestRepairTieIsAmbiguous), but the parse time runs out before
// the second candidate is judged. Keeping the first would be a guess: the
// unjudged one might parse too. The search is void, the edit applies as
// written, and a warning says why.
func TestRepairOutOfTimeDoesNotGuess(t *testing.T) {
	input := "if (a) {\n  x();\n}\nif (b) {\n  y();\n}\n"
	ops := "PUT 3.=3:\n+  X();\nPUT 6.=6:\n+  Y();"
	lines, _ := splitText(input)
	keepFirst := "if (a) {\n  x();\n  X();\n}\nif (b) {\n  y();\n  Y();\n"
	keepSecond := "if (a) {\n  x();\n  X();\nif (b) {\n  y();\n  Y();\n}\n"
	authored := "if (a) {\n  x();\n  X();\nif (b) {\n  y();\n  Y();\n"
	grammar := setSyntax{wholeText(lines): true, keepFirst: true, keepSecond: true}
	// The checks: the result, the original, line 3 deleted alone, the
	// first candidate, line 6 deleted alone; the second candidate's is
	// the one cut short.
	o := runRepair(t, input, ops, Env{}, &timedSyntax{grammar: grammar, left: 5})
	if o.err != nil || o.got != authored {
		t.Fatalf("got %q, %v; want the edit as written, %q", o.got, o.err, authored)
	}
	if len(o.warns) != 1 || !strings.Contains(o.warns[0], "could not run its syntax check (the edit call's parse time ran out)") {
		t.Errorf("warnings %q, want the one saying the parse time ran out", o.warns)
	}
}

// The first check, of the result itself, is cut short: nothing is known,
// so the restated row is neither dropped nor asked about on a guess: the
// rows are written as sent (issue 28), and the warning says the check
// could not run and names the row at its line in the result, with the
// edit that removes it.
func TestRepairOutOfTimeAtOnce(t *testing.T) {
	input := "if (a) {\n  x();\n}\n"
	o := runRepair(t, input, "PUT 2.=2:\n+if (a) {\n+  z();", Env{}, &timedSyntax{grammar: setSyntax{}})
	if o.err != nil || o.got != "if (a) {\nif (a) {\n  z();\n}\n" {
		t.Fatalf("got %q, %v; want the rows as sent", o.got, o.err)
	}
	const want = `could not run its syntax check (the edit call's parse time ran out), so it judged nothing and the rows were written exactly as sent. ` +
		`Check what it would have asked about, numbered in the new version: body row 1 "if (a) {" of "PUT 2.=2:", now line 2, is the same text as the line just above it: if it was copied from there by mistake, remove it with CUT 2`
	if len(o.warns) != 1 || !strings.Contains(o.warns[0], want) {
		t.Errorf("warnings %q, want %q", o.warns, want)
	}
}

// unjudgedSyntax judges texts like its grammar, except that it cannot
// judge the listed ones (over the parse limit, refused by a guard), and
// never because of time.
type unjudgedSyntax struct {
	grammar  setSyntax
	unjudged map[string]bool
}

func (s unjudgedSyntax) Check(text string) (bool, bool) {
	if s.unjudged[text] {
		return false, false
	}
	return s.grammar.Check(text)
}

// A candidate the grammar cannot judge ends the search as time does: the
// first candidate parses, the second cannot be judged, and keeping the
// first would be a guess.
func TestRepairUnjudgedCandidateDoesNotGuess(t *testing.T) {
	input := "if (a) {\n  x();\n}\nif (b) {\n  y();\n}\n"
	ops := "PUT 3.=3:\n+  X();\nPUT 6.=6:\n+  Y();"
	lines, _ := splitText(input)
	keepFirst := "if (a) {\n  x();\n  X();\n}\nif (b) {\n  y();\n  Y();\n"
	keepSecond := "if (a) {\n  x();\n  X();\nif (b) {\n  y();\n  Y();\n}\n"
	authored := "if (a) {\n  x();\n  X();\nif (b) {\n  y();\n  Y();\n"
	syn := unjudgedSyntax{grammar: setSyntax{wholeText(lines): true, keepFirst: true}, unjudged: map[string]bool{keepSecond: true}}
	o := runRepair(t, input, ops, Env{}, syn)
	if o.err != nil || o.got != authored {
		t.Fatalf("got %q, %v; want the edit as written, %q", o.got, o.err, authored)
	}
	if len(o.warns) != 1 || !strings.Contains(o.warns[0], "could not run its syntax check (the checker could not judge a text") {
		t.Errorf("warnings %q, want the one saying a candidate could not be judged", o.warns)
	}
}

// endedSyntax is a checker whose parse worker ended during its first
// check: unsupported, and Unavailable says why.
type endedSyntax struct{ why string }

func (s *endedSyntax) Check(string) (bool, bool) { return false, false }
func (s *endedSyntax) Unavailable() string       { return s.why }

// A check whose worker ended is no judgement: the rows are written as
// sent, and the warning names the checker's own reason rather than a
// generic one, so the model (and a person) learns what happened.
func TestRepairNamesWhyTheCheckWasUnavailable(t *testing.T) {
	input := "if (a) {\n  x();\n}\n"
	why := "the parse worker checking a.js ended (it aborted)"
	o := runRepair(t, input, "PUT 2.=2:\n+if (a) {\n+  z();", Env{}, &endedSyntax{why: why})
	if o.err != nil || o.got != "if (a) {\nif (a) {\n  z();\n}\n" {
		t.Fatalf("got %q, %v; want the rows as sent", o.got, o.err)
	}
	if len(o.warns) != 1 || !strings.Contains(o.warns[0], "could not run its syntax check ("+why+")") {
		t.Errorf("warnings %q, want the checker's reason %q", o.warns, why)
	}
}
