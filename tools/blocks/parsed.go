package blocks

import (
	"context"

	sitter "github.com/smacker/go-tree-sitter"
)

// Parsed is one caller's hold on the clean parse tree of one file
// version, for a reader of the whole syntax (an outline of a file's
// declarations) rather than of one block. It is not safe for concurrent
// use; Close releases the tree, after which Root must not be used.
type Parsed struct {
	r *Resolver
}

// Parse returns the tree of text, the normalized body of the file at
// path, the way Trees.NewResolver gets it: cached, or parsed
// incrementally from the path's newest cached version, or parsed in full,
// within ctx's deadline. It declines as a block op on the file would,
// with an *UnresolvedError whose Line is 0 and whose kind is
// ErrUnsupported, ErrTooLarge, ErrUnsafe, ErrParseTime or ErrNotClean.
func (t *Trees) Parse(ctx context.Context, path, text string, maxParseBytes int64) (*Parsed, error) {
	r, err := t.NewResolver(ctx, path, text, maxParseBytes)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	ue := r.loadLocked(0)
	r.mu.Unlock()
	if ue != nil {
		r.Close()
		return nil, ue
	}
	return &Parsed{r: r}, nil
}

// Root is the tree's root node.
func (p *Parsed) Root() *sitter.Node { return p.r.root }

// Language is the grammar the text was parsed with.
func (p *Parsed) Language() string { return p.r.lang.name }

// Close releases the tree. It is safe to call more than once.
func (p *Parsed) Close() { p.r.Close() }
