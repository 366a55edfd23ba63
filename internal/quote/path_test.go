package quote

import (
	"strings"
	"testing"
)

func TestPathQuotesOnlyWhatNeedsIt(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"a/src/main.go", "a/src/main.go"},
		{"a/with space.txt", "a/with space.txt"},
		{"a/日本語.go", "a/日本語.go"},
		{"a/naïve\u3000café", "a/naïve\u3000café"},
		{"a/notes\n+++ b/fake", `"a/notes\n+++ b/fake"`},
		{"a/tab\there\r", `"a/tab\there\r"`},
		{`a/say "hi"`, `"a/say \"hi\""`},
		{`a\b`, `"a\\b"`},
		{"a/bell\a\b\v\f", `"a/bell\a\b\v\f"`},
		{"a/esc\x1b[31m", `"a/esc\033[31m"`},
		{"a/del\x7f", `"a/del\177"`},
		{"a/bad\xff\xfe", `"a/bad\377\376"`},
		{"a/line\u2028sep", `"a/line\342\200\250sep"`},
		{"a/rlo\u202etxt.exe", `"a/rlo\342\200\256txt.exe"`},
		{"a/日本\n語", `"a/日本\n語"`},
	} {
		if got := Path(tc.in); got != tc.want {
			t.Errorf("Path(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// Whatever a path holds, its quoted form is one line.
func FuzzPathIsOneLine(f *testing.F) {
	f.Add("notes\n+++ b/fake\n@@ -1 +1 @@\n-harmless\n+INJECTED")
	f.Add("a\r\nb\u2029c\x85d")
	f.Fuzz(func(t *testing.T, p string) {
		q := Path(p)
		if strings.ContainsAny(q, "\n\r\u2028\u2029\u0085") {
			t.Fatalf("Path(%q) = %q spans lines", p, q)
		}
		if q != p && (!strings.HasPrefix(q, `"`) || !strings.HasSuffix(q, `"`)) {
			t.Fatalf("Path(%q) = %q changed without quotes", p, q)
		}
	})
}
