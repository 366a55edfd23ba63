package workspace

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// oline is one line of a file in the oracle: its text and its own ending
// ("" for a last line without one).
type oline struct{ text, end string }

func oracleBytes(bom bool, lines []oline) []byte {
	var b strings.Builder
	if bom {
		b.WriteString("\xEF\xBB\xBF")
	}
	for _, l := range lines {
		b.WriteString(l.text + l.end)
	}
	return []byte(b.String())
}

func TestDecodeMixedEndings(t *testing.T) {
	tests := []struct {
		raw   string
		crlf  bool
		other []int
		body  string
	}{
		{"a\r\nb\nc\r\nd\r\n", true, []int{2}, "a\nb\nc\nd\n"},
		{"a\nb\r\nc\n", false, []int{2}, "a\nb\nc\n"},
		{"a\r\nb\n", false, []int{1}, "a\nb\n"}, // a tie is LF
		{"a\r\nb\r\n", true, nil, "a\nb\n"},
		{"a\nb\n", false, nil, "a\nb\n"},
		{"a\rb\n", false, nil, "a\rb\n"},                      // a lone CR is content
		{"a\r\r\nb\n", false, []int{1}, "a\r\nb\n"},           // a CR before a CRLF is content
		{"\xEF\xBB\xBFa\r\nb\nc", false, []int{1}, "a\nb\nc"}, // an unterminated last line has no ending
	}
	for _, tt := range tests {
		got, err := DecodeString(tt.raw)
		if err != nil {
			t.Fatal(err)
		}
		if got.Body != tt.body || got.CRLF != tt.crlf || !slices.Equal(got.Other, tt.other) {
			t.Errorf("Decode(%q) = body %q, CRLF %v, other %v; want %q, %v, %v", tt.raw, got.Body, got.CRLF, got.Other, tt.body, tt.crlf, tt.other)
		}
	}
}

func TestEncodeEditKeepsUntouchedEndings(t *testing.T) {
	raw := []byte("a\r\nb\nc\r\nd\r\n")
	text, _ := Decode(raw)
	old := Lines(text.Body)
	// PUT 4.=4: +D: lines 1-3 are kept, line 4 is new.
	got := text.EncodeEdit(raw, old, []string{"a", "b", "c", "D"}, []Copy{{New: 1, Old: 1, N: 3}}, true)
	if want := "a\r\nb\nc\r\nD\r\n"; string(got) != want {
		t.Errorf("got %q, want %q", got, want)
	}
	// A moved line keeps its own ending: line 2 (LF) pasted after line 4.
	got = text.EncodeEdit(raw, old, []string{"a", "c", "d", "b"}, []Copy{{1, 1, 1}, {2, 3, 2}, {4, 2, 1}}, true)
	if want := "a\r\nc\r\nd\r\nb\n"; string(got) != want {
		t.Errorf("moved: got %q, want %q", got, want)
	}
}

// TestEncodeEditOracle checks EncodeEdit, and EncodeRows on the file's
// Index, against a model that keeps each line's own ending: random files
// (BOM or not, LF, CRLF or a mix, lone CRs, with or without a final
// newline) and random new versions made of runs of old lines, moved old
// lines and new rows.
func TestEncodeEditOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	texts := []string{"", "x", "  y", "z\r", "\tq := 1", "a\rb"}
	for iter := range 3000 {
		bom := rng.IntN(4) == 0
		n := rng.IntN(8)
		crlfBias := rng.IntN(3) // 0 LF, 1 CRLF, 2 mixed
		var lines []oline
		for i := range n {
			end := "\n"
			switch {
			case crlfBias == 1, crlfBias == 2 && rng.IntN(2) == 0:
				end = "\r\n"
			}
			l := oline{text: texts[rng.IntN(len(texts))] + fmt.Sprint(i), end: end}
			lines = append(lines, l)
		}
		if n > 0 && rng.IntN(3) == 0 {
			lines[n-1].end = ""
		}
		raw := oracleBytes(bom, lines)
		text, err := Decode(raw)
		if err != nil {
			t.Fatal(err)
		}
		old := Lines(text.Body)
		if len(old) != n {
			t.Fatalf("%q: %d lines, want %d", raw, len(old), n)
		}
		x, err := text.Index(raw)
		if err != nil {
			t.Fatal(err)
		}
		if x.Len() != n {
			t.Fatalf("%q: Index has %d lines, want %d", raw, x.Len(), n)
		}
		for i, l := range old {
			if got := x.Line(i + 1); got != l {
				t.Fatalf("%q: Index line %d is %q, want %q", raw, i+1, got, l)
			}
		}
		dom := "\n"
		if text.CRLF {
			dom = "\r\n"
		}
		// Build a new version: walk the old lines, keeping, dropping or
		// replacing each, with new rows and moved lines between.
		var want []oline
		var cur, rows []string
		var copies []Copy
		add := func(l oline, from int) {
			cur = append(cur, l.text)
			if from == 0 {
				rows = append(rows, l.text)
			}
			if from > 0 {
				if k := len(copies) - 1; k >= 0 && copies[k].Old+copies[k].N == from && copies[k].New+copies[k].N == len(cur) {
					copies[k].N++
				} else {
					copies = append(copies, Copy{New: len(cur), Old: from, N: 1})
				}
			}
			want = append(want, l)
		}
		for i := 0; i <= n; i++ {
			switch rng.IntN(5) {
			case 0:
				add(oline{text: fmt.Sprintf("new%d", i), end: dom}, 0)
			case 1:
				if n > 0 {
					j := rng.IntN(n)
					add(lines[j], j+1)
				}
			}
			if i < n && rng.IntN(4) != 0 {
				add(lines[i], i+1)
			}
		}
		// A line that was last without a newline and is no longer last
		// gains the dominant ending.
		for i := range want {
			if want[i].end == "" && i < len(want)-1 {
				want[i].end = dom
			}
		}
		final := rng.IntN(2) == 0
		if len(want) > 0 {
			last := &want[len(want)-1]
			if final && last.end == "" {
				last.end = dom
			}
			if !final {
				last.end = ""
			}
		}
		got := text.EncodeEdit(raw, old, cur, copies, final)
		if exp := oracleBytes(bom, want); string(got) != string(exp) {
			t.Fatalf("iteration %d: raw %q, new lines %q, copies %v, final %v:\ngot  %q\nwant %q", iter, raw, cur, copies, final, got, exp)
		}
		if got, err := text.EncodeRows(x, rows, copies, final); err != nil || string(got) != string(oracleBytes(bom, want)) {
			t.Fatalf("iteration %d: EncodeRows: raw %q, rows %q, copies %v, final %v:\ngot  %q\nwant %q", iter, raw, rows, copies, final, got, oracleBytes(bom, want))
		}
	}
}
