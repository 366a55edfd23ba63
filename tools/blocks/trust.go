package blocks

import "github.com/hostd-dev/hostd/tools/syntax"

// Trust in a grammar's errors (edit-contract §5.6). A tree-sitter grammar
// is no compiler: on valid code it may still find errors, where the code
// uses what the grammar does not know (Swift macros, C and C++ macros,
// PostgreSQL statements). An error region of such a grammar says the parser
// could not read those lines, not that the change broke them, so syntax
// feedback names it as such (ErrorRegion.Unsure).
//
// Which grammars those are is measured, not chosen: grammarTrust
// (trust_table.go) counts, for each grammar, the files of a corpus of
// released, valid code (the shared corpus's valid-code/files, docs/testing.md),
// how many of them the grammar finds an error in, and in how many it had
// to assume a closing bracket (trustedRegion). The table is written by
//
//	HOSTD_TRUST=write go test ./tools/blocks -run '^TestGrammarTrust$'
//
// and TestGrammarTrust fails when the table is not what the measurement
// gives, so it changes with the grammars. The 291 real (before, after)
// pairs of the same corpus are not used here: the replay of the corpus
// (tools, TestReplayValidCorpus) holds the table against them.

// trustMeasure is one grammar's measurement: of Files valid files, the
// grammar found an error region in WithErrors, and a closing bracket it
// had to assume (a MISSING ")", "]" or "}") in WithMissingCloser.
type trustMeasure struct{ Files, WithErrors, WithMissingCloser int }

// maxUntrustedShare is the share of valid files with an error at or
// below which a grammar's errors are the change's: 2%, which on a
// sample of 9 to 43 files per grammar means none. A grammar with no
// measurement is trusted (it has no entry only when the corpus has no
// file of it).
const maxUntrustedShare = 0.02

// trustedShare says whether n of the grammar's valid files is at most
// maxUntrustedShare of them.
func trustedShare(m trustMeasure, n int) bool {
	return m.Files == 0 || float64(n) <= maxUntrustedShare*float64(m.Files)
}

// trustedRegion says whether an error region r of the grammar named lang
// is a syntax error of the text rather than the grammar's limit: every
// region of a grammar whose errors are trusted; of one whose errors are
// not, a region that is a closing bracket the parser had to assume,
// when the grammar assumed one in no more of its valid files (a bracket
// left open is what the grammar sees whatever else it misreads).
func trustedRegion(lang string, r syntax.ErrorRegion) bool { return trustedIn(grammarTrust, lang, r) }

// trustedIn is trustedRegion by the measurements of table.
func trustedIn(table map[string]trustMeasure, lang string, r syntax.ErrorRegion) bool {
	m, ok := table[lang]
	switch {
	case !ok || trustedShare(m, m.WithErrors):
		return true
	case isCloser(r.Missing):
		return trustedShare(m, m.WithMissingCloser)
	}
	return false
}

// isCloser says whether a MISSING node's type is a closing bracket.
func isCloser(token string) bool { return token == ")" || token == "]" || token == "}" }

// GrammarTrust is the measurement behind the trust in the grammar of
// the file at path with text, for the result's wording: of files valid
// files of the corpus, the grammar found an error in withErrors; ok false
// when the file has no grammar or the grammar was not measured.
func GrammarTrust(path, text string) (name string, files, withErrors int, ok bool) {
	lang := LanguageFor(path, text)
	if lang == nil {
		return "", 0, 0, false
	}
	m, ok := grammarTrust[lang.name]
	return lang.name, m.Files, m.WithErrors, ok
}
