package tools

import (
	"context"
	"errors"

	"github.com/hostd-dev/hostd/tools/parsepool"
	"github.com/hostd-dev/hostd/tools/syntax"
)

// The daemon's parser is the pool's.
var _ Parser = (*parsepool.Parser)(nil)

// parserParts is a Parser of the parts a test gives; a part left nil
// answers as no grammar would: no resolver or outline (an error), no
// checker, no feedback (an error, as a check that could not be made), no
// warm.
type parserParts struct {
	resolver func(ctx context.Context, path, text string) (syntax.Resolver, error)
	checker  func(ctx context.Context, path, text string) syntax.Checker
	outline  func(ctx context.Context, path, text string, from, to int) ([]syntax.Decl, error)
	added    func(ctx context.Context, ch syntax.Change) (syntax.Found, error)
	warm     func(path, text string)
}

var errNoPart = errors.New("this test's parser does not do that")

func (p parserParts) Resolver(ctx context.Context, path, text string) (syntax.Resolver, error) {
	if p.resolver == nil {
		return nil, errNoPart
	}
	return p.resolver(ctx, path, text)
}

func (p parserParts) Checker(ctx context.Context, path, text string) syntax.Checker {
	if p.checker == nil {
		return nil
	}
	return p.checker(ctx, path, text)
}

func (p parserParts) Outline(ctx context.Context, path, text string, from, to int) ([]syntax.Decl, error) {
	if p.outline == nil {
		return nil, errNoPart
	}
	return p.outline(ctx, path, text, from, to)
}

func (p parserParts) AddedErrors(ctx context.Context, ch syntax.Change) (syntax.Found, error) {
	if p.added == nil {
		return syntax.Found{}, errNoPart
	}
	return p.added(ctx, ch)
}

func (p parserParts) Warm(path, text string) {
	if p.warm != nil {
		p.warm(path, text)
	}
}

// inProcess is the daemon's parser run in this process, every text
// parsed from scratch, with the env's parse limit.
func (e *editEnv) inProcess() *parsepool.Parser {
	return parsepool.InProcess(nil, e.lim.MaxBlockParseBytes)
}
