package tools

import (
	"context"

	"github.com/hostd-dev/hostd/tools/syntax"
)

// Parser is how the tools parse a file's text, in tools/syntax's terms.
// The daemon's is its pool of parse worker processes
// (tools/parsepool.Parser), which keeps the grammars, cgo code, out of
// this package and their parses out of the daemon's process. A nil
// Parser is a build without grammars: block ops decline, boundary repair
// repairs only exact restatements, outlines are unavailable, and writes
// and edits get no syntax feedback.
type Parser interface {
	// Resolver prepares the block resolution (edit-contract §8.2) of
	// text, the normalized body of the file at path. ctx bounds its
	// parses: the edit call passes one context to every resolver and
	// checker it builds, whose deadline is the call's parse time
	// (config.Limits.MaxParseMs).
	Resolver(ctx context.Context, path, text string) (syntax.Resolver, error)
	// Checker prepares the whole-text checks boundary repair makes of
	// candidates for the file at path whose text is text (edit-contract
	// §8.4), its parses bounded by ctx as Resolver's are; nil when none
	// can be made.
	Checker(ctx context.Context, path, text string) syntax.Checker
	// Outline lists the declarations of lines from..to (to 0: the last
	// line) of text, the normalized body of the file at path, in line
	// order: those in these lines and, inside a construct that holds
	// them, what it holds; ctx bounds the parse. Its error's message is
	// what the model reads.
	Outline(ctx context.Context, path, text string, from, to int) ([]syntax.Decl, error)
	// AddedErrors finds the syntax errors a change added to its file
	// (feedback.go). An error means the check could not be made (no
	// grammar, over the parse limit, out of time, the worker ended).
	AddedErrors(ctx context.Context, change syntax.Change) (syntax.Found, error)
	// Warm asks for text, the version of path a read or a grep just
	// recorded, to be parsed in the background and its tree kept, so the
	// syntax feedback and the block ops of the edit that usually follows
	// parse only the new version, from that tree. It returns at once and
	// may do nothing (no grammar, too large, no idle parse worker).
	Warm(path, text string)
}
