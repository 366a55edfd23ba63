package hashline

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/tools/blocks"
)

// The harness of the boundary-repair tests: one edit through the pipeline
// the tool runs, and a table case with its expected answer.

// repairOutcome is one edit through the pipeline the tool runs (Plan,
// then Apply). When repair asks, got is what its first repaired form gives
// when sent, and sent what the edit gives sent again unchanged.
type repairOutcome struct {
	got   string
	warns []string // the warnings of an edit that landed
	err   error
	q     *Question // what repair asked
	sent  string
}

// runRepair runs an edit and, when repair asks, checks that each form the
// question offers is ready to send: the repaired forms land as they are,
// asking nothing, and the edit sent again unchanged lands as sent.
func runRepair(t *testing.T, input, ops string, env Env, syn Syntax) repairOutcome {
	t.Helper()
	lines, trailing := splitText(input)
	env.Syntax = syn
	apply := func(ops string, env Env) (string, []string, error) {
		p, err := Parse(ops, env.Limits)
		if err != nil {
			t.Fatalf("parse %q: %v", ops, err)
		}
		ir, warns, err := Plan(Lines(lines), p, env)
		if err != nil {
			return "", nil, err
		}
		res, err := Apply(lines, ir)
		if err != nil {
			return "", warns, err
		}
		return joinText(res.Lines, trailing), warns, nil
	}
	got, warns, err := apply(ops, env)
	var e *Error
	if !errors.As(err, &e) || e.Question == nil {
		return repairOutcome{got: got, warns: warns, err: err}
	}
	o := repairOutcome{err: err, q: e.Question}
	again := env
	again.AsSent = true
	sent, w, err := apply(ops, again)
	if err != nil && !errors.Is(err, ErrNoChange) || len(w) > 0 {
		t.Fatalf("sent again, %q gives %v, %q; want it applied as sent", ops, err, w)
	}
	o.sent = sent
	for i, r := range e.Question.Repaired {
		got := input
		if r != "" {
			var err error
			if got, w, err = apply(r, env); err != nil || len(w) > 0 {
				t.Fatalf("the repaired form %q of %q gives %v, %q; want it to land as it is", r, ops, err, w)
			}
		}
		if i == 0 {
			o.got = got
		}
	}
	return o
}

type repairCase struct {
	name       string
	path       string // picks the grammar; "" means no Syntax at all
	input, ops string
	want       string // the new text, when the edit applies; when repair asks, what its repaired form gives
	asks       bool   // repair asks: the warnings are fragments of its message
	sent       string // when repair asks and this is set: what the edit gives sent again
	code       Code   // the error code, when it is refused otherwise
	// warnings holds one fragment per expected warning, in order.
	warnings    []string
	regs        map[string][]string
	useResolver bool
}

// run runs the case twice, with its checks parsed from scratch and
// through a tree cache (parsed incrementally, as the daemon parses them):
// both must give the case's answer.
func (tc repairCase) run(t *testing.T) {
	t.Helper()
	var syn Syntax
	if tc.path != "" {
		syn = treeSitter(t, tc.path, tc.input)
	}
	tc.runWith(t, syn)
	if tc.path != "" {
		tc.runWith(t, cachedTreeSitter(t, tc.path, tc.input))
	}
}

// cachedTreeSitter is treeSitter with its checks served by a tree cache
// of its own.
func cachedTreeSitter(t testing.TB, path, text string) Syntax {
	t.Helper()
	lim := config.DefaultLimits()
	trees, err := blocks.NewTrees(lim.MaxParseTreeBytes)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(trees.Close)
	s, err := trees.NewSyntax(context.Background(), path, text, lim.MaxBlockParseBytes)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (tc repairCase) runWith(t *testing.T, syn Syntax) {
	t.Helper()
	env := Env{}
	if tc.regs != nil {
		r := newMemRegisters()
		for k, v := range tc.regs {
			r.m[k] = v
		}
		env.Registers = r
	}
	if tc.useResolver {
		r, err := blocks.NewResolver(tc.path, tc.input, config.DefaultLimits().MaxBlockParseBytes)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		env.Resolver = r
	}
	o := runRepair(t, tc.input, tc.ops, env, syn)
	if tc.code != 0 {
		var e *Error
		if !errors.As(o.err, &e) || e.Code != tc.code {
			t.Fatalf("want %s, got %q, %v", tc.code, o.got, o.err)
		}
		if !errors.Is(o.err, sentinels[tc.code]) {
			t.Errorf("%v does not unwrap to its sentinel", o.err)
		}
		return
	}
	if (o.q != nil) != tc.asks {
		t.Fatalf("asked %v (%v), want %v; got %q, warnings %q", o.q != nil, o.err, tc.asks, o.got, o.warns)
	}
	if o.err != nil && o.q == nil {
		t.Fatalf("unexpected error: %v", o.err)
	}
	if o.got != tc.want {
		t.Errorf("result:\n%s\nwant:\n%s", o.got, tc.want)
	}
	if tc.asks {
		if tc.sent != "" && o.sent != tc.sent {
			t.Errorf("sent again:\n%s\nwant:\n%s", o.sent, tc.sent)
		}
		for _, frag := range tc.warnings {
			if !strings.Contains(o.err.Error(), frag) {
				t.Errorf("question %q does not contain %q", o.err, frag)
			}
		}
		return
	}
	if len(o.warns) != len(tc.warnings) {
		t.Fatalf("warnings %q, want %d matching %q", o.warns, len(tc.warnings), tc.warnings)
	}
	for i, frag := range tc.warnings {
		if !strings.Contains(o.warns[i], frag) {
			t.Errorf("warning %d %q does not contain %q", i, o.warns[i], frag)
		}
	}
}
