package blocks

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/hostd-dev/hostd/tools/syntax"
)

// MaxOutlineDepth bounds how deep members are listed: a top-level
// declaration (depth 0), its members, and theirs. Deeper declarations are
// inside one of the rows shown and are reached by reading that row's
// block.
const MaxOutlineDepth = 3

// maxContainerNesting bounds the nodes walked through between two
// declarations (bodies, export wrappers, documents), so a file of deeply
// nested bare blocks costs a bounded walk, not one Go frame per level.
const maxContainerNesting = 32

// Outline lists the declarations of text, the normalized body (LF line
// endings, no BOM) of the file at path, in line order: the top-level
// declarations and, inside the ones that hold members (classes,
// interfaces, impl and trait blocks, modules, namespaces, structs, nested
// mappings), their members, up to MaxOutlineDepth. For Markdown the rows
// are the section headings, each spanning its section.
//
// What a declaration is comes from the node types of the grammar (see
// isDecl), so a grammar added to the language table gets an outline
// without a table of its own when its node names follow tree-sitter's
// conventions; one whose names do not (Ruby's "class" and "method", Go's
// type specs, HCL's "block") has an outlineTable. What attaches to a
// declaration and where it ends are the block rules' own (the language's
// attached types and wrappers, lastRow).
//
// The parse is the block resolver's, with its limits: a file over
// maxParseBytes, one its grammar's guard refuses, one that does not parse
// cleanly or not within ctx's deadline, and a file type without a grammar
// return an error that unwraps to ErrTooLarge, ErrUnsafe, ErrNotClean,
// ErrParseTime or ErrUnsupported, whose message names plain read as the
// way on.
func Outline(ctx context.Context, path, text string, maxParseBytes int64) ([]syntax.Decl, error) {
	return OutlineLines(ctx, path, text, maxParseBytes, 1, 0)
}

// OutlineLines is the outline of lines from..to (1-based, inclusive; to
// past the end means the last line; from 1 and to 0 mean the whole file,
// as Outline): the rows of Outline that lie in those lines and, for a
// construct that holds them or crosses their edge, the rows inside it. So the outline of a block's own span lists
// what is inside the block: its members, the constructs of its body that
// span several lines (an if, a loop, a switch case, a call with a
// callback) and its nested declarations. The outline of the lines after
// a row continues a listing that stopped at that row.
func OutlineLines(ctx context.Context, path, text string, maxParseBytes int64, from, to int) ([]syntax.Decl, error) {
	return (*Trees)(nil).OutlineLines(ctx, path, text, maxParseBytes, from, to)
}

// OutlineLines is the package's OutlineLines with the version's tree taken
// from the cache (parsed once per version, as for block ops); a nil *Trees
// parses from scratch.
func (t *Trees) OutlineLines(ctx context.Context, path, text string, maxParseBytes int64, from, to int) ([]syntax.Decl, error) {
	r, err := t.NewResolver(ctx, path, text, maxParseBytes)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	whole := from <= 1 && to <= 0
	from = max(from, 1)
	if to <= 0 || to > r.numLines {
		to = r.numLines
	}
	return r.outline(window{from: from - 1, to: to - 1, whole: whole})
}

// OutlineError is an outline that could not be made. Its message is what
// the model reads: why, and that a plain read works.
type OutlineError struct {
	Reason string
	Kind   error // the sentinel: ErrUnsupported, ErrTooLarge, ErrNotClean, ErrUnsafe, ErrParseTime
}

func (e *OutlineError) Error() string { return e.Reason }

// Unwrap returns the sentinel of the error's kind.
func (e *OutlineError) Unwrap() error { return e.Kind }

// plainRead is the way on every outline error names.
const plainRead = "read the file without mode (offset and limit pick the lines)"

func (r *Resolver) outline(w window) ([]syntax.Decl, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, ErrClosed
	}
	if r.lang == nil {
		return nil, &OutlineError{Kind: ErrUnsupported, Reason: fmt.Sprintf(
			"there is no outline for %s: no grammar for that file type (outlines cover %s); %s", r.kindName(), strings.Join(Languages(), ", "), plainRead)}
	}
	if int64(len(r.text)) > r.maxBytes {
		return nil, &OutlineError{Kind: ErrTooLarge, Reason: fmt.Sprintf(
			"there is no outline for files over %d bytes (this one has %d), because parsing it would cost too much; %s", r.maxBytes, len(r.text), plainRead)}
	}
	if ue := r.parseLocked(); ue != nil {
		return nil, &OutlineError{Kind: ue.Kind, Reason: OutlineReason(ue)}
	}
	var out []syntax.Decl
	if r.lang.markdown {
		for _, h := range r.headings {
			end := h.row
			if s, ue, ok := r.section(h.row); ok && ue == nil {
				end = s.end
			}
			if h.row >= w.from && h.row <= w.to && w.holds(h.row, min(end, w.to)) {
				out = append(out, syntax.Decl{Line: h.row + 1, Start: h.row + 1, End: end + 1, Depth: h.level - 1})
			}
		}
		return out, nil
	}
	r.outlineIn(r.root, w, true, false, 0, 0, &out)
	return out, nil
}

