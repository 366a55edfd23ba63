package grep

import (
	"regexp/syntax"
	"strings"
	"testing"
)

// The run each pattern's prefilter scans for, written a byte at a time:
// the byte itself, or its set in brackets.
func TestPrefilterRuns(t *testing.T) {
	tests := []struct{ pattern, run, lit string }{
		{"ErrUnexpectedEOF", "ErrUnexpectedEOF", "ErrUnexpectedEOF"},
		{`func \(\w+ \*\w+\) Write\w*\(`, "[0-9A-Z_a-z]) Write", ") Write"},
		{`\b[a-z]+[0-9]{4,}[a-z]+\b`, "[a-z][0-9][0-9][0-9][0-9]", ""},
		{`(?i)needle`, "[Nn][Ee][Ee][Dd][Ll][Ee]", ""},
		{`\d{3}-\d{4}`, "[0-9][0-9][0-9]-[0-9][0-9][0-9][0-9]", "-"},
		{`help(er)+`, "helper", "helper"},
		{`(ab){2}c`, "ababc", "ababc"},
		{`x[^y]z`, "x", "x"},           // [^y] holds non-ASCII characters
		{`é+`, "\xc3\xa9", "\xc3\xa9"}, // a character's UTF-8 bytes
		{`^\s*return nil`, "return nil", "return nil"},
		{`a.b`, "a", "a"},
		{"", "", ""},
		{`up|main`, "", ""},       // alternation: nothing known
		{`(?i)kk`, "", ""},        // k also matches the Kelvin sign
		{`[a-z]+`, "", ""},        // too common to be worth a scan
		{`x?y*`, "", ""},          // nothing required
		{"a\uFFFDb", "a", "a"},    // an invalid byte also matches U+FFFD
		{`[\n\t]a`, "\ta", "\ta"}, // a line never holds a newline
	}
	for _, tt := range tests {
		re, err := syntax.Parse("(?m)"+tt.pattern, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		f := newPrefilter(re.Simplify())
		run, lit := "", ""
		if f != nil {
			run, lit = describeRun(f.seq), string(f.lit)
		}
		if f != nil && tt.pattern == "ErrUnexpectedEOF" && f.rare != 3 {
			t.Errorf("%q: looks for byte %d, want 3 (the U)", tt.pattern, f.rare)
		}
		if run != tt.run || lit != tt.lit {
			t.Errorf("%q: run %q literal %q, want %q and %q", tt.pattern, run, lit, tt.run, tt.lit)
		}
	}
}

func describeRun(seq []byteSet) string {
	var b strings.Builder
	for i := range seq {
		if seq[i].size() == 1 {
			for c, in := range seq[i] {
				if in {
					b.WriteByte(byte(c))
				}
			}
			continue
		}
		b.WriteByte('[')
		for c := 0; c < 256; c++ {
			if !seq[i][c] {
				continue
			}
			e := c
			for e+1 < 256 && seq[i][e+1] {
				e++
			}
			b.WriteByte(byte(c))
			if e > c+1 {
				b.WriteByte('-')
			}
			if e > c {
				b.WriteByte(byte(e))
			}
			c = e
		}
		b.WriteByte(']')
	}
	return b.String()
}
