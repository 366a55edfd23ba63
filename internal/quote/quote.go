// Package quote owns how hostd quotes a string it did not choose. Short
// quotes a client string in an error message: a method name, a session
// id, a tool name, a path. A client string can be as long as a frame
// (tens of megabytes); an error that echoed it whole would be as large,
// and could exceed the frame cap the client enforces, so Short quotes at
// most a short prefix and says how long the whole was. Path quotes a path
// in a diff as git does, so a file name cannot forge diff lines.
// The package is a leaf: it imports only the standard library.
package quote

import (
	"strconv"
	"unicode/utf8"
)

// Max is the most bytes of a client string an error message quotes.
const Max = 100

// Short returns s quoted as %q would quote it when s is at most Max
// bytes; otherwise the quoted first Max bytes (cut back to a rune
// boundary), an ellipsis, and the length of the whole:
//
//	"aaaa…" (60000000 bytes)
func Short(s string) string {
	if len(s) <= Max {
		return strconv.Quote(s)
	}
	return clipped(s[:cutAt(s)], len(s))
}

// Bytes is Short for a byte slice; it copies only the prefix it quotes.
func Bytes(b []byte) string {
	if len(b) <= Max {
		return strconv.Quote(string(b))
	}
	return clipped(string(b[:cutAt(string(b[:Max+1]))]), len(b))
}

// cutAt is the prefix length to quote of a string longer than Max: Max,
// moved back to the start of the rune that straddles it.
func cutAt(s string) int {
	cut := Max
	for cut > Max-utf8.UTFMax && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return cut
}

func clipped(prefix string, total int) string {
	return strconv.Quote(prefix) + "… (" + strconv.Itoa(total) + " bytes)"
}
