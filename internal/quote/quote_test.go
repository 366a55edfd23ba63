package quote

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestShortQuotesAShortStringWhole(t *testing.T) {
	for _, s := range []string{"", "s-1", "a\"b\n", strings.Repeat("x", Max)} {
		if got, want := Short(s), strconv.Quote(s); got != want {
			t.Errorf("Short(%q) = %s, want %s", s, got, want)
		}
		if got, want := Bytes([]byte(s)), strconv.Quote(s); got != want {
			t.Errorf("Bytes(%q) = %s, want %s", s, got, want)
		}
	}
}

func TestShortQuotesAPrefixOfALongStringAndItsLength(t *testing.T) {
	s := strings.Repeat("a", 60<<20)
	got := Short(s)
	want := strconv.Quote(strings.Repeat("a", Max)) + "… (62914560 bytes)"
	if got != want {
		t.Fatalf("Short = %.200s, want %s", got, want)
	}
	if b := Bytes([]byte(s)); b != want {
		t.Fatalf("Bytes = %.200s, want %s", b, want)
	}
}

// FuzzShort: the quote is short, valid UTF-8 when the input is, quotes a
// prefix of the input, and names the length of anything it cut.
func FuzzShort(f *testing.F) {
	f.Add("héllo wörld", 40)
	f.Add("\xff\xfe", 200)
	f.Fuzz(func(t *testing.T, unit string, repeat int) {
		s := strings.Repeat(unit, max(0, min(repeat, 400)))
		got := Short(s)
		if got != Bytes([]byte(s)) {
			t.Fatalf("Short and Bytes differ on %q", s)
		}
		if len(got) > 4*Max+40 {
			t.Fatalf("quote of %d bytes is %d bytes long", len(s), len(got))
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("quote of valid UTF-8 is not: %q", got)
		}
		q, rest, cut := got, "", false
		if i := strings.LastIndex(got, "… ("); i >= 0 && got[i-1] == '"' && strings.HasSuffix(got, " bytes)") {
			q, rest, cut = got[:i], got[i+len("… ("):], true
		}
		prefix, err := strconv.Unquote(q)
		if err != nil || !strings.HasPrefix(s, prefix) {
			t.Fatalf("%q does not quote a prefix of the input", got)
		}
		if cut != (len(s) > Max) {
			t.Fatalf("input of %d bytes: cut %v", len(s), cut)
		}
		if cut && (rest != strconv.Itoa(len(s))+" bytes)" || len(prefix) < Max-utf8.UTFMax) {
			t.Fatalf("cut quote %q of %d bytes", got, len(s))
		}
	})
}
