package blocks

import (
	"context"
	"time"

	sitter "github.com/smacker/go-tree-sitter"
)

// parseTimeout bounds one parse. Tree-sitter is linear on ordinary input
// and the text is already capped at the parse limit; this is the backstop
// for a pathological input that drives error recovery into a long search,
// for a caller that gives no deadline. An edit call gives one: its parse
// time (config.Limits.MaxParseMs) across every parse it makes.
const parseTimeout = 10 * time.Second

// failure is why a text was not parsed.
type failure uint8

const (
	parsed  failure = iota
	refused         // the language's guard refused the text (guard.go)
	spent           // the caller's deadline had passed, or ctx was cancelled, before the parse
	timeout         // the parse ran out of time: the deadline or the backstop
)

// parse parses text in lang unless its guard refuses it, within
// min(backstop, ctx's deadline), and stops early when ctx is cancelled.
// On a failure the tree is nil; reason is the guard's reason (refused) or
// the time limit the parse had, as text (timeout).
func parse(ctx context.Context, lang *language, text string, backstop time.Duration) (tree *sitter.Tree, why failure, reason string) {
	if r := lang.refuse(text); r != "" {
		return nil, refused, r
	}
	limit := backstop
	if d, ok := ctx.Deadline(); ok {
		limit = min(limit, time.Until(d))
	}
	if limit <= 0 || ctx.Err() != nil {
		return nil, spent, ""
	}
	p := sitter.NewParser()
	defer p.Close()
	p.SetLanguage(lang.grammar())
	// The operation limit is tree-sitter's own clock, in microseconds;
	// zero would mean none.
	p.SetOperationLimit(int(max(limit/time.Microsecond, 1)))
	t, err := p.ParseCtx(ctx, nil, []byte(text))
	if err != nil || t == nil {
		if limit >= time.Millisecond {
			limit = limit.Round(time.Millisecond)
		}
		return nil, timeout, limit.String()
	}
	return t, parsed, ""
}
