package blocks

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// Decl is one row of a file's outline: a declaration, the line that names
// it, and the lines it spans.
type Decl struct {
	// Line is the declaration's own first line (1-based): the line of its
	// keyword or name, after any decorators or attributes attached to it.
	Line int
	// Start and End are the inclusive lines of the whole declaration. Start
	// is the first attached decorator or attribute when there are any
	// (the span a block op anchored there covers, edit-contract §8.2),
	// otherwise Line. End is the last line of its last significant token,
	// as block resolution ends a block (trailing comments are not in it).
	Start, End int
	// Depth is 0 for a top-level declaration, 1 for a member of one, and
	// so on; for Markdown, the heading level minus one.
	Depth int
}

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
// conventions; what attaches to a declaration and where it ends are the
// block rules' own (the language's attached types, lastRow).
//
// The parse is the block resolver's, with its limits: a file over
// maxParseBytes, one its grammar's guard refuses, one that does not parse
// cleanly or not within ctx's deadline, and a file type without a grammar
// return an error that unwraps to ErrTooLarge, ErrUnsafe, ErrNotClean,
// ErrParseTime or ErrUnsupported, whose message names plain read as the
// way on.
func Outline(ctx context.Context, path, text string, maxParseBytes int64) ([]Decl, error) {
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
func OutlineLines(ctx context.Context, path, text string, maxParseBytes int64, from, to int) ([]Decl, error) {
	return (*Trees)(nil).OutlineLines(ctx, path, text, maxParseBytes, from, to)
}

// OutlineLines is the package's OutlineLines with the version's tree taken
// from the cache (parsed once per version, as for block ops); a nil *Trees
// parses from scratch.
func (t *Trees) OutlineLines(ctx context.Context, path, text string, maxParseBytes int64, from, to int) ([]Decl, error) {
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

func (r *Resolver) outline(w window) ([]Decl, error) {
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
		return nil, &OutlineError{Kind: ue.Kind, Reason: outlineReason(ue)}
	}
	var out []Decl
	if r.lang.markdown {
		for _, h := range r.headings {
			end := h.row
			if s, ue, ok := r.section(h.row); ok && ue == nil {
				end = s.end
			}
			if h.row >= w.from && h.row <= w.to && w.holds(h.row, min(end, w.to)) {
				out = append(out, Decl{Line: h.row + 1, Start: h.row + 1, End: end + 1, Depth: h.level - 1})
			}
		}
		return out, nil
	}
	r.outlineIn(r.root, w, true, false, 0, 0, &out)
	return out, nil
}

// outlineReason rephrases a file-wide block decline for an outline: the
// same cause, with plain read as the way on instead of range ops.
func outlineReason(ue *UnresolvedError) string {
	why, _, _ := strings.Cut(ue.Reason, "; "+plainOps)
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
// function-like declaration was walked through: inside one, a declaration
// on one line is a local variable, read with the function, not a row.
func (r *Resolver) outlineIn(n *sitter.Node, w window, body, inFunc bool, depth, nest int, out *[]Decl) {
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
				r.outlineIn(c, w, isContainer(c.Type()), inFunc || functionLike(c.Type()), depth, nest+1, out)
			}
			return true
		}
		decl := r.declIn(c)
		switch {
		case decl != nil && inFunc && end == start:
			// A local variable on one line: read with its function.
		case decl != nil:
			*out = append(*out, Decl{Line: r.ownRow(decl) + 1, Start: start + 1, End: end + 1, Depth: depth})
			if depth+1 < MaxOutlineDepth && !functionLike(decl.Type()) {
				eachChild(decl, func(b *sitter.Node) bool {
					if b.IsNamed() && isContainer(b.Type()) && nest < maxContainerNesting {
						r.outlineIn(b, w, true, inFunc, depth+1, nest+1, out)
					}
					return true
				})
			}
		case isContainer(c.Type()):
			// A body holds rows; it is never one (a JSON document's object).
			if nest < maxContainerNesting {
				r.outlineIn(c, w, true, inFunc, depth, nest+1, out)
			}
		case body && end > start:
			*out = append(*out, Decl{Line: r.startRow(c) + 1, Start: start + 1, End: end + 1, Depth: depth})
		case end > start && nest < maxContainerNesting:
			// A multi-line construct that is no row (an else clause, a
			// multi-line parameter list): rows may be inside it. A
			// one-line one holds nothing worth a row, so it is not walked.
			r.outlineIn(c, w, isContainer(c.Type()), inFunc, depth, nest+1, out)
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
			if c := n.NamedChild(0); isDecl(c.Type()) {
				return c
			}
			if r.isAssignmentStatement(n) {
				return n
			}
			return nil
		}
		if !isWrapper(t) {
			if isDecl(t) {
				return n
			}
			return nil
		}
		var inner *sitter.Node
		eachChild(n, func(c *sitter.Node) bool {
			if c.IsNamed() && !isComment(c) && !r.lang.isAttached(c) {
				if isDecl(c.Type()) || isWrapper(c.Type()) || (t == "export_statement" && exportedValues[c.Type()]) {
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
// class's) nor a comment.
func (r *Resolver) ownRow(decl *sitter.Node) int {
	row := -1
	eachChild(decl, func(c *sitter.Node) bool {
		if isComment(c) || r.lang.isAttached(c) {
			return true
		}
		row = r.startRow(c)
		return false
	})
	if row < 0 {
		return r.startRow(decl)
	}
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

// functionLike declarations hold statements, not members: their bodies
// are never listed (a local function is read with the one it is in).
func functionLike(t string) bool {
	return strings.Contains(t, "function") || strings.Contains(t, "method") ||
		strings.Contains(t, "constructor") || strings.Contains(t, "lambda")
}
