package workspace

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestIndexLines checks Index against Lines on files spanning many
// chunks, lines read in order, backwards and at random, so every lookup
// path (the table, the cursor, a chunk boundary) is taken.
func TestIndexLines(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for iter := range 60 {
		var b strings.Builder
		if rng.IntN(3) == 0 {
			b.WriteString("\xEF\xBB\xBF")
		}
		n := rng.IntN(400)
		for i := range n {
			// Lengths from empty to longer than a chunk, so some chunks
			// hold no newline at all.
			size := rng.IntN(80)
			if rng.IntN(20) == 0 {
				size = rng.IntN(3 * indexChunk)
			}
			b.WriteString(strings.Repeat(string(rune('a'+i%26)), size))
			if rng.IntN(10) == 0 {
				b.WriteString("\r") // a lone CR, or one before an LF
			}
			switch {
			case i == n-1 && rng.IntN(2) == 0: // a last line without a newline
			case rng.IntN(3) == 0:
				b.WriteString("\r\n")
			default:
				b.WriteString("\n")
			}
		}
		raw := []byte(b.String())
		text, err := Decode(raw)
		if err != nil {
			t.Fatal(err)
		}
		want := Lines(text.Body)
		x, err := text.Index(raw)
		if err != nil {
			t.Fatal(err)
		}
		if x.Len() != len(want) {
			t.Fatalf("iteration %d: Len %d, want %d", iter, x.Len(), len(want))
		}
		order := rng.Perm(len(want))
		for i := range want {
			order = append(order, i, len(want)-1-i)
		}
		for _, i := range order {
			if got := x.Line(i + 1); got != want[i] {
				t.Fatalf("iteration %d: line %d is %q, want %q", iter, i+1, got, want[i])
			}
		}
	}
}

func TestIndexSmall(t *testing.T) {
	for _, tt := range []struct {
		raw   string
		lines []string
	}{
		{"", nil},
		{"\xEF\xBB\xBF", nil},
		{"\n", []string{""}},
		{"a", []string{"a"}},
		{"a\r", []string{"a\r"}},
		{"a\r\n\r\nb", []string{"a", "", "b"}},
		{"\xEF\xBB\xBFa\r\r\nb\n", []string{"a\r", "b"}},
	} {
		text, err := DecodeString(tt.raw)
		if err != nil {
			t.Fatal(err)
		}
		x, err := text.Index([]byte(tt.raw))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for n := 1; n <= x.Len(); n++ {
			got = append(got, x.Line(n))
		}
		if strings.Join(got, "|") != strings.Join(tt.lines, "|") || len(got) != len(tt.lines) {
			t.Errorf("Index(%q) lines %q, want %q", tt.raw, got, tt.lines)
		}
	}
}

// TestEncodeRowsDoesNotAlias: the bytes EncodeRows returns are new memory
// even when the new file is one run of the old, whose bytes are the
// review's before bytes and must not change.
func TestEncodeRowsDoesNotAlias(t *testing.T) {
	raw := []byte("a\nb\n")
	text, _ := Decode(raw)
	x, _ := text.Index(raw)
	for _, copies := range [][]Copy{{{New: 1, Old: 1, N: 2}}, {{New: 1, Old: 2, N: 1}}} {
		out := mustBytes(text.EncodeRows(x, nil, copies, true))
		for i := range out {
			out[i] = 'X'
		}
		if string(raw) != "a\nb\n" {
			t.Fatalf("writing the output of %v changed the file's bytes to %q", copies, raw)
		}
	}
}