// OutlineReason rephrases a file-wide block decline for an outline: the
// same cause, with plain read as the way on instead of range ops.
func OutlineReason(ue *UnresolvedError) string {
	why, _, _ := strings.Cut(ue.Reason, "; "+PlainOps)
	why = strings.Replace(why, "block ops are declined", "there is no outline", 1)
	why = strings.Replace(why, "so no block span can be trusted", "so no outline span can be trusted", 1)
	return why + "; " + plainRead
}

// kindName names the file type as the block decline does: ".ext" files,
// or the whole name when there is no extension.
func (r *Resolver) kindName() string {
	kind := filepath.Ext(r.path)
	if kind == "" {
		kind = filepath.Base(r.path)
	}
	return fmt.Sprintf("%q files", kind)
}

// window is the inclusive 0-based rows an outline covers. whole marks the
// whole file, whose outline lists a declaration that spans every line
// rather than what is inside it.
type window struct {
	from, to int
	whole    bool
}

// holds reports whether a construct spanning rows start..end is listed as
// a row of the window (inside it), as opposed to walked through (it holds
// the window, or crosses one of its edges). A construct that spans
// exactly the window is walked through: the outline of a block's own
// lines lists what is inside the block.
func (w window) holds(start, end int) bool {
	return start >= w.from && end <= w.to && (w.whole || start != w.from || end != w.to)
}

// outlineIn lists the rows among n's children that lie in w, and walks
// through the children that hold or cross w to the rows inside them.
// body says n is a body (a file, a class body, a block of statements):
// there a construct that spans several lines is a row even when it
// declares nothing (an if, a loop, a call with a callback). nest counts
// the nodes walked through, against maxContainerNesting. inFunc says a
// function-like declaration or a local scope (outlineTable.localScopes)
// was walked through: inside one, a declaration on one line is a local
// variable or a setting, read with what holds it, not a row.
func (r *Resolver) outlineIn(n *sitter.Node, w window, body, inFunc bool, depth, nest int, out *[]syntax.Decl) {
	attachedFrom := -1 // first row of a run of attached nodes waiting for their declaration
	eachChild(n, func(c *sitter.Node) bool {
		if !c.IsNamed() || isComment(c) {
			return true
		}
		if r.lang.isAttached(c) {
			if attachedFrom < 0 {
				attachedFrom = r.startRow(c)
			}
			return true
		}
		start := r.startRow(c)
		if attachedFrom >= 0 {
			start = attachedFrom
		}
		attachedFrom = -1
		end := max(r.lastRow(c), start)
		if end < w.from || start > w.to {
			return true
		}
		if !w.holds(start, end) {
			if nest < maxContainerNesting {
				r.outlineIn(c, w, r.isContainer(c), inFunc || r.functionLike(c) || r.table().localScopes[c.Type()], depth, nest+1, out)
			}
			return true
		}
		decl := r.declIn(c)
		switch {
		case decl != nil && inFunc && end == start:
			// A local variable on one line: read with its function.
		case decl != nil:
			*out = append(*out, syntax.Decl{Line: r.ownRow(decl) + 1, Start: start + 1, End: end + 1, Depth: depth})
			if depth+1 < MaxOutlineDepth && !r.functionLike(decl) && nest < maxContainerNesting {
				r.members(decl, w, inFunc || r.table().localScopes[decl.Type()], depth+1, nest+1, out)
			}
		case r.isContainer(c):
			// A body holds rows; it is never one (a JSON document's object).
			if nest < maxContainerNesting {
				r.outlineIn(c, w, true, inFunc, depth, nest+1, out)
			}
		case body && end > start:
			*out = append(*out, syntax.Decl{Line: r.startRow(c) + 1, Start: start + 1, End: end + 1, Depth: depth})
		case end > start && nest < maxContainerNesting:
			// A multi-line construct that is no row (an else clause, a
			// multi-line parameter list): rows may be inside it. A
			// one-line one holds nothing worth a row, so it is not walked.
			r.outlineIn(c, w, r.isContainer(c), inFunc, depth, nest+1, out)
		}
		return true
	})
}

