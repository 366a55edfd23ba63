// Package blocks resolves the block locators of the edit language (N*,
// >N*; edit-contract §7.1, §7.2, §8.2): given a text and the line a block
// opens at, it returns the block's inclusive line span, or declines with a
// reason and, where the host can name it, the plain range to use instead.
//
// It owns the tree-sitter grammars (Languages lists them for host.info)
// and the resolution rules below. The processes they run in are
// tools/parsepool's: the daemon never parses; its parse workers do (this
// program started again, serving parsepool.ServeWorker with this
// package's in-process API), so a parse that cannot be stopped or a
// grammar that aborts ends a worker, not the daemon. It touches no
// workspace file and knows nothing of sessions, tags, the ops text or
// processes: the edit tool hands it the text the tag names and asks for
// spans through NewResolver and Resolve. With the same grammars it
// answers one more question, whether a whole text parses cleanly
// (Syntax, Check), which boundary repair (edit-contract §8.4) asks of
// its candidates. The in-process API (Trees, Resolver, Syntax,
// OutlineLines, AddedErrors) is what a worker runs; what needs no parse
// (the grammar a path gets, LanguageFor; the wording of every decline)
// is answered here for the daemon's side too. Its answers are in
// tools/syntax's terms (Decl, ErrorRegion), which the tools share.
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
// limit or refused by its grammar's guard, a parse past the call's parse
// time and a file type without a grammar decline every block op; only
// block ops are lost and the message says so.
//
// # Attached nodes and comments (edit-contract §8.2)
//
// Decorators (Python, TypeScript, JavaScript), attributes (Rust, C#,
// PHP, Swift), annotations (Java, Kotlin, Scala) and Lua's "---"
// documentation are separate nodes. Anchoring the declaration's own line
// orphans them: the block starts at that line. Anchoring the first of
// them takes the whole run and the declaration it attaches to. Anchoring
// a later one declines, because "from the second decorator on" is neither
// unit, unless the declaration itself starts on that line after it
// ("@objc func push() {" under "@discardableResult"): that line is the
// declaration's own line. The grammars differ (Python nests decorators in
// decorated_definition, TypeScript puts class decorators inside the class
// but member decorators beside the member, Rust puts attributes beside
// the item, Java, Kotlin and Swift put them in a modifiers node with the
// keywords, PHP groups a run in one attribute_list); the rules above give
// the same answer for all of them. Go, C, C++, Ruby, Elixir, HCL,
// Dockerfile, Protocol Buffers and SQL attach nothing: their doc comments
// are comments, and Elixir's @doc and @spec are statements of their own.
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
// with many block ops costs one parse. Through a worker's tree cache
// (Trees, trees.go; requests about a path go to the worker that parsed it
// last, when it is free) a file version is parsed once across calls: a later
// call on the same version takes the cached tree (a copy of it, and no
// parse time), and the first call on a new version of the file parses it
// incrementally from the tree of the version before, so tree-sitter
// reparses only the region the edit changed (textedit.go). A repair's
// syntax checks (Trees.NewSyntax) parse every candidate incrementally
// the same way, from the current text's tree or from the last
// candidate's, whichever is nearer (two candidates that both lack a
// closer share the reparse of everything after it). An incremental
// parse finds a text clean exactly when a full parse does and, on a
// clean text, builds the same tree (TestIncrementalParseEqualsFullParse,
// TestSyntaxChainedChecksEqualFullParses), in every grammar but bash,
// whose incremental parse was seen to find an error a full parse does
// not: bash is parsed from scratch, each version still once
// (TestFromScratchGrammars). An incremental parse is bounded and guarded
// like any other. Texts over the configured limit
// (config.Limits.MaxBlockParseBytes) are never parsed, and Close frees the
// tree. A parse is bounded in time: by the context the resolver or the
// syntax checker was made with (NewResolverContext, NewSyntaxContext),
// whose deadline is the edit call's parse time (config.Limits.MaxParseMs,
// 500 ms) shared by its block resolution and every repair check, and by
// a 10 s backstop without one. In the daemon (tools/parsepool) a
// request's wait for a worker is not parse time: the time waited is
// added to the call's, the wait has its own bound (5 s), and a request
// that waited that long is declined as busy (ErrParseBusy), which says
// nothing of the file. Past
// the parse time the parse stops: block ops decline
// (ErrParseTime) naming the plain range, and Check answers that it cannot
// tell, which boundary repair treats as the end of its search. Error
// recovery on a large broken file is what needs this: 400 KiB of junk
// Python or 1 MiB of junk TypeScript takes seconds to parse. Tree-sitter
// looks at its clock only between parse operations, and one operation of
// error recovery can lex the rest of the text once per character (an
// unterminated bash heredoc), so the parser reads the text in 4 KiB
// chunks and is told the text ended once the time is up. Some error
// recovery rescans text it was already handed, reading no clock (256 KiB
// of quotes as Lua ran for minutes): in the daemon a worker that has not
// answered 100 ms (killGrace) past its request's parse time is ended,
// the call is answered, and a new worker replaces it; nothing of the
// parse keeps running. One
// resolution walks one root-to-anchor path and the anchor's siblings
// with cursors, never asking a node for its parent or stepping sibling
// by sibling (both linear per step in tree-sitter), and tries a bounded
// number of enclosing constructs for the alternative, so deeply nested or
// very wide files stay linear.
//
// # Outline
//
// Outline and OutlineLines list a text's declarations for read's outline
// mode (outline.go), from the same parse with the same limits: what a
// declaration is comes from the grammars' node names (tree-sitter's
// conventions, and a table per grammar whose names are generic: a Ruby
// "class", an HCL "block", an Elixir "def" call), what attaches to it and
// where it ends from the rules above, so the span of a row that runs over
// several lines is the span a block op anchored at its first line
// resolves to.
//
// # Texts a grammar cannot take
//
// The grammars are C code, and an input that trips one of their
// assertions or overflows one of their buffers aborts the process that
// parses it. In the daemon that is a parse worker: its request is
// declined (ErrParserFailed, naming the file; the syntax check is
// unavailable) and a new worker serves the next one. The inputs known to
// do it never reach a parser all the same, which spares a worker: a
// language may have a guard (guard.go) that refuses them before any
// parse, and a refused text is handled like one over the parse limit
// (block ops decline with ErrUnsafe; Check answers unsupported). A guard
// also refuses a shape whose parse cannot be stopped in time: tree-sitter
// looks at its clock between parse operations, and one operation of a
// grammar's error recovery can run for minutes. The known cases and their
// bounds:
//
//   - markdown: before its text, a line may hold at most 128 block-quote
//     markers, list markers and whitespace columns together (a tab
//     counts 4; maxMarkdownNesting), so at most 64 levels of "> " and
//     never more than 128 open containers. The grammar's scanner
//     overflows tree-sitter's 1024-byte state buffer at 255 open
//     containers, which a 518-byte file of 256 nested "> " reaches.
//   - csharp, java: at most 64 type argument lists opened in a row
//     ("List<List<..."; maxTypeNesting). Error recovery on such a run
//     costs about the cube of its length in one operation: in C# 20,000
//     in a row (100 KB) took 107 s past a 10 s limit and TestParseStress's
//     363 KB input did not finish in two minutes; in Java 20,000 took
//     35 s past 500 ms.
//   - kotlin: at most 512 string interpolations ("${";
//     maxKotlinInterpolations). The scanner keeps one entry per open
//     string in the same 1024-byte buffer, unbounded: 1,025 strings
//     nested through "${" abort the process.
//
// The other grammars have no guard: their scanners bound their own
// state, and none aborted or hung in the tests that parse generated inputs (deep
// nesting, long lines, odd bytes, truncated and mutated files) for every
// grammar in a child process (TestParseStress, FuzzParseChild,
// TestDeepNestingEveryGrammar). The YAML scanner's bound is off by one:
// from 510 open indentation levels on it writes one byte past the same
// buffer, into the padding that ends the lexer's struct, where it does
// no harm; TestDeepNestingEveryGrammar pins that.
package blocks
