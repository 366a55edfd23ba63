package tools

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/rpc/wire"
)

func withBlocks(e *editEnv) {
	e.x = NewExecutor(Options{Sessions: e.m, Limits: e.lim, Tools: Builtin(), Parser: parserParts{resolver: e.inProcess().Resolver}})
}

const tsSource = `const a = 1;
function f(x: number) {
  return x + 1;
}
function g() {
  return 2;
}
`

func TestEditBlockOps(t *testing.T) {
	t.Run("PUT N* replaces the block and echoes the span", func(t *testing.T) {
		e := newEditEnv(t)
		withBlocks(e)
		e.write("m.ts", tsSource)
		r := e.edit("m.ts", e.showAll("m.ts"), "PUT 2*:\n+function f(x: number) {\n+  return x * 2;\n+}")
		wantOK(t, r)
		wantFile(t, e, "m.ts", strings.Replace(tsSource, "x + 1", "x * 2", 1))
		if len(r.Resolutions) != 1 || r.Resolutions[0].AnchorLine != 2 || r.Resolutions[0].Start != 2 || r.Resolutions[0].End != 4 {
			t.Fatalf("resolutions %+v", r.Resolutions)
		}
		// The wire shape of wire-contract §4: {anchorLine, start, end, op}.
		raw, _ := json.Marshal(r.Resolutions[0])
		if string(raw) != `{"anchorLine":2,"start":2,"end":4,"op":"PUT 2*:"}` {
			t.Fatalf("resolution JSON %s", raw)
		}
	})
	t.Run("CUT N* and a paste after another block move a function", func(t *testing.T) {
		e := newEditEnv(t)
		withBlocks(e)
		e.write("m.ts", tsSource)
		wantOK(t, e.edit("m.ts", e.showAll("m.ts"), "CUT 2*\nPUT >5*"))
		wantFile(t, e, "m.ts", "const a = 1;\nfunction g() {\n  return 2;\n}\nfunction f(x: number) {\n  return x + 1;\n}\n")
	})
	t.Run("every line of the resolved block must have been seen", func(t *testing.T) {
		e := newEditEnv(t)
		withBlocks(e)
		e.write("m.ts", tsSource)
		r := e.edit("m.ts", e.show("m.ts", 1, 2), "CUT 2*")
		wantCode(t, r, wire.ToolLinesUnseen)
		wantFile(t, e, "m.ts", tsSource)
	})
	t.Run("a closing brace is no block, and the message names a plain range", func(t *testing.T) {
		e := newEditEnv(t)
		withBlocks(e)
		e.write("m.ts", tsSource)
		r := e.edit("m.ts", e.showAll("m.ts"), "CUT 4*")
		wantCode(t, r, wire.ToolBlockUnresolved)
		if !strings.Contains(r.Error.Message, "CUT ") {
			t.Fatalf("no plain-range alternative: %s", r.Error.Message)
		}
	})
	t.Run("an unsupported file type loses block ops only", func(t *testing.T) {
		e := newEditEnv(t)
		withBlocks(e)
		e.write("notes.txt", "a {\n  b\n}\n")
		tag := e.showAll("notes.txt")
		wantCode(t, e.edit("notes.txt", tag, "CUT 1*"), wire.ToolBlockUnresolved)
		wantOK(t, e.edit("notes.txt", tag, "CUT 1.=3"))
	})
	t.Run("on a drifted file blocks resolve against the tagged snapshot", func(t *testing.T) {
		e := newEditEnv(t)
		withBlocks(e)
		e.write("m.ts", tsSource)
		tag := e.showAll("m.ts")
		e.write("m.ts", "// header\n"+tsSource)
		r := e.edit("m.ts", tag, "CUT 5*")
		wantOK(t, r)
		wantFile(t, e, "m.ts", "// header\nconst a = 1;\nfunction f(x: number) {\n  return x + 1;\n}\n")
		if len(r.Resolutions) != 0 {
			t.Fatal("spans echoed after a recovery")
		}
	})
	t.Run("a drifted file whose snapshot is gone is rejected", func(t *testing.T) {
		e := newEditEnv(t)
		withBlocks(e)
		e.write("m.ts", tsSource)
		tag := e.showAll("m.ts")
		p := e.root + "/m.ts"
		for i := 0; i < e.lim.MaxVersionsPerPath; i++ {
			e.s.State().Store.Record(p, snapOf(strings.Repeat("x\n", i+1)))
		}
		e.write("m.ts", "// header\n"+tsSource)
		wantCode(t, e.edit("m.ts", tag, "CUT 5*"), wire.ToolTagMismatch)
	})
}