// members lists the members of decl, a declaration that is a row: the
// rows in the bodies among its children, looking through the nodes
// that stand between a declaration and its body (Go's struct type, a C
// typedef's struct), or in decl's own children when it holds its members
// itself (a protobuf service's rpcs, a Go group's specs).
func (r *Resolver) members(decl *sitter.Node, w window, inFunc bool, depth, nest int, out *[]syntax.Decl) {
	tab := r.table()
	if tab.holders[decl.Type()] {
		r.outlineIn(decl, w, true, inFunc, depth, nest, out)
		return
	}
	eachChild(decl, func(b *sitter.Node) bool {
		switch {
		case !b.IsNamed():
		case r.isContainer(b):
			r.outlineIn(b, w, true, inFunc, depth, nest, out)
		case tab.throughs[b.Type()] && nest < maxContainerNesting:
			r.members(b, w, inFunc, depth, nest+1, out)
		}
		return true
	})
}

// declIn returns the declaration n is or wraps (export, decorated and
// ambient wrappers hold one), nil when n declares nothing.
func (r *Resolver) declIn(n *sitter.Node) *sitter.Node {
	for i := 0; i < maxContainerNesting; i++ {
		t := n.Type()
		if t == "expression_statement" && n.NamedChildCount() == 1 {
			// A statement that is only a declaration: a TypeScript
			// namespace, a Python assignment.
			if c := n.NamedChild(0); r.isDecl(c) {
				return c
			}
			if r.isAssignmentStatement(n) {
				return n
			}
			return nil
		}
		if !r.isWrapper(n) {
			if !r.isDecl(n) {
				return nil
			}
			if single := r.singleSpec(n); single != nil {
				return single
			}
			return n
		}
		var inner *sitter.Node
		eachChild(n, func(c *sitter.Node) bool {
			if c.IsNamed() && !isComment(c) && !r.lang.isAttached(c) {
				if r.isDecl(c) || r.isWrapper(c) || (t == "export_statement" && exportedValues[c.Type()]) {
					inner = c
					return false
				}
			}
			return true
		})
		if inner == nil || exportedValues[inner.Type()] {
			return inner
		}
		n = inner
	}
	return nil
}

// isAssignmentStatement is a statement that only assigns, at a level the
// outline walks (module or class body): Python's constants and class
// attributes, which have no declaration node.
func (r *Resolver) isAssignmentStatement(n *sitter.Node) bool {
	if n.Type() != "expression_statement" || n.NamedChildCount() != 1 {
		return false
	}
	return n.NamedChild(0).Type() == "assignment"
}

// ownRow is the row that names decl: its first child that is neither
// attached (a decorator inside the declaration, as TypeScript puts a
// class's) nor a comment. A wrapper of attached nodes and keywords
// (Java's modifiers: "@Override" on one line, "public" on the next) is
// looked into: its first keyword is on the declaration's own line, and a
// wrapper that holds only attached nodes has no part of that line.
func (r *Resolver) ownRow(decl *sitter.Node) int {
	if row := r.firstOwnRow(decl, 0); row >= 0 {
		return row
	}
	return r.startRow(decl)
}

// firstOwnRow is the row of n's first child that is neither attached nor
// a comment, looking into wrappers; -1 when there is none.
func (r *Resolver) firstOwnRow(n *sitter.Node, nest int) int {
	row := -1
	eachChild(n, func(c *sitter.Node) bool {
		switch {
		case isComment(c) || r.lang.isAttached(c):
			return true
		case c.IsNamed() && slices.Contains(r.lang.wrappers, c.Type()) && nest < maxContainerNesting:
			row = r.firstOwnRow(c, nest+1)
			return row < 0
		}
		row = r.startRow(c)
		return false
	})
	return row
}

// declSuffixes are tree-sitter's naming conventions for declarations:
// function_declaration, class_definition, struct_item, method_signature.
var declSuffixes = []string{"_declaration", "_definition", "_item", "_signature"}

// declTypes are declarations whose names follow no convention: TypeScript
// namespaces and ambient modules, CSS rules and at-rules, TOML tables,
// JSON, TOML and YAML keys.
var declTypes = map[string]bool{
	"internal_module": true, "module": true,
	"rule_set": true, "media_statement": true, "keyframes_statement": true, "supports_statement": true,
	"table": true, "table_array_element": true,
	"pair": true, "block_mapping_pair": true,
}

