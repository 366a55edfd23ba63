package grep

import (
	"bytes"
	"math"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A prefilter finds where a pattern may match without running the regexp:
// a run of bytes that every match contains, each from a known set. For
// "ErrUnexpectedEOF" the run is the literal's bytes; for
// `\b[a-z]+[0-9]{4,}\b` it is a letter followed by four digits. Only the
// lines holding such a run are given to the regexp. Go's regexp scans
// tens of megabytes a second; bytes.Index and a table lookup per byte
// scan hundreds.
type prefilter struct {
	seq []byteSet // every match contains bytes b0 b1 ... with bi in seq[i]
	// lit is the longest run of single bytes in seq, at offset litAt,
	// found with bytes.Index; when seq has none, the scan looks for a byte
	// of seq[anchor], its smallest set, and checks the others around it.
	lit    []byte
	litAt  int
	anchor int
	// rare is the offset in lit of its rarest byte (byteRank): when it is
	// rarer than lit's first byte, lit is found by looking for that byte,
	// which stops less often than bytes.Index looking for the first.
	rare int
}

// byteRank orders bytes by how often they occur in source code and prose,
// rarest first: a rough table, by classes, that only needs to tell an X
// or a 'U' from an 'e'.
func byteRank(b byte) int {
	switch {
	case b >= 'a' && b <= 'z':
		if strings.IndexByte("jkqxz", b) >= 0 {
			return 2
		}
		return 4
	case b == ' ' || b == '\t' || strings.IndexByte("().,\"=_/", b) >= 0:
		return 4
	case b >= 'A' && b <= 'Z':
		if strings.IndexByte("ACEINORST", b) >= 0 {
			return 3
		}
		return 2
	case b >= '0' && b <= '9':
		if b <= '2' {
			return 3
		}
		return 2
	case strings.IndexByte(":;[]{}<>+-*&'!", b) >= 0:
		return 3
	}
	return 1 // other punctuation, control bytes, bytes of non-ASCII characters
}

// byteSet is a set of bytes below utf8.RuneSelf: only a byte that is a
// whole character can be checked alone.
type byteSet [256]bool

func (s *byteSet) size() int {
	n := 0
	for _, in := range s {
		if in {
			n++
		}
	}
	return n
}

// minPrefilterBits is how selective a run without a literal byte must be
// to pay for its scan: one that about one byte in 2^12 starts. Below it
// the regexp runs alone. A run with a literal byte is always used: it is
// found with bytes.Index, which is vectorized.
const minPrefilterBits = 12

// newPrefilter returns the prefilter of a parsed and simplified pattern,
// or nil when it knows no run selective enough.
func newPrefilter(re *syntax.Regexp) *prefilter {
	seq := bestRun(runsOf(re))
	if len(seq) == 0 {
		return nil
	}
	f := &prefilter{seq: seq}
	for i := 0; i < len(seq); {
		j := i
		for j < len(seq) && seq[j].size() == 1 {
			j++
		}
		if j-i > len(f.lit) {
			f.lit = make([]byte, 0, j-i)
			for _, s := range seq[i:j] {
				for b, in := range s {
					if in {
						f.lit = append(f.lit, byte(b))
					}
				}
			}
			f.litAt = i
		}
		i = j + 1
	}
	if f.lit == nil && bits(seq) < minPrefilterBits {
		return nil
	}
	for i, b := range f.lit {
		if byteRank(b) < byteRank(f.lit[f.rare]) {
			f.rare = i
		}
	}
	for i := range seq {
		if seq[i].size() < seq[f.anchor].size() {
			f.anchor = i
		}
	}
	return f
}

// index returns the offset of the first run at or after from, or -1.
func (f *prefilter) index(body []byte, from int) int {
	at, n := f.anchor, 1
	if f.lit != nil {
		at, n = f.litAt, len(f.lit)
	}
	for q := from + at; q+n <= len(body); q++ {
		switch {
		case f.rare > 0:
			i := bytes.IndexByte(body[q+f.rare:], f.lit[f.rare])
			if i < 0 || q+i+n > len(body) {
				return -1
			}
			if q += i; !bytes.Equal(body[q:q+n], f.lit) {
				continue
			}
		case f.lit != nil:
			i := bytes.Index(body[q:], f.lit)
			if i < 0 {
				return -1
			}
			q += i
		default:
			set := &f.seq[at]
			for q < len(body) && !set[body[q]] {
				q++
			}
			if q == len(body) {
				return -1
			}
		}
		if p := q - at; p+len(f.seq) <= len(body) && f.matchAt(body, p) {
			return p
		}
	}
	return -1
}

func (f *prefilter) matchAt(body []byte, p int) bool {
	for i := range f.seq {
		if !f.seq[i][body[p+i]] {
			return false
		}
	}
	return true
}

// bits is how selective a run is: the sum over its bytes of log2(256/|set|).
func bits(seq []byteSet) float64 {
	b := 0.0
	for i := range seq {
		b += math.Log2(256 / float64(max(1, seq[i].size())))
	}
	return b
}

func bestRun(runs [][]byteSet) []byteSet {
	var best []byteSet
	for _, r := range runs {
		if bits(r) > bits(best) {
			best = r
		}
	}
	return best
}

// runs describes what a sub-pattern's every match holds: when exact, the
// match is always one run of bytes from seq's sets; otherwise every match
// begins with prefix, ends with suffix and contains each of inner.
type runs struct {
	exact          bool
	seq            []byteSet
	prefix, suffix []byteSet
	inner          [][]byteSet
}

// maxRun bounds a run's length: x{1000} adds nothing a shorter run lacks.
const maxRun = 64

func runsOf(re *syntax.Regexp) [][]byteSet {
	r := analyze(re)
	if r.exact {
		return [][]byteSet{r.seq}
	}
	return append(r.inner, r.prefix, r.suffix)
}

func analyze(re *syntax.Regexp) runs {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return runs{exact: true} // zero-width: a run goes on across it
	case syntax.OpLiteral:
		var pieces []runs
		for _, r := range re.Rune {
			pieces = append(pieces, runeRun(r, re.Flags&syntax.FoldCase != 0))
		}
		return concat(pieces)
	case syntax.OpCharClass:
		if s, ok := classSet(re.Rune); ok {
			return runs{exact: true, seq: []byteSet{s}}
		}
	case syntax.OpCapture:
		return analyze(re.Sub[0])
	case syntax.OpPlus:
		return atLeastOnce(analyze(re.Sub[0]), 1)
	case syntax.OpRepeat:
		if re.Min < 1 {
			break
		}
		sub := analyze(re.Sub[0])
		if sub.exact && re.Min == re.Max {
			return concat(repeated(sub, re.Min))
		}
		return atLeastOnce(sub, re.Min)
	case syntax.OpConcat:
		var pieces []runs
		for _, sub := range re.Sub {
			pieces = append(pieces, analyze(sub))
		}
		return concat(pieces)
	}
	return runs{} // alternation, optional parts, any character: nothing known
}

