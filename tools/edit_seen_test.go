package tools

import (
	"slices"
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/session"
	"github.com/hostd-dev/hostd/tools/hashline"
	"github.com/hostd-dev/hostd/workspace"
)

// What counts as seen after an edit (edit-contract §4.3): the lines seen
// before, carried to their new numbers, plus the rows the edit wrote.

func (e *prodEnv) runEdit(path, tag, ops string) *wire.EditResult {
	e.t.Helper()
	r, ok := e.call("edit", map[string]string{"path": path, "tag": tag, "ops": ops}).(*wire.EditResult)
	if !ok {
		e.t.Fatalf("edit %s: not an edit result", path)
	}
	return r
}

// seenRanges is the seen set of the newest version of rel.
func (e *prodEnv) seenRanges(rel string) []session.Range {
	e.t.Helper()
	return e.head(rel).Seen.Ranges()
}

func wantSeen(t *testing.T, got []session.Range, want ...session.Range) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("seen %v, want %v", got, want)
	}
}

func TestEditSeenAfterEdit(t *testing.T) {
	t.Run("a line never read stays unseen after an edit elsewhere (the issue's example)", func(t *testing.T) {
		e := newProdEnv(t, config.DefaultLimits())
		e.put("f.txt", numbered(53))
		rd := e.read(map[string]any{"path": "f.txt", "offset": 1, "limit": 1})
		r := e.runEdit("f.txt", rd.Tag, "PUT 1.=1:\n+first")
		wantOK(t, r)
		wantSeen(t, e.seenRanges("f.txt"), session.Range{From: 1, To: 1})
		r = e.runEdit("f.txt", r.Tag, "PUT 50.=50:\n+fifty")
		wantCode(t, r, wire.ToolLinesUnseen)
		if !strings.Contains(e.cat("f.txt"), "line 50\n") {
			t.Fatal("the unseen line was changed")
		}
	})
	t.Run("seen lines move with the lines above them; written rows are seen", func(t *testing.T) {
		e := newProdEnv(t, config.DefaultLimits())
		e.put("f.txt", numbered(30))
		rd := e.read(map[string]any{"path": "f.txt", "offset": 1, "limit": 10})
		r := e.runEdit("f.txt", rd.Tag, "PUT 4.=4:\n+four\n+four and a half\n+four and three quarters")
		wantOK(t, r)
		wantSeen(t, e.seenRanges("f.txt"), session.Range{From: 1, To: 12})
		wantOK(t, e.runEdit("f.txt", r.Tag, "PUT 12.=12:\n+ten")) // line 10, now 12: seen, no re-read
		r = e.runEdit("f.txt", e.head("f.txt").Tag, "PUT 13.=13:\n+eleven")
		wantCode(t, r, wire.ToolLinesUnseen) // line 11 was never read
	})
	t.Run("a deletion closes the gap in the seen set", func(t *testing.T) {
		e := newProdEnv(t, config.DefaultLimits())
		e.put("f.txt", numbered(20))
		rd := e.read(map[string]any{"path": "f.txt", "offset": 1, "limit": 5})
		e.read(map[string]any{"path": "f.txt", "offset": 15, "limit": 2})
		wantOK(t, e.runEdit("f.txt", rd.Tag, "CUT 2.=3"))
		wantSeen(t, e.seenRanges("f.txt"), session.Range{From: 1, To: 3}, session.Range{From: 13, To: 14})
	})
	t.Run("a clipped line stays unseen, and its refusal says only write can change it", func(t *testing.T) {
		e := newProdEnv(t, config.DefaultLimits())
		long := strings.Repeat("z", e.lim.MaxLineChars+10)
		e.put("f.txt", "a\nb\n"+long+"\nd\n")
		rd := e.read(map[string]any{"path": "f.txt"})
		wantSeen(t, e.seenRanges("f.txt"), session.Range{From: 1, To: 2}, session.Range{From: 4, To: 4})
		r := e.runEdit("f.txt", rd.Tag, "PUT 1.=1:\n+A")
		wantOK(t, r)
		wantSeen(t, e.seenRanges("f.txt"), session.Range{From: 1, To: 2}, session.Range{From: 4, To: 4})
		r = e.runEdit("f.txt", r.Tag, "PUT 3.=3:\n+short")
		wantCode(t, r, wire.ToolLinesUnseen)
		if !strings.Contains(r.Error.Message, "only write") {
			t.Errorf("message %q", r.Error.Message)
		}
	})
	t.Run("CRLF: the same, line for line", func(t *testing.T) {
		e := newProdEnv(t, config.DefaultLimits())
		e.put("f.txt", strings.ReplaceAll(numbered(8), "\n", "\r\n"))
		rd := e.read(map[string]any{"path": "f.txt", "offset": 1, "limit": 3})
		r := e.runEdit("f.txt", rd.Tag, "PUT 2.=2:\n+two\n+two more")
		wantOK(t, r)
		if got := e.cat("f.txt"); got != "line 1\r\ntwo\r\ntwo more\r\nline 3\r\nline 4\r\nline 5\r\nline 6\r\nline 7\r\nline 8\r\n" {
			t.Fatalf("file %q", got)
		}
		wantSeen(t, e.seenRanges("f.txt"), session.Range{From: 1, To: 4})
		wantCode(t, e.runEdit("f.txt", r.Tag, "PUT 5.=5:\n+four"), wire.ToolLinesUnseen)
		wantOK(t, e.runEdit("f.txt", r.Tag, "PUT 4.=4:\n+three"))
	})
	t.Run("a BOM file: the same, and the BOM stays", func(t *testing.T) {
		e := newProdEnv(t, config.DefaultLimits())
		e.put("f.txt", "\ufeff"+numbered(6))
		rd := e.read(map[string]any{"path": "f.txt", "offset": 1, "limit": 2})
		r := e.runEdit("f.txt", rd.Tag, "PUT 1.=1:\n+first")
		wantOK(t, r)
		if got := e.cat("f.txt"); !strings.HasPrefix(got, "\ufefffirst\nline 2\n") {
			t.Fatalf("file %q", got)
		}
		wantSeen(t, e.seenRanges("f.txt"), session.Range{From: 1, To: 2})
		wantCode(t, e.runEdit("f.txt", r.Tag, "PUT 3.=3:\n+third"), wire.ToolLinesUnseen)
	})
	t.Run("moved lines keep their seen state; the lines around them too", func(t *testing.T) {
		e := newProdEnv(t, config.DefaultLimits())
		e.put("f.txt", numbered(12))
		rd := e.read(map[string]any{"path": "f.txt", "offset": 1, "limit": 6})
		r := e.runEdit("f.txt", rd.Tag, "CUT 2.=3\nPUT >6")
		wantOK(t, r)
		if got := e.cat("f.txt"); !strings.HasPrefix(got, "line 1\nline 4\nline 5\nline 6\nline 2\nline 3\nline 7\n") {
			t.Fatalf("file %q", got)
		}
		wantSeen(t, e.seenRanges("f.txt"), session.Range{From: 1, To: 6})
		wantCode(t, e.runEdit("f.txt", r.Tag, "PUT 7.=7:\n+seven"), wire.ToolLinesUnseen)
	})
	t.Run("MV takes the seen set to the new path", func(t *testing.T) {
		e := newProdEnv(t, config.DefaultLimits())
		e.put("f.txt", numbered(10))
		rd := e.read(map[string]any{"path": "f.txt", "offset": 1, "limit": 4})
		r := e.runEdit("f.txt", rd.Tag, "MV g.txt")
		wantOK(t, r)
		wantSeen(t, e.seenRanges("g.txt"), session.Range{From: 1, To: 4})
		r = e.runEdit("g.txt", r.Tag, "PUT 1.=1:\n+one\nMV h.txt")
		wantOK(t, r)
		wantSeen(t, e.seenRanges("h.txt"), session.Range{From: 1, To: 4})
		wantCode(t, e.runEdit("h.txt", r.Tag, "PUT 5.=5:\n+five"), wire.ToolLinesUnseen)
	})
	t.Run("three chained calls on the tags they return need no re-read", func(t *testing.T) {
		e := newProdEnv(t, config.DefaultLimits())
		e.put("f.ts", numbered(40))
		tag := e.read(map[string]any{"path": "f.ts"}).Tag
		r := e.runEdit("f.ts", tag, "PUT 5.=5:\n+five\n+five b\n+five c")
		wantOK(t, r)
		r2 := e.runEdit("f.ts", r.Tag, "PUT 20.=20:\n+eighteen") // old line 18
		wantOK(t, r2)
		r3 := e.runEdit("f.ts", r2.Tag, "PUT 6.=7:\n+b and c\nPUT 42.=42:\n+forty")
		wantOK(t, r3)
		wantSeen(t, e.seenRanges("f.ts"), session.Range{From: 1, To: 41})
		if got := e.cat("f.ts"); !strings.Contains(got, "five\nb and c\nline 6\n") || !strings.Contains(got, "\neighteen\n") || !strings.HasSuffix(got, "line 39\nforty\n") {
			t.Fatalf("file %q", got)
		}
	})
	t.Run("a stale tag recovered: lines seen in the version read follow the diff; lines added outside do not", func(t *testing.T) {
		e := newProdEnv(t, config.DefaultLimits())
		e.put("f.txt", numbered(20))
		rd := e.read(map[string]any{"path": "f.txt", "offset": 1, "limit": 5})
		e.put("f.txt", "added outside\n"+numbered(20))
		r := e.runEdit("f.txt", rd.Tag, "PUT 3.=3:\n+three")
		wantOK(t, r)
		wantSeen(t, e.seenRanges("f.txt"), session.Range{From: 2, To: 6})
		wantCode(t, e.runEdit("f.txt", r.Tag, "PUT 1.=1:\n+changed"), wire.ToolLinesUnseen)
	})
}

