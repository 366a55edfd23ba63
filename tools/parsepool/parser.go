package parsepool

import (
	"context"
	"fmt"
	"time"

	"github.com/hostd-dev/hostd/tools/blocks"
	"github.com/hostd-dev/hostd/tools/syntax"
)

// Parser answers the tools' questions about a file's text (tools.Parser)
// with the grammars under one parse limit: in the pool's workers (For,
// the daemon's) or in this process through a tree cache (InProcess, for
// tests and benchmarks that parse without workers). Its resolvers and
// checkers are the pool's (WorkerResolver, WorkerSyntax) or the cache's
// (blocks.Resolver, blocks.Syntax), with their Language, Spent,
// Unavailable and Release for boundary repair to find.
type Parser struct {
	workers   *Workers      // nil: in this process, through trees
	trees     *blocks.Trees // in this process; nil: every text parsed from scratch
	maxBytes  int64         // config.Limits.MaxBlockParseBytes
	parseTime time.Duration // a warm's bound: a call's parse time (config.Limits.MaxParseMs)
}

// For is the Parser of the pool w: texts over maxParseBytes are never
// parsed, and a warm has parseTime, an edit call's parse time.
func For(w *Workers, maxParseBytes int64, parseTime time.Duration) *Parser {
	return &Parser{workers: w, maxBytes: maxParseBytes, parseTime: parseTime}
}

// InProcess is the Parser that parses in this process through trees (nil:
// every text from scratch), with the same limit; it warms nothing.
func InProcess(trees *blocks.Trees, maxParseBytes int64) *Parser {
	return &Parser{trees: trees, maxBytes: maxParseBytes}
}

// Resolver resolves N* locators, declining files over the parse limit,
// parses past the call's parse time (ctx's deadline) and, in the
// workers, parses that end their worker; each version's tree is kept by
// the worker (or the cache) that parsed it.
func (p *Parser) Resolver(ctx context.Context, path, text string) (syntax.Resolver, error) {
	if p.workers != nil {
		r, err := p.workers.NewResolver(ctx, path, text, p.maxBytes)
		if err != nil {
			return nil, err
		}
		return r, nil
	}
	r, err := p.trees.NewResolver(ctx, path, text, p.maxBytes)
	if err != nil {
		return nil, err
	}
	return r, nil
}

// Checker gives boundary repair a whole-text parse check in the file's
// grammar (edit-contract §8.4) within the call's parse time, each
// candidate parsed from the file's cached tree. A check whose worker
// ended (an overrun, an abort) answers that it could not be made
// (supported=false, and the checker's Unavailable says why), never that
// the text does not parse.
func (p *Parser) Checker(ctx context.Context, path, text string) syntax.Checker {
	if p.workers != nil {
		s, err := p.workers.NewSyntax(ctx, path, text, p.maxBytes)
		if err != nil {
			return nil
		}
		return s
	}
	s, err := p.trees.NewSyntax(ctx, path, text, p.maxBytes)
	if err != nil {
		return nil
	}
	return s
}

// Outline lists declarations for read's outline mode with the same
// grammars and parse limit as block ops.
func (p *Parser) Outline(ctx context.Context, path, text string, from, to int) ([]syntax.Decl, error) {
	if p.workers != nil {
		return p.workers.OutlineLines(ctx, path, text, p.maxBytes, from, to)
	}
	return p.trees.OutlineLines(ctx, path, text, p.maxBytes, from, to)
}

// AddedErrors finds the syntax errors a write or an edit added
// (edit-contract §5.6) with the same grammars and parse limit as block
// ops: the worker that holds the old version's tree parses the new one
// from it. When a region is unsure, Why names the measurement that
// makes the file's grammar untrusted (blocks.GrammarTrust).
func (p *Parser) AddedErrors(ctx context.Context, ch syntax.Change) (syntax.Found, error) {
	var added, old []syntax.ErrorRegion
	var err error
	if p.workers != nil {
		added, old, err = p.workers.AddedErrors(ctx, ch.Path, ch.Before, ch.HadBefore, ch.After, ch.Copies, ch.Known, p.maxBytes)
	} else {
		added, old, err = p.trees.AddedErrors(ctx, ch.Path, ch.Before, ch.HadBefore, ch.After, ch.Copies, ch.Known, p.maxBytes)
	}
	if err != nil {
		return syntax.Found{}, err
	}
	out := syntax.Found{Added: added, Old: old}
	for _, r := range added {
		if r.Unsure {
			name, files, withErrors, _ := blocks.GrammarTrust(ch.Path, ch.After)
			out.Why = fmt.Sprintf("the %s grammar finds errors in valid code (in %d of %d files of released code measured)", name, withErrors, files)
			break
		}
	}
	return out, nil
}

// Warm has the workers parse a version a read or a grep recorded, in the
// background and only when one is idle, so the edit that follows finds
// its tree (Workers.Warm), within a call's parse time. In this process
// it does nothing.
func (p *Parser) Warm(path, text string) {
	if p.workers != nil {
		p.workers.Warm(path, text, p.maxBytes, p.parseTime)
	}
}
