package grep

import (
	"regexp"
	"slices"
	"testing"

	"github.com/hostd-dev/hostd/workspace"
)

// oracleLines is the definition lineMatcher must meet: each addressable
// line of the body, matched alone.
func oracleLines(re *regexp.Regexp, body string) []int {
	var out []int
	for i, l := range workspace.Lines(body) {
		if re.MatchString(l) {
			out = append(out, i+1)
		}
	}
	return out
}

func matcherLines(t testing.TB, pattern string, ignoreCase bool, body string) ([]int, *regexp.Regexp, bool) {
	m, err := Compile(pattern, ignoreCase)
	if err != nil {
		return nil, nil, false
	}
	var got []int
	m.each([]byte(body), func(n int, line []byte) bool {
		if ls := workspace.Lines(body); string(line) != ls[n-1] {
			t.Fatalf("line %d text %q, want %q", n, line, ls[n-1])
		}
		got = append(got, n)
		return true
	})
	return got, m.re, true
}

func TestLineMatcher(t *testing.T) {
	body := "func main() {\n\tx := a\n}\n\nfunc helper() {}\nFUNC upper\nend"
	tests := []struct {
		pattern    string
		ignoreCase bool
		want       []int
	}{
		{"func", false, []int{1, 5}},
		{"func", true, []int{1, 5, 6}},
		{"^func", false, []int{1, 5}},
		{`\}$`, false, []int{3, 5}},
		{`^$`, false, []int{4}},
		{``, false, []int{1, 2, 3, 4, 5, 6, 7}},
		{`\Afunc`, false, []int{1, 5}}, // \A is the start of each line
		{`end\z`, false, []int{7}},     // \z is the end of each line
		{`\{[^x]*x`, false, nil},       // [^x] must not reach into the next line
		{`main\(\)\s*\{`, false, []int{1}},
		{`help(er)+`, false, []int{5}},  // required literal inside a repeat
		{`[a-z]+ :=`, false, []int{2}},  // required literal after a class
		{`up|main`, false, []int{1, 6}}, // no required literal
		{`(?i)UPPER`, false, []int{6}},
		{`d$`, false, []int{7}}, // last line has no newline
	}
	for _, tt := range tests {
		got, re, ok := matcherLines(t, tt.pattern, tt.ignoreCase, body)
		if !ok {
			t.Fatalf("pattern %q did not compile", tt.pattern)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%q: lines %v, want %v", tt.pattern, got, tt.want)
		}
		if oracle := oracleLines(re, body); !slices.Equal(got, oracle) {
			t.Errorf("%q: lines %v, oracle %v", tt.pattern, got, oracle)
		}
	}
}

// FuzzLineMatcher: whatever the pattern and text, the lines found are the
// lines that match on their own.
func FuzzLineMatcher(f *testing.F) {
	for _, s := range [][2]string{
		{"a", "a\nb\na"}, {"^$", "\n\n"}, {`[^a]+`, "ab\nba\n"}, {`\Ab`, "a\nb"}, {`a\s*b`, "a\n b\nab"},
		{`(x|y)z`, "xz\nyz\nz"}, {`$`, "a\n"}, {`b\z`, "b\nb\n"},
		// Prefilter runs: classes, repeats, case folding, UTF-8.
		{`\b[a-z]+[0-9]{4,}[a-z]+\b`, "ab1234cd\nx12345\na1234\n1234ab"},
		{`(?i)needle`, "NeEdLe\nneedl\n"}, {`(?i)kk`, "K\u212ak\nkk"}, {`é+x`, "éx\néé\nx"},
		{`\d{3}-\d{2}`, "123-45\n12-345\n"}, {`(ab){2,}c`, "ababc\nabc\n"},
		{`eeUe`, "eeUe\nUe\neeU\neeeUeeUe\neeU"}, {`aQ`, "aQ"},
	} {
		f.Add(s[0], s[1], false)
	}
	f.Fuzz(func(t *testing.T, pattern, body string, ignoreCase bool) {
		if len(pattern) > 64 || len(body) > 4096 {
			return
		}
		got, re, ok := matcherLines(t, pattern, ignoreCase, body)
		if !ok {
			return
		}
		if want := oracleLines(re, body); !slices.Equal(got, want) {
			t.Fatalf("pattern %q on %q: lines %v, oracle %v", pattern, body, got, want)
		}
	})
}
