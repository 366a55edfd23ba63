package tools

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/tools/blocks"
	"github.com/hostd-dev/hostd/tools/parsepool"
)

// withTrees gives the executor block ops and boundary repair served by
// one tree cache, as the daemon wires them (cmd/hostd).
func withTrees(e *editEnv, trees *blocks.Trees) {
	e.x = NewExecutor(Options{Sessions: e.m, Limits: e.lim, Tools: Builtin(),
		Parser: parserParts{resolver: parsepool.InProcess(trees, e.lim.MaxBlockParseBytes).Resolver, checker: parsepool.InProcess(trees, e.lim.MaxBlockParseBytes).Checker},
	})
}

// A run of edits with block ops and repairs through the tree cache lands
// the same files as with every text parsed from scratch, and parses the
// file once: every later version is parsed from the tree of the one
// before.
func TestEditsThroughTheTreeCache(t *testing.T) {
	var src strings.Builder
	for i := range 30 {
		fmt.Fprintf(&src, "function f%d(x: number) {\n  if (x) {\n    return x + %d;\n  }\n  return 0;\n}\n", i, i)
	}
	steps := []string{
		"PUT 7*:\n+function f1(x: number) {\n+  return x * 2;\n+}", // a block op
		"PUT 3.=4:\n+    return x + 100;",                          // repair asks about the swallowed closer
		"CUT 16*\nPUT >1*",                                         // move a function
		"PUT >6:\n+function extra() {\n+  return 1;\n+}",           // a gap op
		"PUT 16*:\n+function moved() {}",                           // a block op on the new version
	}
	run := func(trees *blocks.Trees) (string, []string) {
		e := newEditEnv(t)
		if trees != nil {
			withTrees(e, trees)
		} else {
			withBlocks(e)
			withRepairToo(e)
		}
		e.write("m.ts", src.String())
		var warnings []string
		for i, ops := range steps {
			tag := e.showAll("m.ts")
			r := e.edit("m.ts", tag, ops)
			if r.Error != nil && r.Error.Code == wire.ToolRepairAmbiguous {
				// The question joins the warnings compared, and the
				// repaired form is sent.
				warnings = append(warnings, r.Error.Message)
				r = e.edit("m.ts", tag, repairedForm(t, r))
			}
			if !r.OK {
				t.Fatalf("step %d (%q): %+v", i, ops, r.Error)
			}
			warnings = append(warnings, r.Warnings...)
		}
		return e.file("m.ts"), warnings
	}
	trees, err := blocks.NewTrees(config.DefaultLimits().MaxParseTreeBytes)
	if err != nil {
		t.Fatal(err)
	}
	defer trees.Close()
	got, gotWarn := run(trees)
	want, wantWarn := run(nil)
	if got != want || strings.Join(gotWarn, "\n") != strings.Join(wantWarn, "\n") {
		t.Fatalf("through the cache:\n%s\nwarnings %q\nfrom scratch:\n%s\nwarnings %q", got, gotWarn, want, wantWarn)
	}
	if len(gotWarn) == 0 {
		t.Fatal("no repair happened: the test lost its repair step")
	}
	if st := trees.Stats(); st.Full != 1 || st.Incremental == 0 || st.Hits == 0 {
		t.Fatalf("tree cache stats %+v: want the first version parsed from scratch and every later one from it", st)
	}
}

// withRepairToo adds the from-scratch repair checker to an executor that
// withBlocks built.
func withRepairToo(e *editEnv) {
	parts := e.x.opt.Parser.(parserParts)
	parts.checker = e.inProcess().Checker
	e.x = NewExecutor(Options{Sessions: e.m, Limits: e.lim, Tools: Builtin(), Parser: parts})
}
