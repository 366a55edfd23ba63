package hashline

import (
	"cmp"
	"slices"
)

// Region is a changed stretch of the new text, in 1-based inclusive new
// line numbers, so the tool can show it again with its new numbers.
//
// A region with Inserted == 0 is a pure deletion and is empty: Start ==
// End+1, naming the join point, so the removed lines sat between new lines
// End and Start (End is 0 at the top of the file, Start is len+1 at its
// end).
type Region struct {
	Start, End int
	Inserted   int // new lines in the region
	Removed    int // original lines it replaced
}

// Piece is a stretch of the new text and where its lines came from: Len
// lines from new line Start on that are original lines From.. (kept in
// place, or pasted from a capture of this call), or, with From 0, rows
// the model wrote (or pasted from a register an earlier call filled).
// The tool carries seen lines by it (§4.3).
type Piece struct{ Start, Len, From int }

// Copy says that new lines New..New+N-1 are original lines Old..Old+N-1,
// byte for byte: a run of lines no edit touched, or a line a register
// paste moved. The tool writes them back with their own line endings.
type Copy struct {
	New, Old, N int
}

// Result is the outcome of Apply.
type Result struct {
	// Lines is the new text, built by Apply and Run; ApplyText and
	// RunText leave it nil (see NewLines).
	Lines   []string
	Changed []Region
	Pieces  []Piece // the whole new text, in order
	// Copies lists, in new line order, every new line that is an
	// original line; the other new lines are Rows, in order: rows the
	// model wrote or pasted from a register an earlier call filled.
	Copies      []Copy
	Rows        []string
	Resolutions []Resolution // copied from the IR, for the result echo
}

// placed is an insert's sort key; the insert is IR.Edits[seq].
type placed struct {
	gap  int // the original line it precedes; n+1 for the end
	seq  int // IR order, which keeps body rows in order
	rank int // 0 for a gap insert, 1 for a replacement body at that line
}

// Apply builds the new text from the original lines and an expanded,
// validated IR. Every position was computed on the original numbering, so
// no edit sees another's effect. An apply that reproduces the input is
// EDIT_NO_CHANGE.
//
// The work is ApplyText's plus one bulk copy of the untouched lines: runs
// between edits are appended whole.
func Apply(lines []string, ir IR) (Result, error) {
	res, err := ApplyText(Lines(lines), ir)
	if err != nil {
		return Result{}, err
	}
	res.Lines = res.NewLines(Lines(lines))
	return res, nil
}

// ApplyText is Apply without building the new lines: the Result
// describes them as Copies of original runs and Rows, and its Lines is
// nil. The work is proportional to the edits, not to the text, except
// for the no-change check, which reads the lines between the first and
// the last change when the line count did not move.
func ApplyText(text Text, ir IR) (Result, error) {
	n := text.Len()
	if n != ir.NumLines {
		return Result{}, fail(CodeInvalidArgument, 0, 0,
			"the text has %d lines but the edit was lowered for %d; lower it again for this text", n, ir.NumLines)
	}
	// Both lists are sized once from a count of the edits.
	nIns := 0
	for _, e := range ir.Edits {
		if e.Kind == KindInsert {
			nIns++
		}
	}
	ins := make([]placed, 0, nIns)
	dels := make([]int, 0, len(ir.Edits)-nIns)
	for i, e := range ir.Edits {
		src := ir.source(e.Src)
		switch e.Kind {
		case KindDelete:
			if e.Line < 1 || e.Line > n {
				return Result{}, outOfBounds(src.Header, src.OpsLine, e.Line, n)
			}
			dels = append(dels, e.Line)
		case KindInsert:
			if err := checkCursor(src, e.Cursor, n); err != nil {
				return Result{}, err
			}
			p := placed{gap: gapOf(e.Cursor, n), seq: i}
			if e.Cursor.Pos == PosAt {
				p.rank = 1
			}
			ins = append(ins, p)
		default:
			return Result{}, fail(CodeInvalidArgument, src.OpsLine, 0,
				"%q was not expanded; run the clipboard pre-pass before applying", src.Header)
		}
	}
	slices.SortFunc(ins, func(a, b placed) int {
		return cmp.Or(cmp.Compare(a.gap, b.gap), cmp.Compare(a.rank, b.rank), cmp.Compare(a.seq, b.seq))
	})
	slices.Sort(dels)
	dels = slices.Compact(dels)

	// Every run kept lies between two edit points, and each insert adds at
	// most a row, a copy, a piece and a region: sized once, never grown.
	edits := len(ins) + len(dels)
	b := builder{text: text, rows: make([]string, 0, len(ins)), copies: make([]Copy, 0, edits+1),
		pieces: make([]Piece, 0, edits+1), changed: make([]Region, 0, edits)}
	cur, i, j := 1, 0, 0 // next original line; next insert; next delete
	for {
		next := n + 1
		if i < len(ins) {
			next = min(next, ins[i].gap)
		}
		if j < len(dels) {
			next = min(next, dels[j])
		}
		if next > cur {
			b.keep(cur, next-1)
			cur = next
		}
		for ; i < len(ins) && ins[i].gap == cur; i++ {
			e := &ir.Edits[ins[i].seq]
			b.insert(e.Text, e.Origin)
		}
		if cur > n {
			break
		}
		if j < len(dels) && dels[j] == cur {
			b.remove()
			j++
			cur++
		}
	}
	b.flush()
	if b.unchanged() {
		return Result{}, noChange(ir)
	}
	return b.result(ir), nil
}

