package tools

import (
	"context"
	"testing"

	"github.com/hostd-dev/hostd/tools/syntax"
)

// The factories the daemon hands the executor learn whose call they
// serve: the parse workers run one parse of a session at a time.
func TestCallSessionReachesTheParseFactories(t *testing.T) {
	e := newEditEnv(t)
	var blocksGot, syntaxGot string
	e.x = NewExecutor(Options{Sessions: e.m, Limits: e.lim, Tools: Builtin(),
		Parser: parserParts{
			resolver: func(ctx context.Context, path, text string) (syntax.Resolver, error) {
				blocksGot = CallSession(ctx)
				return spanResolver{}, nil
			},
			checker: func(ctx context.Context, path, text string) syntax.Checker {
				syntaxGot = CallSession(ctx)
				return nil
			},
		},
	})
	e.write("a.go", "func f() {\n\treturn\n}\n")
	if r := e.edit("a.go", e.showAll("a.go"), "PUT 1*:\n+func g() {}"); !r.OK {
		t.Fatalf("edit: %+v", r.Error)
	}
	if blocksGot != e.s.ID || syntaxGot != e.s.ID {
		t.Errorf("the factories saw sessions %q and %q, want %q", blocksGot, syntaxGot, e.s.ID)
	}
	if got := CallSession(context.Background()); got != "" {
		t.Errorf("outside a call: %q", got)
	}
}

// spanResolver resolves every block to its line and the next.
type spanResolver struct{}

func (spanResolver) Resolve(line int) (int, int, error) { return line, line + 1, nil }
func (spanResolver) Close()                             {}
