package blocks

import (
	"strconv"
	"strings"
)

// What reaches a grammar. A grammar is C code linked into the daemon: an
// input that trips one of its assertions, or overflows one of its fixed
// buffers, aborts the whole process and every session with it. The
// inputs known to do that never reach the parser: each language may
// carry a guard, run before every parse, that refuses them. A refused
// text is treated like a text over the parse limit: block ops decline
// and boundary repair's syntax check answers that it cannot tell.
//
// The guards are found and kept honest by TestParseStress and
// FuzzParseChild, which parse generated and mutated inputs in a child
// process and count the aborts.

// maxMarkdownNesting bounds how deeply the containers of one Markdown
// line (block quotes, list items) may nest. The Markdown grammar's
// external scanner keeps one 4-byte entry per open container and writes
// them all into tree-sitter's 1024-byte serialization buffer without a
// bound: at 255 open containers it writes past the buffer and the parser
// aborts (a 518-byte file of 256 "> " or "- " does it). 128 is half of
// what the buffer holds, and real documents never come near it.
const maxMarkdownNesting = 128

// markdownGuard refuses a text with a line that could open more than
// maxMarkdownNesting containers. It returns the refusal's reason, "" when
// the text may be parsed.
//
// A container open on a line is matched by its marker ('>') or by at
// least two columns of indentation (a list item), and a new one opens
// only after all open ones matched. So the containers open on a line are
// at most its markers plus its indentation columns before the first
// other character: the count taken here, which over-counts (a list item
// is both its marker and the space after it) and never under-counts.
// A line indented by more than maxMarkdownNesting columns is refused too;
// such lines do not occur in the documents block ops are for.
//
// The grammar ends a line at "\r" as well as at "\n", so a lone CR (a
// text is normalized to LF, but one can stay) starts a line here too;
// the reason names the LF line, the one the edit tool shows.
func markdownGuard(text string) string {
	for row := 0; len(text) > 0; row++ {
		line, rest, _ := strings.Cut(text, "\n")
		text = rest
		for part := range strings.SplitSeq(line, "\r") {
			if markdownNesting(part) > maxMarkdownNesting {
				return "line " + strconv.Itoa(row+1) + " nests block quotes, list items or indentation more than " +
					strconv.Itoa(maxMarkdownNesting) + " levels deep, which the Markdown grammar cannot parse safely"
			}
		}
	}
	return ""
}

// markdownNesting counts the container markers and indentation columns
// (a tab counts 4) at the start of line, stopping at the first character
// that neither is nor opens a container. A NUL byte counts as a space:
// the grammar lets a block quote open right after one (FuzzParseChild
// found ">>>\x00>>>..." past a guard that stopped there). It stops
// counting past the bound: only "over the bound" matters, and a long
// line of markers must not cost more than the bound.
func markdownNesting(line string) int {
	n := 0
	for i := 0; i < len(line) && n <= maxMarkdownNesting; {
		switch c := line[i]; {
		case c == ' ' || c == '>' || c == 0:
			n++
			i++
		case c == '\t':
			n += 4
			i++
		case c == '-' || c == '+' || c == '*':
			if !markerEnds(line, i+1) {
				return n
			}
			n++
			i++
		case c >= '0' && c <= '9':
			j := i
			for j < len(line) && line[j] >= '0' && line[j] <= '9' {
				j++
			}
			if j == len(line) || (line[j] != '.' && line[j] != ')') || !markerEnds(line, j+1) {
				return n
			}
			n++
			i = j + 1
		default:
			return n
		}
	}
	return n
}

// markerEnds reports whether a list marker ending before line[i] is one:
// followed by a space, a tab or the end of the line.
func markerEnds(line string, i int) bool {
	return i >= len(line) || line[i] == ' ' || line[i] == '\t' || line[i] == '\r'
}

// maxTypeNesting bounds how many type argument lists a C# or Java text
// may open in a row ("List<List<List<..."). Error recovery in those
// grammars does work that grows with about the cube of that count inside
// one parse operation, where neither the parse's clock nor the reader can
// stop it: in C#, 2,000 in a row (10 KB) parse in over a second and the
// 72,000 of a 363 KB input did not finish in two minutes (TestParseStress
// found it); in Java 4,000 take 0.9 s and 20,000 take 35 s. Real code
// nests a handful (Dictionary<string, List<Task<int>>> is three); 64
// cost under 1 ms.
const maxTypeNesting = 64

// typeArgumentGuard is the guard of a grammar with that cost (C#, Java),
// called grammar in its reason. It refuses a text with a run of more than
// maxTypeNesting "<" in which only identifiers, whitespace and the
// punctuation of a type name (. ? [ ] : @) stand between one "<" and the
// next. A ",", ">" or any other character ends the run: a list of type
// arguments or an expression with comparisons never grows one. Strings
// and comments are not skipped, so the count can only be too high, never
// too low.
func typeArgumentGuard(grammar string) func(text string) string {
	return func(text string) string {
		run, row, start := 0, 0, 0
		for i := 0; i < len(text); i++ {
			c := text[i]
			switch {
			case c == '<':
				if run == 0 {
					start = row
				}
				run++
				if run > maxTypeNesting {
					return "line " + strconv.Itoa(start+1) + " opens more than " + strconv.Itoa(maxTypeNesting) +
						" type argument lists in a row, which the " + grammar + " grammar cannot parse in bounded time"
				}
			case c == '\n':
				row++
			case c == '_' || c == '.' || c == '?' || c == '[' || c == ']' || c == ':' || c == '@' ||
				c == ' ' || c == '\t' || c == '\r' ||
				c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80:
			default:
				run = 0
			}
		}
		return ""
	}
}

// maxKotlinInterpolations bounds the "${" a Kotlin text may hold. The
// Kotlin grammar's scanner keeps one entry per open string and writes
// them into tree-sitter's 1024-byte serialization buffer without a
// bound: 1,025 strings nested through "${" abort the process (found by
// probing past TestDeepNestingEveryGrammar's depths). A string opens
// inside another only through an interpolation, so the count of "${"
// bounds the nesting from above; real files hold far fewer than 512.
const maxKotlinInterpolations = 512

// kotlinGuard refuses a text with more than maxKotlinInterpolations "${".
func kotlinGuard(text string) string {
	if n := strings.Count(text, "${"); n > maxKotlinInterpolations {
		return "it holds " + strconv.Itoa(n) + " string interpolations (\"${\"), more than the " +
			strconv.Itoa(maxKotlinInterpolations) + " the Kotlin grammar can nest safely"
	}
	return ""
}
