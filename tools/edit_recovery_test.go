package tools

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/rpc/wire"
)

func TestRecoverySucceeds(t *testing.T) {
	t.Run("external change below the anchor", func(t *testing.T) {
		e := newEditEnv(t)
		e.write("f.txt", numbered(10))
		tag := e.showAll("f.txt")
		e.write("f.txt", strings.Replace(numbered(10), "line 9\n", "line NINE\n", 1))
		r := e.edit("f.txt", tag, "PUT 3.=3:\n+three")
		wantOK(t, r)
		wantFile(t, e, "f.txt", strings.NewReplacer("line 9\n", "line NINE\n", "line 3\n", "three\n").Replace(numbered(10)))
		if !strings.Contains(r.Content, "external change") || strings.Contains(r.Content, "line remap") {
			t.Fatalf("want an external-change warning only:\n%s", r.Content)
		}
	})
	t.Run("lines inserted above: the edit lands on the moved lines", func(t *testing.T) {
		e := newEditEnv(t)
		e.write("f.txt", numbered(10))
		tag := e.showAll("f.txt")
		e.write("f.txt", "new 1\nnew 2\n"+numbered(10))
		r := e.edit("f.txt", tag, "PUT 5.=6:\n+five-six")
		wantOK(t, r)
		wantFile(t, e, "f.txt", "new 1\nnew 2\n"+strings.Replace(numbered(10), "line 5\nline 6\n", "five-six\n", 1))
		if !strings.Contains(r.Content, "line remap") || !strings.Contains(r.Content, "\n7:five-six") {
			t.Fatalf("want a line-remap warning and the new numbers:\n%s", r.Content)
		}
		if len(r.Resolutions) != 0 {
			t.Fatal("spans echoed after a recovery")
		}
	})
	t.Run("a tag from earlier in the session", func(t *testing.T) {
		e := newEditEnv(t)
		e.write("f.txt", numbered(10))
		tag := e.showAll("f.txt")
		wantOK(t, e.edit("f.txt", tag, "PUT 9.=9:\n+nine"))
		r := e.edit("f.txt", tag, "PUT 2.=2:\n+two") // the model reused its old tag
		wantOK(t, r)
		wantFile(t, e, "f.txt", strings.NewReplacer("line 9\n", "nine\n", "line 2\n", "two\n").Replace(numbered(10)))
		if !strings.Contains(r.Content, "session chain") {
			t.Fatalf("want a session-chain warning:\n%s", r.Content)
		}
	})
}

func TestRecoveryDeclines(t *testing.T) {
	cases := []struct {
		name     string
		old, new string
		ops      string
		why      string
	}{
		{"anchor changed", "a\nb\nc\nd\n", "a\nB\nc\nd\n", "PUT 2.=2:\n+x", "line 2 changed"},
		{"interior line of a cut changed", "a\nb\nc\nd\ne\n", "a\nb\nC\nd\ne\n", "CUT 2.=4", "line 3 changed"},
		{"unique anchor with no mapped neighbour", "a\nb\nc\nd\n", "A\nb\nC\nd\n", "PUT 2.=2:\n+x", "neither neighbour"},
		{"duplicated anchor with one unmapped neighbour", "a\nx\nc\nd\nx\nf\n", "a\nx\nC\nd\nx\nf\n", "PUT 2.=2:\n+y", "repeats elsewhere"},
		{"inconsistent offsets", "a\nb\nc\nd\ne\nf\n", "a\nb\nN\nc\nd\ne\nf\n", "PUT 2.=2:\n+x\nPUT 5.=5:\n+y", "moved by"},
		{"replay changes nothing", "a\nb\nc\nd\n", "a\nb\nc\nD\n", "PUT 2.=2:\n+b", "changes nothing"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEditEnv(t)
			e.write("f.txt", tc.old)
			tag := e.showAll("f.txt")
			e.write("f.txt", tc.new)
			r := e.edit("f.txt", tag, tc.ops)
			wantCode(t, r, wire.ToolTagMismatch)
			if !strings.Contains(r.Error.Message, tc.why) {
				t.Fatalf("message %q lacks %q", r.Error.Message, tc.why)
			}
			wantFile(t, e, "f.txt", tc.new)
		})
	}
	t.Run("no snapshot held", func(t *testing.T) {
		e := newEditEnv(t)
		e.write("f.txt", "a\nb\n")
		tag := e.showAll("f.txt")
		p := e.s.State().Workspace.Root() + "/f.txt"
		for i := 0; i < e.lim.MaxVersionsPerPath; i++ {
			e.s.State().Store.Record(p, snapOf(fmt.Sprintf("v%d\n", i)))
		}
		e.write("f.txt", "a\nb\nc\n")
		r := e.edit("f.txt", tag, "PUT 1.=1:\n+x")
		wantCode(t, r, wire.ToolTagMismatch)
		if !strings.Contains(r.Error.Message, "no longer held") {
			t.Fatalf("message %q", r.Error.Message)
		}
	})
	t.Run("a line never shown in the tagged version", func(t *testing.T) {
		e := newEditEnv(t)
		e.write("f.txt", numbered(10))
		tag := e.show("f.txt", 1, 3)
		e.write("f.txt", "top\n"+numbered(10))
		wantCode(t, e.edit("f.txt", tag, "PUT 8.=8:\n+x"), wire.ToolTagMismatch)
	})
}

