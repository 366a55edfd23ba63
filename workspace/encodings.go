package workspace

import (
	"fmt"
	"path/filepath"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/workspace/textenc"
)

// Encodings are compiled encoding rules; the last rule that matches a
// file decides. The zero value and nil have no rules. Immutable, safe
// for concurrent use.
type Encodings struct {
	rules []encodingRule
}

type encodingRule struct {
	src  config.EncodingRule
	root string // canonical, or "" for every root
	glob *Glob
	enc  textenc.Encoding
}

// CompileEncodings checks and compiles rules; no rules compile to nil. A
// rule's root is canonicalized when it exists, so that it compares with
// resolved paths (links resolved, names as stored).
func CompileEncodings(rules []config.EncodingRule) (*Encodings, error) {
	if len(rules) == 0 {
		return nil, nil
	}
	e := &Encodings{}
	for i, r := range rules {
		if err := r.Check(); err != nil {
			return nil, fmt.Errorf("encodings[%d]: %w", i, err)
		}
		enc, _ := textenc.Lookup(r.Encoding)
		glob, _ := ParseGlob(r.Glob)
		root := ""
		if r.Root != "" {
			root = filepath.Clean(r.Root)
			if canon, err := canonicalDir(root); err == nil {
				root = canon
			}
		}
		e.rules = append(e.rules, encodingRule{src: r, root: root, glob: glob, enc: enc})
	}
	return e, nil
}

// Rules returns the rules as given.
func (e *Encodings) Rules() []config.EncodingRule {
	if e == nil {
		return nil
	}
	out := make([]config.EncodingRule, len(e.rules))
	for i, r := range e.rules {
		out[i] = r.src
	}
	return out
}

// Charset is the encoding a workspace's setting gives a file: what it is
// decoded as when it starts with no byte-order mark.
type Charset struct {
	// Enc is UTF-8 unless a rule matched.
	Enc textenc.Encoding
	// Rule is the rule that matched, for messages; nil when none did.
	Rule *config.EncodingRule
}

// of returns the charset of abs, a canonical path under root (the
// canonical root it lies under).
func (e *Encodings) of(root, abs string) Charset {
	if e == nil {
		return Charset{}
	}
	for i := len(e.rules) - 1; i >= 0; i-- {
		r := &e.rules[i]
		base := root
		if r.root != "" {
			if !within(r.root, abs) {
				continue
			}
			base = r.root
		}
		rel, err := filepath.Rel(base, abs)
		if err != nil || rel == "." {
			continue
		}
		rel = filepath.ToSlash(rel)
		if r.glob.Match(filepath.Base(abs), rel) {
			return Charset{Enc: r.enc, Rule: &r.src}
		}
	}
	return Charset{}
}

// WithEncodings returns a copy of w whose paths get their charsets from
// e. w itself is unchanged.
func (w *Workspace) WithEncodings(e *Encodings) *Workspace {
	c := *w
	c.encodings = e
	return &c
}

// Encodings are the rules w's paths get their charsets from.
func (w *Workspace) Encodings() *Encodings { return w.encodings }

// CharsetOf returns the charset the workspace's encodings give abs, a
// canonical path.
func (w *Workspace) CharsetOf(abs string) Charset {
	i, ok := w.rootIndex(abs)
	if !ok {
		return Charset{}
	}
	return w.encodings.of(w.roots[i].Path, abs)
}