// notDecls match the conventions but declare nothing an outline lists:
// imports, local variables, inner attributes.
var notDecls = map[string]bool{
	"use_declaration": true, "extern_crate_declaration": true, "import_declaration": true,
	"let_declaration": true, "inner_attribute_item": true, "attribute_item": true,
	"empty_statement": true,
}

func isDecl(t string) bool {
	if declTypes[t] {
		return true
	}
	if notDecls[t] {
		return false
	}
	for _, s := range declSuffixes {
		if strings.HasSuffix(t, s) {
			return true
		}
	}
	return false
}

// isDecl reports whether n is a declaration of its language: by the
// language's own table first, then by the conventions.
func (r *Resolver) isDecl(n *sitter.Node) bool {
	tab := r.table()
	t := n.Type()
	switch {
	case tab.decls[t]:
		return true
	case tab.notDecls[t]:
		return false
	case tab.defCalls != nil && t == "call":
		return tab.defCalls[r.callTarget(n)] != defNone
	}
	return isDecl(t)
}

// exportedValues are the anonymous functions and classes an export
// default declares: "export default function (api) {".
var exportedValues = map[string]bool{
	"function": true, "function_expression": true, "generator_function": true,
	"arrow_function": true, "class": true,
}

// isWrapper reports nodes that wrap one declaration on its own lines:
// export, Python's decorated definitions, TypeScript's declare.
func isWrapper(t string) bool {
	return t == "export_statement" || t == "decorated_definition" || t == "ambient_declaration"
}

func (r *Resolver) isWrapper(n *sitter.Node) bool {
	return isWrapper(n.Type()) || r.table().wrappers[n.Type()]
}

// containers are the nodes the outline walks through to reach members:
// bodies of classes, interfaces, impl and trait blocks, modules and
// structs, and the documents and mappings of data files. A function's body
// is a block too, which is why functionLike declarations are never
// entered.
var containers = map[string]bool{
	"class_body": true, "interface_body": true, "object_type": true, "enum_body": true,
	"declaration_list": true, "field_declaration_list": true, "enum_variant_list": true,
	"statement_block": true, "block": true,
	"document": true, "object": true, "stream": true, "block_node": true, "block_mapping": true,
	"switch_body": true,
}

func isContainer(t string) bool { return containers[t] }

func (r *Resolver) isContainer(n *sitter.Node) bool {
	tab := r.table()
	return tab.containers[n.Type()] || (!tab.notContainers[n.Type()] && isContainer(n.Type()))
}

// functionLike declarations hold statements, not members: their bodies
// are never listed (a local function is read with the one it is in).
func functionLike(t string) bool {
	return strings.Contains(t, "function") || strings.Contains(t, "method") ||
		strings.Contains(t, "constructor") || strings.Contains(t, "lambda")
}

func (r *Resolver) functionLike(n *sitter.Node) bool {
	if tab := r.table(); tab.defCalls != nil && n.Type() == "call" {
		return tab.defCalls[r.callTarget(n)] == defFunction
	}
	return functionLike(n.Type())
}

// singleSpec is the one declaration a group declaration holds when it is
// written without parentheses (Go's "type T struct {" is a type
// declaration of one type spec), so the row is the spec's and its members
// are the struct's fields; nil for a parenthesized group, which lists its
// specs as members, and for a declaration that is no group.
func (r *Resolver) singleSpec(n *sitter.Node) *sitter.Node {
	if !r.table().groups[n.Type()] {
		return nil
	}
	var only *sitter.Node
	count := 0
	eachChild(n, func(c *sitter.Node) bool {
		switch {
		case c.Type() == "(":
			count = 2
		case c.IsNamed() && !isComment(c):
			only = c
			count++
		}
		return count < 2
	})
	if count == 1 && r.isDecl(only) {
		return only
	}
	return nil
}

// callTarget is the name a call calls when it is a plain identifier
// ("defmodule" in "defmodule Shop do"), "" otherwise.
func (r *Resolver) callTarget(n *sitter.Node) string {
	if n.NamedChildCount() == 0 {
		return ""
	}
	c := n.NamedChild(0)
	if c.Type() != "identifier" {
		return ""
	}
	return r.text[c.StartByte():c.EndByte()]
}