// seenAfter against a line-by-line model: every kept or moved line has
// the seen state of its origin, every written row is seen.
func TestSeenAfterModel(t *testing.T) {
	lines := strings.Split(strings.TrimSuffix(numbered(12), "\n"), "\n")
	prior := session.Span(2, 4).Union(session.Span(7, 7)).Union(session.Span(10, 12))
	for _, ops := range []string{
		"PUT 1.=1:\n+x",
		"PUT <1:\n+x\n+y",
		"CUT 3.=8",
		"CUT 9.=11\nPUT <2",
		"CUT 2.=2 @r\nPUT >12 @r\nPUT 6.=6:\n+six",
		"PUT >$:\n+end",
	} {
		res, err := hashline.Run(lines, ops, hashline.Env{Registers: regs{session.NewRegisters(4)}})
		if err != nil {
			t.Fatalf("%q: %v", ops, err)
		}
		got := seenAfter(prior, res.Pieces)
		for _, p := range res.Pieces {
			for k := 0; k < p.Len; k++ {
				n := p.Start + k
				want := p.From == 0 || prior.Contains(p.From+k)
				if got.Contains(n) != want {
					t.Errorf("%q: new line %d %q seen = %v, want %v", ops, n, res.Lines[n-1], got.Contains(n), want)
				}
			}
		}
		if got.Len() > len(res.Lines) {
			t.Errorf("%q: %d seen of %d lines", ops, got.Len(), len(res.Lines))
		}
	}
	if s := seenAfter(session.Unknown(), []hashline.Piece{{Start: 1, Len: 3}}); s.Known() {
		t.Errorf("an unknown prior became %v", s.Ranges())
	}
}

// A formatter that changes the bytes on save: of the lines the edit
// meant to be seen, only those that landed unchanged stay seen.
func TestRecordSeenAfterAFormatter(t *testing.T) {
	e := newProdEnv(t, config.DefaultLimits())
	c := &Call{Session: e.s, State: e.s.State(), Limits: e.lim}
	p, err := e.s.State().Workspace.Resolve("f.go", workspace.Write)
	if err != nil {
		t.Fatal(err)
	}
	body := "package f\nfunc F(){\nreturn\n}\nvar x = 1\n"
	landed := []byte("package f\n\nfunc F() {\n\treturn\n}\nvar x = 1\n")
	r := recordSeen(c, p, body, []byte(body), landed, session.Span(1, 4))
	if len(r.Warnings) != 1 {
		t.Fatalf("warnings %q", r.Warnings)
	}
	// Line 1 landed as written and was seen; "}" too (now line 5); "var
	// x = 1" landed as written but was never seen.
	wantSeen(t, e.seenRanges("f.go"), session.Range{From: 1, To: 1}, session.Range{From: 5, To: 5})
}
