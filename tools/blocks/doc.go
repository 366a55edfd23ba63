// Package blocks resolves the block locators of the edit language (N*,
// >N*; edit-contract §7.1, §7.2, §8.2): given a text and the line a block
// opens at, it returns the block's inclusive line span, or declines with a
// reason and, where the host can name it, the plain range to use instead.
//
// It owns the tree-sitter grammars (Languages lists them for host.info)
// and the resolution rules below. It does no I/O and knows nothing of
// sessions, tags or the ops text: the edit tool hands it the text the tag
// names and asks for spans through NewResolver and Resolve. With the same
// grammars it answers one more question, whether a whole text parses
// cleanly (Syntax, Check), which boundary repair (edit-contract §8.4)
// asks of its candidates.
//
// # Resolution
//
// A block always starts at its anchor line. From the anchor's first
// non-blank column:
//
//  1. Take the smallest node there. If it began on an earlier line (a
//     multi-line string, comment, heredoc or raw text), the line opens
//     nothing.
//  2. Climb to the outermost named, non-root ancestor that starts on the
//     same line. Never climb into a list node that merely holds items (a
//     Python block, a YAML mapping or sequence, a Markdown list): its first
//     item is a block of its own, like every other item.
//  3. The block ends on the last line of its last significant token.
//     Trailing comments and whitespace inside the node are not part of it:
//     standalone line comments are never swept into a block.
//  4. A result on one line is no block.
//
// A line opens no block when it is blank, a comment, a closing delimiter
// (}, ), fi, </div>), the last line of a construct, inside a multi-line
// token, or a single-line statement; the decline says which and, when it
// can, names the enclosing construct's lines (or the line itself) as the
// alternative. A file that does not parse cleanly, a text over the parse
// limit and a file type without a grammar decline every block op; only
// block ops are lost and the message says so.
//
// # Attached nodes and comments (edit-contract §8.2)
//
// Decorators (Python, TypeScript, JavaScript) and attributes (Rust) are
// separate nodes. Anchoring the declaration's own line orphans them: the
// block starts at that line. Anchoring the first of them takes the whole
// run and the declaration it attaches to. Anchoring a later one declines,
// because "from the second decorator on" is neither unit. The grammars
// differ (Python nests decorators in decorated_definition, TypeScript puts
// class decorators inside the class but member decorators beside the
// member, Rust puts attributes beside the item); the rules above give the
// same answer for all of them.
//
// Comments are never blocks, not even a multi-line doc comment. A doc
// comment is its own node, so a block op on it could mean the comment or
// the declaration it documents; the decline names the comment's lines, and
// the declaration's own line names the declaration.
//
// # Markdown
//
// A heading (ATX or setext, outside lists and block quotes) covers its
// section through deeper headings up to the next heading of the same or a
// higher level, without the blank lines before that heading. The grammar
// opens section nodes for ATX headings only, so sections are computed
// from the headings, not taken from the tree.
//
// # Cost
//
// A Resolver parses its text at most once, on the first Resolve, so a call
// with many block ops costs one parse. Texts over the configured limit
// (config.Limits.MaxBlockParseBytes) are never parsed, a parse is bounded
// in time, and Close frees the tree. One resolution walks one root-to-
// anchor path and the anchor's siblings with cursors, never asking a node
// for its parent or stepping sibling by sibling (both linear per step in
// tree-sitter), and tries a bounded number of enclosing constructs for
// the alternative, so deeply nested or very wide files stay linear.
package blocks
