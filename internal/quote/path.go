package quote

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Path returns a path as a diff header or a diff's summary line shows it:
// as it is when every character is graphic (letters, marks, numbers,
// punctuation, symbols, spaces), otherwise C-style in double
// quotes, as git quotes a path: \a \b \t \n \v \f \r \" \\ by name and any
// other byte that needs it in octal (\ooo). A path that held a newline
// could otherwise end a header line and forge the lines after it (a hunk
// that was never there). Printable UTF-8 stays as it is, as with git's
// core.quotePath off, so a name in any script reads as itself; a control
// or format character (a line or paragraph separator, a bidirectional
// override that would reorder what is shown), a byte that is not UTF-8, a
// quote or a backslash makes the whole path quoted, each such byte
// escaped, and git apply reads the quoted form back.
func Path(p string) string {
	if !needsQuote(p) {
		return p
	}
	var b strings.Builder
	b.Grow(len(p) + 8)
	b.WriteByte('"')
	for i := 0; i < len(p); {
		r, n := utf8.DecodeRuneInString(p[i:])
		switch {
		case r == utf8.RuneError && n <= 1, !unicode.IsGraphic(r):
			for _, c := range []byte(p[i : i+n]) {
				escapeByte(&b, c)
			}
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteString(p[i : i+n])
		}
		i += n
	}
	b.WriteByte('"')
	return b.String()
}

func needsQuote(p string) bool {
	for i := 0; i < len(p); {
		r, n := utf8.DecodeRuneInString(p[i:])
		if r == utf8.RuneError && n <= 1 || r == '"' || r == '\\' || !unicode.IsGraphic(r) {
			return true
		}
		i += n
	}
	return false
}

// escapeByte writes one byte as C escapes it: by name where C has one,
// else three octal digits.
func escapeByte(b *strings.Builder, c byte) {
	const named = "\a\b\t\n\v\f\r"
	if i := strings.IndexByte(named, c); i >= 0 {
		b.WriteByte('\\')
		b.WriteByte("abtnvfr"[i])
		return
	}
	b.WriteByte('\\')
	b.WriteByte('0' + c>>6)
	b.WriteByte('0' + c>>3&7)
	b.WriteByte('0' + c&7)
}