// outlineTable is what one grammar's outline needs beyond the
// conventions above: node types whose names are generic (a Ruby class
// is "class", an HCL block "block", a protobuf field "field"), so that
// listing them for every grammar would misread the others.
type outlineTable struct {
	// decls and notDecls override the conventions, as declTypes and
	// notDecls do for every grammar.
	decls, notDecls map[string]bool
	// containers are bodies the outline walks through to members;
	// notContainers are the shared containers that are no body here.
	containers, notContainers map[string]bool
	// wrappers hold one declaration after what attaches to it (a C++
	// template's parameter line), as isWrapper's types do.
	wrappers map[string]bool
	// throughs stand between a declaration and its body: Go's
	// "type T struct {" is a type spec holding a struct type holding
	// the field list.
	throughs map[string]bool
	// holders are declarations whose own children are their members: a
	// protobuf service's rpcs, a Go group's specs.
	holders map[string]bool
	// groups are holders that hold one spec or several: with one, the
	// spec is the row (see singleSpec).
	groups map[string]bool
	// localScopes are declarations whose one-line members are read with
	// them, as a function's locals are: an HCL block's attributes.
	localScopes map[string]bool
	// defCalls are, for a grammar whose declarations are calls (Elixir's
	// defmodule and def), the call names that declare.
	defCalls map[string]defKind
}

// defKind is what a declaring call declares.
type defKind int

const (
	defNone     defKind = iota
	defHolder           // holds members: defmodule, defprotocol
	defFunction         // holds statements: def, defmacro
	defOther            // a row without members: defstruct
)

func set(types ...string) map[string]bool {
	m := make(map[string]bool, len(types))
	for _, t := range types {
		m[t] = true
	}
	return m
}

// cFamily is C's and C++'s: a struct, union or enum written on its own is
// a declaration (a type specifier with a body), and so is a plain
// declaration (a prototype, a global); preprocessor conditionals and
// extern "C" blocks are walked through (a header guard wraps the whole
// file).
var cFamily = outlineTable{
	decls:      set("struct_specifier", "union_specifier", "enum_specifier", "class_specifier", "declaration"),
	containers: set("preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "preproc_elifdef", "linkage_specification"),
	throughs:   set("struct_specifier", "union_specifier", "class_specifier"),
	wrappers:   set("template_declaration"),
}

// outlineTables are the grammars whose outline needs a table of its own.
var outlineTables = map[string]*outlineTable{
	"go": {
		decls:      set("type_spec", "type_alias", "const_spec", "var_spec", "method_elem"),
		containers: set("interface_type", "var_spec_list"),
		throughs:   set("struct_type"),
		holders:    set("type_declaration", "const_declaration", "var_declaration"),
		groups:     set("type_declaration", "const_declaration", "var_declaration"),
	},
	"c":   &cFamily,
	"cpp": &cFamily,
	"java": {
		notDecls:   set("package_declaration"),
		containers: set("enum_body_declarations"),
	},
	"kotlin": {
		decls:      set("companion_object"),
		containers: set("enum_class_body"),
	},
	"swift": {
		containers: set("enum_class_body", "protocol_body"),
	},
	"scala": {
		containers: set("template_body"),
	},
	"php": {
		notDecls:   set("namespace_use_declaration"),
		containers: set("enum_declaration_list"),
	},
	"ruby": {
		decls:      set("class", "method", "singleton_method", "singleton_class", "assignment"),
		containers: set("body_statement"),
	},
	"lua": {
		decls: set("function_statement"),
	},
	"elixir": {
		containers: set("do_block"),
		defCalls: map[string]defKind{
			"defmodule": defHolder, "defprotocol": defHolder, "defimpl": defHolder,
			"def": defFunction, "defp": defFunction, "defmacro": defFunction, "defmacrop": defFunction,
			"defguard": defFunction, "defguardp": defFunction, "defn": defFunction, "defnp": defFunction,
			"defdelegate": defOther, "defstruct": defOther, "defexception": defOther,
		},
	},
	"hcl": {
		decls:         set("block", "attribute"),
		containers:    set("body"),
		notContainers: set("block", "object"),
		localScopes:   set("block"),
	},
	"protobuf": {
		decls:      set("message", "enum", "service", "rpc", "extend", "oneof", "field", "map_field", "oneof_field", "enum_field"),
		containers: set("message_body"),
		holders:    set("service", "oneof", "extend"),
	},
	"dockerfile": {
		decls: set("from_instruction"),
	},
	"sql": {
		decls:      set("statement"),
		containers: set("column_definitions"),
		throughs:   set("create_table"),
	},
}

// noTable is the table of the grammars that need none.
var noTable = &outlineTable{}

// table is the outline table of the resolver's language.
func (r *Resolver) table() *outlineTable {
	if tab := outlineTables[r.lang.name]; tab != nil {
		return tab
	}
	return noTable
}
