package tools

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/tools/hashline"
	"github.com/hostd-dev/hostd/tools/syntax"
)

// The edit tool's use of the edit language's one pipeline (hashline.Plan,
// Anchor, Settle): what the pipeline is given for this call, and how its
// failures reach the model.

// plan runs the edit language's pipeline (hashline.Plan) on the live
// text, with gate between its steps, and keeps boundary repair's
// warnings.
func (ed *editor) plan(text string, gate func(hashline.IR) error) (hashline.IR, *wire.ToolError) {
	env, done := ed.env(text, gate)
	defer done()
	ir, warnings, err := hashline.Plan(ed.text, ed.patch, env)
	if err != nil {
		return hashline.IR{}, ed.planError(err)
	}
	ed.warnings = append(ed.warnings, warnings...)
	return ir, nil
}

// env is what the pipeline needs for an edit anchored on text (the live
// text, or the tagged version drift recovery resolves blocks in): the
// call's limits and registers, a block resolver built on the first block
// op (a resolver parses the file, which an edit without block ops never
// needs), the syntax checker boundary repair asks, gate, and whether the
// model resent a request repair asked about. done frees the resolver.
func (ed *editor) env(text string, gate func(hashline.IR) error) (env hashline.Env, done func()) {
	env = hashline.Env{
		Limits:    hashline.LimitsFrom(ed.c.Limits),
		Registers: regs{ed.c.State.Registers},
		Gate:      gate,
		AsSent:    ed.asSent,
	}
	lazy := &lazyBlocks{}
	if ed.c.Parser != nil {
		lazy.build = func() (syntax.Resolver, error) {
			r, err := ed.c.Parser.Resolver(ed.parse, ed.path.Abs, text)
			if err != nil {
				return nil, fmt.Errorf("block ops are unavailable for %s: %v", ed.path.Display, err)
			}
			return r, nil
		}
		env.Resolver = lazy
	}
	if ed.c.Parser != nil {
		env.Syntax = ed.c.Parser.Checker(ed.parse, ed.path.Abs, text)
	}
	return env, lazy.close
}

// lazyBlocks is a block resolver made on its first use.
type lazyBlocks struct {
	build func() (syntax.Resolver, error)
	r     syntax.Resolver
	err   error
}

func (l *lazyBlocks) Resolve(line int) (int, int, error) {
	if l.r == nil && l.err == nil {
		l.r, l.err = l.build()
	}
	if l.err != nil {
		return 0, 0, l.err
	}
	return l.r.Resolve(line)
}

func (l *lazyBlocks) close() {
	if l.r != nil {
		l.r.Close()
	}
}

// planError maps a failure of the pipeline: a gate's own refusal as it
// is, boundary repair's question with the forms it offers (and the
// session remembers it was asked), the language's errors as tool errors.
func (ed *editor) planError(err error) *wire.ToolError {
	var te *wire.ToolError
	if errors.As(err, &te) {
		return te
	}
	var he *hashline.Error
	if !errors.As(err, &he) || he.Question == nil {
		return languageError(err)
	}
	ed.c.State.Asked.Ask(ed.path.Abs, ed.args.Tag, ed.canon)
	e := languageError(err)
	e.Details = wire.RepairAmbiguousDetails{AsSent: he.Question.AsSent, Repaired: he.Question.Repaired} // failed shows the forms
	return e
}

// renderQuestion shows the forms a repair question offers, under the
// tag they are numbered for.
func renderQuestion(display, tag string, q *hashline.Question) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%s#%s] nothing written: send one of these with tag %s\n", display, tag, tag)
	fmt.Fprintf(&b, "as sent (this same edit again applies exactly so):\n%s", q.AsSent)
	for i, r := range q.Repaired {
		label := "as repaired"
		if len(q.Repaired) > 1 {
			label = fmt.Sprintf("repair %d", i+1)
		}
		if r == "" {
			fmt.Fprintf(&b, "%s: no edit (the file already reads so)\n", label)
			continue
		}
		fmt.Fprintf(&b, "%s:\n%s", label, r)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
