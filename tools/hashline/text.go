package hashline

// Text is the original text an edit addresses, line by line: Len lines
// numbered from 1, each without its line ending. The language reads only
// the lines an op takes (a cut, a paste, the no-change check), so a caller
// holding the file as bytes can hand over an index into them instead of a
// string per line; ApplyText and RunText then describe the new text as
// Copies of original runs and Rows, without building it.
type Text interface {
	Len() int
	// Line returns line n, 1 <= n <= Len().
	Line(n int) string
}

// Lines is a Text of lines already split.
type Lines []string

// Len is the number of lines.
func (l Lines) Len() int { return len(l) }

// Line returns line n (1-based).
func (l Lines) Line(n int) string { return l[n-1] }

// linesOf returns lines from..to of t (1-based, inclusive). For Lines it is a
// subslice sharing the caller's array, so it must not be written.
func linesOf(t Text, from, to int) []string {
	if l, ok := t.(Lines); ok {
		return l[from-1 : to]
	}
	out := make([]string, 0, to-from+1)
	for n := from; n <= to; n++ {
		out = append(out, t.Line(n))
	}
	return out
}

// NewLines builds the new text of a Result from the Text it was applied
// to: the Copies, read from t, and the Rows between them. t must be the
// text given to ApplyText or RunText.
//
// The lines are built in one allocation of the exact size, each run of
// rows and of original lines copied into it whole.
func (r Result) NewLines(t Text) []string {
	out := make([]string, r.numLines())
	k, i := 0, 0 // the next new line (0-based); the next row
	for _, c := range r.Copies {
		if c.N <= 0 {
			continue
		}
		rows := max(c.New-1-k, 0) // the rows before this run
		k += copy(out[k:], r.Rows[i:i+rows])
		i += rows
		k += copyLines(out[k:k+c.N], t, c.Old)
	}
	copy(out[k:], r.Rows[i:])
	return out
}

// copyLines copies the original lines from, from+1, ... of t into dst,
// one per element, and returns len(dst).
func copyLines(dst []string, t Text, from int) int {
	if l, ok := t.(Lines); ok {
		return copy(dst, l[from-1:])
	}
	for j := range dst {
		dst[j] = t.Line(from + j)
	}
	return len(dst)
}

// View is the new text of a Result as a Text that reads each line on
// demand from the Copies, in t, and the Rows, without building the new
// lines. t must be the text given to ApplyText or RunText. A line costs a
// walk of the Copies, so View suits reading a few lines (the last, a
// changed window), not all of them: NewLines builds those.
func (r Result) View(t Text) Text { return view{r: r, t: t, n: r.numLines()} }

// view is Result.View.
type view struct {
	r Result
	t Text
	n int
}

func (v view) Len() int { return v.n }

func (v view) Line(n int) string {
	var s string
	v.r.walk(v.t, n-1, n, func(row string) { s = row }, func(from, _ int) { s = v.t.Line(from) })
	return s
}

// numLines is the number of new lines.
func (r Result) numLines() int {
	n := len(r.Rows)
	for _, c := range r.Copies {
		n += c.N
	}
	return n
}

// walk visits the new lines lo..hi-1 (0-based) in order: a row is passed
// to row, a run of original lines to run as their 1-based numbers.
func (r Result) walk(t Text, lo, hi int, row func(string), run func(from, to int)) {
	k, i := 0, 0 // the next new line (0-based); the next row
	rows := func(upto int) {
		for ; k < upto; k++ {
			if k >= lo && k < hi {
				row(r.Rows[i])
			}
			i++
		}
	}
	for _, c := range r.Copies {
		if c.N <= 0 {
			continue
		}
		rows(c.New - 1)
		a, b := max(k, lo), min(k+c.N, hi) // the part of the run inside lo..hi-1
		if a < b {
			run(c.Old+a-k, c.Old+b-1-k)
		}
		k += c.N
	}
	rows(k + len(r.Rows) - i)
}
