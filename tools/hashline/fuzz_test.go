package hashline

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/internal/testenv"
)

// FuzzParse: Parse never panics, is deterministic, accepts only headers
// spelled exactly in canonical form, and what it accepts survives a
// Format round trip.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"PUT 3.=5:\n+a\n+b", "CUT 2.=3 @x\nPUT >$ @x", "PUT <1:\n+\n++x\n+-y", "[a.go#ABCD]\nREM",
		"MV \"a b\"", "PUT 2-4:\n+x", "put 3.=4:", "PUT 48.=48\n+x", "PUT >2*:\n+x", "CUT 4*",
		"PUT 3.=4:\r\n+x\r\n\r\n", "PUT 1.=1:\n+a\n\n+b", "12:foo", "@@ -1 +1 @@", "PUT <0:\n+x",
	} {
		f.Add(s)
	}
	if fh, err := os.Open(testenv.CorpusPath(f, ompCases)); err == nil {
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			var c ompCase
			if json.Unmarshal(sc.Bytes(), &c) == nil {
				f.Add(c.Patch)
			}
		}
		fh.Close()
	}
	f.Fuzz(func(t *testing.T, ops string) {
		p1, err1 := Parse(ops, Limits{})
		p2, err2 := Parse(ops, Limits{})
		if fmt.Sprint(err1) != fmt.Sprint(err2) || !reflect.DeepEqual(p1, p2) {
			t.Fatalf("two parses differ: %v / %v", err1, err2)
		}
		if err1 != nil {
			var e *Error
			if !errors.As(err1, &e) || sentinels[e.Code] == nil || e.Message == "" {
				t.Fatalf("error is not a coded *Error: %#v", err1)
			}
			return
		}
		for _, op := range p1.Ops {
			if op.Header != op.String() && op.Header != op.OneLineHeader() {
				t.Fatalf("accepted non-canonical header %q (canonical %q)", op.Header, op.String())
			}
			if op.Colon && len(op.Body) == 0 {
				t.Fatalf("accepted %q without body rows", op.Header)
			}
		}
		q, err := Parse(p1.Format(), Limits{})
		if err != nil {
			t.Fatalf("Format output %q does not parse: %v", p1.Format(), err)
		}
		if !samePatch(p1, q) {
			t.Fatalf("round trip changed the patch:\n%q\n%q", p1.Format(), q.Format())
		}
	})
}

// chooser turns fuzz bytes into bounded choices; once the bytes run out
// every choice is 0.
type chooser struct{ b []byte }

func (c *chooser) next(n int) int {
	if n <= 1 || len(c.b) == 0 {
		return 0
	}
	v := int(c.b[0])
	c.b = c.b[1:]
	return v % n
}

// Rows are drawn from a small alphabet so duplicates, sigils and no-op
// edits are common.
var fuzzRows = []string{"a", "b", "", "  x", "+p", "-m", "a"}

// oracleEdit is one primitive of the naive oracle, keyed by position so
// edits apply from the bottom of the file up: a range starting at s has
// key 2s, the gap before original line g has key 2g-1.
type oracleEdit struct {
	key        int
	start, end int // lines replaced (end < start for a pure insert)
	rows       []string
}

// indexedText is a Text that holds one string and line offsets, as a
// caller indexing file bytes does, so the language cannot take Lines'
// shortcuts.
type indexedText struct {
	body string
	ends []int // ends[i] is where line i+1 ends in body
}

func newIndexedText(lines []string) indexedText {
	var x indexedText
	for _, l := range lines {
		x.body += l + "\n"
		x.ends = append(x.ends, len(x.body)-1)
	}
	return x
}

func (x indexedText) Len() int { return len(x.ends) }

func (x indexedText) Line(n int) string {
	start := 0
	if n > 1 {
		start = x.ends[n-2] + 1
	}
	return x.body[start:x.ends[n-1]]
}