// Property: whenever recovery applies, the result equals the ops applied to
// the old text combined with the external edit; whenever the external edit
// touches a line the ops anchor on, recovery declines.
func TestRecoveryProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	applied, declined, overlapping := 0, 0, 0
	for iter := 0; iter < 400; iter++ {
		n := 5 + r.IntN(30)
		old := make([]string, n)
		for i := range old {
			if r.IntN(4) == 0 {
				old[i] = fmt.Sprintf("dup %d", r.IntN(3)) // duplicates
			} else {
				old[i] = fmt.Sprintf("line %d", i+1)
			}
		}
		// The model's op: replace [a, b] of the old text.
		a := 1 + r.IntN(n)
		b := min(n, a+r.IntN(3))
		body := []string{fmt.Sprintf("model %d", iter)}
		// The external edit: replace [c, d] with k new lines (k=0 deletes,
		// c>d inserts before c).
		c := 1 + r.IntN(n)
		d := min(n, c+r.IntN(3)) - r.IntN(2)
		ext := make([]string, r.IntN(3))
		for i := range ext {
			ext[i] = fmt.Sprintf("external %d.%d", iter, i)
		}
		if d < c && len(ext) == 0 {
			ext = []string{"external insert"}
		}
		live := splice(old, c, d, ext)
		overlap := c <= b && d >= a || (d < c && c > a && c <= b) // touches the anchored span
		e := newEditEnv(t)
		e.write("f.txt", strings.Join(old, "\n")+"\n")
		tag := e.showAll("f.txt")
		e.write("f.txt", strings.Join(live, "\n")+"\n")
		res := e.edit("f.txt", tag, fmt.Sprintf("PUT %d.=%d:\n+%s", a, b, body[0]))
		if overlap {
			overlapping++
			if res.OK {
				t.Fatalf("iter %d: recovery applied over an overlapping external edit\nold %q\nlive %q\nops %d-%d", iter, old, live, a, b)
			}
			continue
		}
		if !res.OK {
			declined++
			if res.Error.Code != wire.ToolTagMismatch {
				t.Fatalf("iter %d: %s", iter, res.Content)
			}
			continue
		}
		applied++
		var want []string
		if b < c {
			want = splice(splice(old, c, d, ext), a, b, body)
		} else {
			want = splice(splice(old, a, b, body), c, d, ext)
		}
		if got := e.file("f.txt"); got != strings.Join(want, "\n")+"\n" {
			t.Fatalf("iter %d: recovery result differs\nold %q\next [%d,%d]=%q\nops [%d,%d]\ngot  %q\nwant %q", iter, old, c, d, ext, a, b, got, strings.Join(want, "\n")+"\n")
		}
	}
	t.Logf("applied %d, declined %d disjoint, %d overlapping (all declined)", applied, declined, overlapping)
	if applied < 100 {
		t.Fatalf("recovery applied only %d times; the property is barely exercised", applied)
	}
}

// splice replaces 1-based lines [from, to] with repl (to < from inserts
// before from).
func splice(lines []string, from, to int, repl []string) []string {
	out := slices.Clone(lines[:from-1])
	out = append(out, repl...)
	if to < from {
		to = from - 1
	}
	return append(out, lines[to:]...)
}