// atLeastOnce is what x{n,} (or x+) holds: x's runs, and when x is exact,
// its run n times at both ends.
func atLeastOnce(sub runs, n int) runs {
	if !sub.exact {
		return sub
	}
	whole := concat(repeated(sub, n)).seq
	return runs{prefix: whole, suffix: whole, inner: [][]byteSet{whole}}
}

func repeated(sub runs, n int) []runs {
	n = min(n, maxRun/max(1, len(sub.seq)))
	out := make([]runs, max(n, 1))
	for i := range out {
		out[i] = sub
	}
	return out
}

// concat is what a sequence of sub-patterns holds: the exact runs next to
// each other join; a part that is not exact ends the run before it with
// its prefix and starts the next with its suffix.
func concat(pieces []runs) runs {
	var out runs
	cur := []byteSet{}
	exact := true
	for _, p := range pieces {
		if p.exact {
			cur = appendRun(cur, p.seq)
			continue
		}
		cur = appendRun(cur, p.prefix)
		if exact {
			out.prefix = cur
		}
		out.inner = append(out.inner, cur)
		out.inner = append(out.inner, p.inner...)
		exact = false
		cur = append([]byteSet{}, p.suffix...)
	}
	if exact {
		return runs{exact: true, seq: cur}
	}
	out.suffix = cur
	out.inner = append(out.inner, cur)
	return out
}

func appendRun(run, more []byteSet) []byteSet {
	if len(run)+len(more) > maxRun {
		more = more[:max(0, maxRun-len(run))]
	}
	return append(run, more...)
}

// runeRun is one character of a literal: its UTF-8 bytes, or with case
// folding the set of its ASCII case variants. A character whose variants
// are not all ASCII (k folds to the Kelvin sign), and U+FFFD, which an
// invalid byte also matches, are not known bytes: they break the run.
func runeRun(r rune, fold bool) runs {
	if r == utf8.RuneError || r == '\n' {
		return runs{}
	}
	if fold {
		var s byteSet
		for f := r; ; {
			if f >= utf8.RuneSelf {
				return runs{}
			}
			s[f] = true
			if f = unicode.SimpleFold(f); f == r {
				break
			}
		}
		return runs{exact: true, seq: []byteSet{s}}
	}
	var buf [utf8.UTFMax]byte
	n := utf8.EncodeRune(buf[:], r)
	seq := make([]byteSet, n)
	for i := range n {
		seq[i][buf[i]] = true
	}
	return runs{exact: true, seq: seq}
}

// classSet is the set of a character class whose characters are all
// ASCII, without the newline a line never holds.
func classSet(ranges []rune) (byteSet, bool) {
	var s byteSet
	for i := 0; i+1 < len(ranges); i += 2 {
		if ranges[i+1] >= utf8.RuneSelf {
			return s, false
		}
		for r := ranges[i]; r <= ranges[i+1]; r++ {
			s[r] = true
		}
	}
	s['\n'] = false
	return s, true
}