// FuzzApplyOracle: random files and random valid, non-overlapping ops
// (ranges, gaps, head, end, CUT, anonymous move) give the same text as a
// naive oracle that edits a line list op by op from the bottom up.
func FuzzApplyOracle(f *testing.F) {
	f.Add([]byte{5, 0, 1, 2, 3, 4, 5, 3, 0, 1, 1, 2, 4, 0, 2})
	f.Add([]byte{9, 1, 1, 1, 1, 1, 1, 1, 1, 1, 6, 6, 2, 1, 3, 6, 0, 0, 3, 3})
	f.Add([]byte{0, 3, 3, 0, 4, 1})
	f.Add([]byte{11, 0, 6, 5, 4, 3, 2, 1, 0, 6, 5, 4, 7, 5, 3, 2, 6, 1, 1, 4, 0, 2, 2, 1, 1, 9, 200, 17})
	f.Fuzz(func(t *testing.T, data []byte) {
		c := &chooser{b: data}
		n := c.next(12)
		lines := make([]string, n)
		for i := range lines {
			lines[i] = fuzzRows[c.next(len(fuzzRows))]
		}
		g := newOpGen(n)
		for tries := 0; tries < 24 && len(g.units)+len(g.cuts) < 8 && len(c.b) > 0; tries++ {
			g.try(c, lines)
		}
		if len(g.units)+len(g.cuts) == 0 {
			return
		}
		// Units (a move is CUT then its paste) in shuffled order, then plain
		// CUTs, which must not become the pending capture of a paste.
		for i := len(g.units) - 1; i > 0; i-- {
			j := c.next(i + 1)
			g.units[i], g.units[j] = g.units[j], g.units[i]
		}
		ops := strings.Join(append(g.units, g.cuts...), "\n")

		want := oracleApply(lines, g.edits)
		// The oracle applies the rows as sent; boundary repair, which
		// may ask about a row equal to its neighbour, has its own oracle
		// (FuzzRepair), so these runs answer its question in advance.
		env := Env{AsSent: true}
		res, err := Run(lines, ops, env)
		// RunText on a Text that is not a line slice reads each line
		// through Line and builds no lines: the same outcome.
		byLine := newIndexedText(lines)
		lazy, lazyErr := RunText(byLine, ops, env)
		if (err == nil) != (lazyErr == nil) || err != nil && err.Error() != lazyErr.Error() {
			t.Fatalf("ops %q on %q: Run gave %v, RunText %v", ops, lines, err, lazyErr)
		}
		if err == nil && (lazy.Lines != nil || !slices.Equal(lazy.NewLines(byLine), res.Lines) ||
			!reflect.DeepEqual(lazy.Copies, res.Copies) || !slices.Equal(lazy.Rows, res.Rows)) {
			t.Fatalf("ops %q on %q: RunText gave lines %q, copies %v, rows %q; Run %q, %v, %q",
				ops, lines, lazy.NewLines(byLine), lazy.Copies, lazy.Rows, res.Lines, res.Copies, res.Rows)
		}
		if slices.Equal(want, lines) {
			if !errors.Is(err, ErrNoChange) {
				t.Fatalf("ops %q on %q: want EDIT_NO_CHANGE, got %q, %v", ops, lines, res.Lines, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("ops %q on %q: %v", ops, lines, err)
		}
		if !slices.Equal(res.Lines, want) {
			t.Fatalf("ops %q on %q:\ngot  %q\nwant %q", ops, lines, res.Lines, want)
		}
		ins, rem := 0, 0
		for _, r := range res.Changed {
			ins, rem = ins+r.Inserted, rem+r.Removed
			if r.Inserted > 0 && r.End-r.Start+1 != r.Inserted || r.Inserted == 0 && r.Start != r.End+1 {
				t.Fatalf("malformed region %+v", r)
			}
		}
		if len(res.Lines) != n-rem+ins {
			t.Fatalf("regions account for %d inserted, %d removed; lines %d -> %d", ins, rem, n, len(res.Lines))
		}
		if err := checkPieces(lines, res); err != nil {
			t.Fatalf("ops %q on %q: %v", ops, lines, err)
		}
		checkCopies(t, lines, res)
	})
}

// checkCopies holds Result.Copies to its promise: ascending, disjoint
// runs of new lines that equal the original lines they name, covering
// every line outside the changed regions.
func checkCopies(t *testing.T, lines []string, res Result) {
	t.Helper()
	copied := make([]bool, len(res.Lines)+1)
	next := 1
	for _, c := range res.Copies {
		if c.N < 1 || c.New < next || c.New+c.N-1 > len(res.Lines) || c.Old < 1 || c.Old+c.N-1 > len(lines) {
			t.Fatalf("copy %+v out of order or bounds (%d old, %d new lines)", c, len(lines), len(res.Lines))
		}
		for i := range c.N {
			if res.Lines[c.New-1+i] != lines[c.Old-1+i] {
				t.Fatalf("copy %+v: new line %d is not old line %d", c, c.New+i, c.Old+i)
			}
			copied[c.New+i] = true
		}
		next = c.New + c.N
	}
	inRegion := make([]bool, len(res.Lines)+1)
	for _, r := range res.Changed {
		for l := r.Start; l <= r.End; l++ {
			inRegion[l] = true
		}
	}
	for l := 1; l <= len(res.Lines); l++ {
		if !inRegion[l] && !copied[l] {
			t.Fatalf("new line %d is outside every region but not a copy", l)
		}
	}
}

// opGen draws ops that the contract accepts, checking them with its own
// simple model of §7.3: consumed lines, used gaps, gap anchors.
type opGen struct {
	n        int
	consumed map[int]bool
	gaps     map[int]bool
	anchors  map[int]bool // lines a gap insert is anchored on
	units    []string
	cuts     []string
	edits    []oracleEdit
}

func newOpGen(n int) *opGen {
	return &opGen{n: n, consumed: map[int]bool{}, gaps: map[int]bool{}, anchors: map[int]bool{}}
}

func (g *opGen) rangeFree(s, e int) bool {
	for l := s; l <= e; l++ {
		if g.consumed[l] || g.anchors[l] {
			return false
		}
	}
	return true
}

func (g *opGen) take(s, e int) {
	for l := s; l <= e; l++ {
		g.consumed[l] = true
	}
}

// gap picks an insertion point: its locator, gap number and anchor line
// (0 for none).
func (g *opGen) gap(c *chooser) (loc string, gapNo, anchor int) {
	switch k := c.next(4); {
	case k == 0 || g.n == 0:
		return "<1", 1, 0
	case k == 1:
		return ">$", g.n + 1, 0
	case k == 2:
		l := 1 + c.next(g.n)
		if l == 1 {
			return "<1", 1, 0
		}
		return fmt.Sprintf("<%d", l), l, l
	default:
		l := 1 + c.next(g.n)
		return fmt.Sprintf(">%d", l), l + 1, l
	}
}

func (g *opGen) gapFree(gapNo, anchor int) bool {
	return !g.gaps[gapNo] && (anchor == 0 || !g.consumed[anchor])
}

func (g *opGen) useGap(gapNo, anchor int) {
	g.gaps[gapNo] = true
	if anchor != 0 {
		g.anchors[anchor] = true
	}
}

func bodyText(rows []string) string {
	var b strings.Builder
	for _, r := range rows {
		b.WriteString("\n+" + r)
	}
	return b.String()
}

func (g *opGen) try(c *chooser, lines []string) {
	var rows []string
	for i := 1 + c.next(3); i > 0; i-- {
		rows = append(rows, fuzzRows[c.next(len(fuzzRows))])
	}
	kind := c.next(4)
	if g.n == 0 {
		kind = 1
	}
	switch kind {
	case 0, 2, 3: // PUT N.=M:, CUT N.=M, or a move
		s := 1 + c.next(g.n)
		e := s + c.next(g.n-s+1)
		if !g.rangeFree(s, e) {
			return
		}
		header := fmt.Sprintf("%d.=%d", s, e)
		if kind == 0 {
			g.take(s, e)
			g.units = append(g.units, "PUT "+header+":"+bodyText(rows))
			g.edits = append(g.edits, oracleEdit{key: 2 * s, start: s, end: e, rows: rows})
			return
		}
		if kind == 2 {
			g.take(s, e)
			g.cuts = append(g.cuts, "CUT "+header)
			g.edits = append(g.edits, oracleEdit{key: 2 * s, start: s, end: e})
			return
		}
		g.take(s, e)
		loc, gapNo, anchor := g.gap(c)
		if !g.gapFree(gapNo, anchor) {
			// No place to paste: keep it as a plain deletion.
			g.cuts = append(g.cuts, "CUT "+header)
			g.edits = append(g.edits, oracleEdit{key: 2 * s, start: s, end: e})
			return
		}
		g.useGap(gapNo, anchor)
		g.units = append(g.units, "CUT "+header+"\nPUT "+loc)
		g.edits = append(g.edits,
			oracleEdit{key: 2 * s, start: s, end: e},
			oracleEdit{key: 2*gapNo - 1, start: gapNo, end: gapNo - 1, rows: slices.Clone(lines[s-1 : e])})
	case 1: // PUT <N:, PUT >N:, PUT <1:, PUT >$:
		loc, gapNo, anchor := g.gap(c)
		if !g.gapFree(gapNo, anchor) {
			return
		}
		g.useGap(gapNo, anchor)
		g.units = append(g.units, "PUT "+loc+":"+bodyText(rows))
		g.edits = append(g.edits, oracleEdit{key: 2*gapNo - 1, start: gapNo, end: gapNo - 1, rows: rows})
	}
}

// oracleApply edits a copy of lines op by op from the bottom up, so every
// original line number still indexes the part of the list not yet edited.
func oracleApply(lines []string, edits []oracleEdit) []string {
	out := slices.Clone(lines)
	sorted := slices.Clone(edits)
	slices.SortStableFunc(sorted, func(a, b oracleEdit) int { return b.key - a.key })
	for _, e := range sorted {
		tail := slices.Clone(out[e.end:])
		out = append(append(out[:e.start-1], e.rows...), tail...)
	}
	return out
}
