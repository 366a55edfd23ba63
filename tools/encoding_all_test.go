package tools

import (
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/workspace/textenc"
)

// Every encoding textenc supports, not a sample of them, survives read,
// edit, write, MV and rollback through the tools byte for byte (issue
// 27): the cases come from textenc.Supported, so an encoding added there
// is held to this without being named here. Each file holds characters
// taken from the encoding's own bytes (single bytes, and two-byte
// sequences of the multi-byte ones), so the test reaches past ASCII in
// all of them. The Unicode encodings are tried after their mark and, with
// no mark, by the setting; the legacy ones by the setting.
func TestEveryEncodingRoundTripsThroughTheTools(t *testing.T) {
	all := textenc.Supported()
	if len(all) < 20 {
		t.Fatalf("textenc supports %d encodings; the list lost its legacy ones", len(all))
	}
	for i, enc := range all {
		held := heldCharacters(t, enc)
		if len(held) < 8 {
			t.Fatalf("%s: only %d characters outside ASCII found to test with: %q", enc, len(held), string(held))
		}
		eol := "\n"
		if i%2 == 1 {
			eol = "\r\n"
		}
		var text strings.Builder
		for k, chunk := range chunks(held, 4) {
			text.WriteString(string(rune('a'+k)) + " " + string(chunk) + eol)
		}
		rev := slices.Clone(held[:len(held)/2])
		slices.Reverse(rev)
		line2 := "new " + string(rev)
		byRule := roundTripCase{
			name: enc.Name() + " by setting", file: "a.enc", encoding: enc.Name(),
			rules: []config.EncodingRule{{Glob: "*.enc", Encoding: enc.Name()}},
			text:  text.String(), line2: line2,
		}
		t.Run(byRule.name, func(t *testing.T) { roundTrip(t, enc, byRule) })
		if !enc.IsUTF8() && len(enc.BOM()) > 0 {
			byMark := roundTripCase{name: enc.Name() + " mark", file: "a.txt", encoding: enc.Name(), bom: true, text: text.String(), line2: line2}
			t.Run(byMark.name, func(t *testing.T) { roundTrip(t, enc, byMark) })
		}
	}
}

// heldCharacters are up to 48 printable characters outside ASCII that
// enc holds, spread over all it was found to hold: those its single bytes
// and a spread of its two-byte sequences decode to (Decode is strict, so
// each encodes back to those bytes), and of a few from many scripts,
// those it can encode (UTF-32 has no character in one or two bytes).
func heldCharacters(t *testing.T, enc textenc.Encoding) []rune {
	t.Helper()
	found := map[rune]bool{}
	keep := func(s string) {
		for _, r := range s {
			if r > unicode.MaxASCII && unicode.IsGraphic(r) && r != unicode.ReplacementChar && r != '\uFEFF' {
				found[r] = true
			}
		}
	}
	for lead := 0x80; lead <= 0xFF; lead++ {
		if s, err := enc.Decode([]byte{byte(lead)}); err == nil {
			keep(string(s))
		}
		for _, trail := range []byte{0x40, 0x5C, 0x7E, 0x80, 0xA1, 0xFE} {
			if s, err := enc.Decode([]byte{byte(lead), trail}); err == nil {
				keep(string(s))
			}
		}
	}
	for _, r := range "éßøЖЯΩπ€–“אשءي한글日本語中文ｱ😀" {
		if _, err := enc.NewEncoder().Append(nil, string(r)); err == nil {
			keep(string(r))
		}
	}
	rs := make([]rune, 0, len(found))
	for r := range found {
		rs = append(rs, r)
	}
	slices.Sort(rs)
	const most = 48
	if len(rs) <= most {
		return rs
	}
	spread := make([]rune, most)
	for i := range spread {
		spread[i] = rs[i*len(rs)/most]
	}
	return spread
}

// chunks splits rs into n pieces of about equal length.
func chunks(rs []rune, n int) [][]rune {
	out := make([][]rune, n)
	for i := range out {
		out[i] = rs[i*len(rs)/n : (i+1)*len(rs)/n]
	}
	return out
}