// builder records the new text as copies and rows, and the regions that
// differ.
type builder struct {
	text    Text
	n       int // new lines so far
	rows    []string
	changed []Region
	copies  []Copy
	// cur is the region being built while inRegion is set.
	cur      Region
	inRegion bool
	pieces   []Piece
}

func (b *builder) result(ir IR) Result {
	return Result{Changed: orNil(b.changed), Pieces: orNil(b.pieces), Copies: orNil(b.copies), Rows: orNil(b.rows),
		Resolutions: slices.Clone(ir.Resolutions)}
}

// orNil is s, or nil when s is empty, so that an empty list in a Result is
// always nil whatever capacity the builder gave it.
func orNil[S ~[]E, E any](s S) S {
	if len(s) == 0 {
		return nil
	}
	return s
}

// piece records where the next count lines of out come from (see Piece),
// extending the last piece when they continue it.
func (b *builder) piece(from, count int) {
	if k := len(b.pieces) - 1; k >= 0 {
		if last := &b.pieces[k]; last.From == 0 && from == 0 || last.From > 0 && from == last.From+last.Len {
			last.Len += count
			return
		}
	}
	b.pieces = append(b.pieces, Piece{Start: b.n + 1, Len: count, From: from})
}

func (b *builder) open() {
	if !b.inRegion {
		b.cur, b.inRegion = Region{Start: b.n + 1}, true
	}
}

func (b *builder) flush() {
	if b.inRegion {
		b.cur.End = b.n
		b.changed = append(b.changed, b.cur)
		b.inRegion = false
	}
}

// keep copies original lines from..to unchanged, ending any region.
func (b *builder) keep(from, to int) {
	b.flush()
	b.piece(from, to-from+1)
	b.copies = append(b.copies, Copy{New: b.n + 1, Old: from, N: to - from + 1})
	b.n += to - from + 1
}

// insert adds one row; origin is the original line it copies, or 0.
func (b *builder) insert(text string, origin int) {
	b.open()
	b.piece(origin, 1)
	if origin > 0 {
		b.copies = append(b.copies, Copy{New: b.n + 1, Old: origin, N: 1})
	} else {
		b.rows = append(b.rows, text)
	}
	b.n++
	b.cur.Inserted++
}

func (b *builder) remove() {
	b.open()
	b.cur.Removed++
}

// unchanged reports whether the new text equals the old. Regions alone
// cannot tell: a line inserted at the top and an equal line deleted below
// it are two regions and no change. Lines before the first region and
// after the last were copied, so only the span between needs comparing,
// and only when the lengths agree.
func (b *builder) unchanged() bool {
	if b.n != b.text.Len() {
		return false
	}
	if len(b.changed) == 0 {
		return true
	}
	from := b.changed[0].Start - 1        // 0-based first line a region may touch
	to := b.changed[len(b.changed)-1].End // new lines up to here may differ
	to = max(to, b.changed[len(b.changed)-1].Start-1)
	// Once a line differs the rest need no comparing.
	same, k := true, from // k: the 0-based new line compared next
	Result{Copies: b.copies, Rows: b.rows}.walk(b.text, from, to, func(s string) {
		same = same && s == b.text.Line(k+1)
		k++
	}, func(first, last int) {
		for l := first; same && l <= last; l++ {
			same = b.text.Line(l) == b.text.Line(k+1)
			k++
		}
	})
	return same
}

func noChange(ir IR) error {
	what := "the ops"
	if len(ir.Sources) == 1 {
		what = ir.describe(0)
	}
	return fail(CodeNoChange, 0, 0,
		"%s would leave the file exactly as it is, so nothing was written. If the file already reads as intended, no edit is needed; otherwise re-read the lines and write their new final text as the body",
		what)
}
