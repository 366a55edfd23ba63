package tools

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/rpc/wire"
)

// withGrammars wires block ops and boundary repair as the daemon does.
func withGrammars(e *editEnv) {
	e.x = NewExecutor(Options{Sessions: e.m, Limits: e.lim, Tools: Builtin(),
		Parser: parserParts{resolver: e.inProcess().Resolver, checker: e.inProcess().Checker},
	})
}

// junkSource is size bytes of code-like text that parses in no grammar:
// error recovery on it is what made edits take seconds.
func junkSource(size int) string {
	rng := rand.New(rand.NewPCG(uint64(size), 7))
	const alphabet = "abcdefgh  ()[]{}:;,.=+-*/'\"#<>!&|"
	var sb strings.Builder
	for sb.Len() < size {
		for range 20 + rng.IntN(80) {
			sb.WriteByte(alphabet[rng.IntN(len(alphabet))])
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}

// parseTimeBound is what a test allows an edit of a big broken file: far
// over the call's parse time (500 ms), far under the seconds such an
// edit took when each parse ran to its end.
const parseTimeBound = 3 * time.Second

// An edit of a large file that does not parse holds the session's lock
// for at most about the call's parse time, whether it asks for a block
// (declined, naming the plain range) or its range needs the repair's
// syntax checks (applied as written, with a warning).
func TestEditParseTimeIsBounded(t *testing.T) {
	for _, tc := range []struct {
		path string
		size int
	}{
		{"junk.py", 400 << 10},
		{"junk.ts", 1 << 20},
	} {
		t.Run(tc.path, func(t *testing.T) {
			e := newEditEnv(t)
			withGrammars(e)
			src := junkSource(tc.size)
			e.write(tc.path, src)
			tag := e.showAll(tc.path)

			start := time.Now()
			r := e.edit(tc.path, tag, "PUT 3*:\n+x = 1")
			if d := time.Since(start); d > parseTimeBound {
				t.Errorf("a block op took %v, over %v", d, parseTimeBound)
			}
			if r.OK || r.Error == nil || r.Error.Code != wire.ToolBlockUnresolved || !strings.Contains(r.Error.Message, "PUT N.=M:") {
				t.Fatalf("block op: %+v, want EDIT_BLOCK_UNRESOLVED naming the plain range", r.Error)
			}

			lines := strings.Split(src, "\n")
			start = time.Now()
			r = e.edit(tc.path, tag, "PUT 2.=2:\n+x = 1\n+"+lines[2])
			if d := time.Since(start); d > parseTimeBound {
				t.Errorf("a range edit with a restated row took %v, over %v", d, parseTimeBound)
			}
			// The check could not run within the parse time: the rows are
			// written as sent, and the warning says so (issue 28). On a
			// machine fast enough to finish every check, repair asks.
			if r.Error != nil && r.Error.Code == wire.ToolRepairAmbiguous {
				return
			}
			wantOK(t, r)
			if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "could not run its syntax check (the edit call's parse time ran out)") {
				t.Errorf("warnings %q, want the one saying the parse time ran out", r.Warnings)
			}
			if !strings.HasPrefix(e.file(tc.path), lines[0]+"\nx = 1\n"+lines[2]+"\n"+lines[2]+"\n"+lines[3]+"\n") {
				t.Errorf("the rows were not written as sent")
			}
		})
	}
}

// The file of the report: 518 bytes of nested block quotes, which aborted
// the Markdown grammar and the daemon with it, on a block op and on a
// range edit whose last row restates the next line (repair parses). Now
// the block op is declined, and the range edit applies as sent, since the
// grammar cannot judge the text (issue 28: no row is dropped on a guess).
func TestEditDeeplyNestedMarkdown(t *testing.T) {
	e := newEditEnv(t)
	withGrammars(e)
	deep := strings.Repeat("> ", 256) + "quote" // with its newline, 518 bytes
	e.write("deep.md", "# Title\n"+deep+"\n")
	tag := e.showAll("deep.md")
	r := e.edit("deep.md", tag, "PUT 1*:\n+# Other")
	if r.OK || r.Error == nil || r.Error.Code != wire.ToolBlockUnresolved || !strings.Contains(r.Error.Message, "more than 128 levels deep") {
		t.Fatalf("block op: %+v, want EDIT_BLOCK_UNRESOLVED naming the nesting", r.Error)
	}
	r = e.edit("deep.md", tag, "PUT 1.=1:\n+# Other\n+"+deep)
	wantOK(t, r)
	wantFile(t, e, "deep.md", "# Other\n"+deep+"\n"+deep+"\n")
	if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "could not run its syntax check") || !strings.Contains(r.Warnings[0], "remove it with CUT 2") {
		t.Errorf("warnings %q, want the one saying the check could not run, naming CUT 2", r.Warnings)
	}
}
