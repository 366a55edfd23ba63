package blocks

import (
	"path/filepath"
	"slices"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/bash"
	"github.com/smacker/go-tree-sitter/c"
	"github.com/smacker/go-tree-sitter/cpp"
	"github.com/smacker/go-tree-sitter/csharp"
	"github.com/smacker/go-tree-sitter/css"
	"github.com/smacker/go-tree-sitter/dockerfile"
	"github.com/smacker/go-tree-sitter/elixir"
	"github.com/smacker/go-tree-sitter/golang"
	"github.com/smacker/go-tree-sitter/hcl"
	"github.com/smacker/go-tree-sitter/html"
	"github.com/smacker/go-tree-sitter/java"
	"github.com/smacker/go-tree-sitter/javascript"
	"github.com/smacker/go-tree-sitter/kotlin"
	"github.com/smacker/go-tree-sitter/lua"
	markdown "github.com/smacker/go-tree-sitter/markdown/tree-sitter-markdown"
	"github.com/smacker/go-tree-sitter/php"
	"github.com/smacker/go-tree-sitter/protobuf"
	"github.com/smacker/go-tree-sitter/python"
	"github.com/smacker/go-tree-sitter/ruby"
	"github.com/smacker/go-tree-sitter/rust"
	"github.com/smacker/go-tree-sitter/scala"
	"github.com/smacker/go-tree-sitter/sql"
	"github.com/smacker/go-tree-sitter/swift"
	"github.com/smacker/go-tree-sitter/toml"
	"github.com/smacker/go-tree-sitter/typescript/tsx"
	"github.com/smacker/go-tree-sitter/typescript/typescript"
	"github.com/smacker/go-tree-sitter/yaml"
	tsjson "github.com/tree-sitter/tree-sitter-json/bindings/go"
)

// Language is one supported grammar and the few facts about its node types
// that the resolution rules need.
type Language struct {
	name    string
	grammar func() *sitter.Language
	// lists are node types that hold a sequence of items and start where
	// their first item starts (a Python block, a YAML mapping). Climbing
	// from the first item into such a node would turn "the item opening at
	// this line" into "every item from here to the end of the list", so
	// resolution never climbs into them.
	lists []string
	// attached are node types that attach to the declaration after them
	// (decorators, attributes): separate nodes under edit-contract §8.2.
	attached []string
	// wrappers are node types that hold attached nodes among other
	// items and sit at the start of the declaration (Java's modifiers:
	// annotations and keywords). Climbing through one is climbing through
	// the attached nodes in it.
	wrappers []string
	// spacedLeaves: the grammar's named leaves may begin with the
	// whitespace before them (Lua's keywords and identifiers do), so a
	// named leaf's first non-space byte is where it starts (nodes.go).
	spacedLeaves bool
	// markdown enables heading sections (edit-contract §8.2).
	markdown bool
	// guard, when set, is run before every parse and refuses a text the
	// grammar is known to crash on, with the reason (guard.go).
	guard func(text string) string
	// fromScratch: an incremental parse in this grammar was seen to
	// answer differently from a full parse of the same text, so the
	// tree cache parses every version of a file in it from scratch
	// (trees.go); it still parses each version once. Bash: after an
	// edit that joins "else" to a following "<", the incremental tree
	// has an error and the full one none (TestFromScratchGrammars).
	fromScratch bool
	// everyTextParses: the language has no syntax errors, so syntax
	// feedback (AddedErrors) reports none without a parse. Markdown:
	// CommonMark reads every text as a document; an ERROR node in its
	// tree would be the grammar's limit, not the file's mistake.
	everyTextParses bool
}

// refuse is the guard's reason for not parsing text, "" when it may be
// parsed.
func (l *Language) refuse(text string) string {
	if l.guard == nil {
		return ""
	}
	return l.guard(text)
}

func jsonGrammar() *sitter.Language { return sitter.NewLanguage(tsjson.Language()) }

// ecmaAttached are the decorator nodes of the JavaScript family.
var ecmaAttached = []string{"decorator"}

// languages is every grammar, by the name host.info reports. jsx is
// JavaScript's grammar (which parses JSX) under the contract's name.
var languages = map[string]*Language{
	"bash":       {name: "bash", grammar: bash.GetLanguage, fromScratch: true},
	"css":        {name: "css", grammar: css.GetLanguage},
	"html":       {name: "html", grammar: html.GetLanguage},
	"javascript": {name: "javascript", grammar: javascript.GetLanguage, attached: ecmaAttached},
	"json":       {name: "json", grammar: jsonGrammar},
	"jsx":        {name: "jsx", grammar: javascript.GetLanguage, attached: ecmaAttached},
	"markdown":   {name: "markdown", grammar: markdown.GetLanguage, markdown: true, lists: []string{"list", "section"}, guard: markdownGuard, everyTextParses: true},
	"python":     {name: "python", grammar: python.GetLanguage, lists: []string{"block"}, attached: []string{"decorator"}},
	"rust":       {name: "rust", grammar: rust.GetLanguage, attached: []string{"attribute_item"}},
	"toml":       {name: "toml", grammar: toml.GetLanguage},
	"tsx":        {name: "tsx", grammar: tsx.GetLanguage, attached: ecmaAttached},
	"typescript": {name: "typescript", grammar: typescript.GetLanguage, attached: ecmaAttached},
	"yaml":       {name: "yaml", grammar: yaml.GetLanguage, lists: []string{"block_mapping", "block_sequence", "block_node", "document"}},

	"c":          {name: "c", grammar: c.GetLanguage},
	"cpp":        {name: "cpp", grammar: cpp.GetLanguage},
	"csharp":     {name: "csharp", grammar: csharp.GetLanguage, attached: []string{"attribute_list"}, guard: typeArgumentGuard("C#")},
	"dockerfile": {name: "dockerfile", grammar: dockerfile.GetLanguage},
	"elixir":     {name: "elixir", grammar: elixir.GetLanguage},
	"go":         {name: "go", grammar: golang.GetLanguage},
	"hcl":        {name: "hcl", grammar: hcl.GetLanguage, lists: []string{"body"}},
	"java":       {name: "java", grammar: java.GetLanguage, attached: []string{"marker_annotation", "annotation"}, wrappers: []string{"modifiers"}, guard: typeArgumentGuard("Java")},
	"kotlin":     {name: "kotlin", grammar: kotlin.GetLanguage, lists: []string{"statements"}, attached: []string{"annotation"}, wrappers: []string{"modifiers"}, guard: kotlinGuard},
	"lua":        {name: "lua", grammar: lua.GetLanguage, lists: []string{"function_body"}, attached: []string{"emmy_documentation"}, spacedLeaves: true},
	"php":        {name: "php", grammar: php.GetLanguage, attached: []string{"attribute_group"}, wrappers: []string{"attribute_list"}},
	"protobuf":   {name: "protobuf", grammar: protobuf.GetLanguage},
	"ruby":       {name: "ruby", grammar: ruby.GetLanguage, lists: []string{"body_statement"}},
	"scala":      {name: "scala", grammar: scala.GetLanguage, attached: []string{"annotation"}},
	"sql":        {name: "sql", grammar: sql.GetLanguage},
	"swift":      {name: "swift", grammar: swift.GetLanguage, lists: []string{"statements"}, attached: []string{"attribute"}, wrappers: []string{"modifiers"}},
}

// fileTypes maps a file to its language: a key starting with "." is a
// lower-cased extension, any other key a whole file name. A whole-name
// match wins (".bashrc" is a name, not an extension).
var fileTypes = map[string]string{
	".rs":       "rust",
	".ts":       "typescript",
	".mts":      "typescript",
	".cts":      "typescript",
	".tsx":      "tsx",
	".js":       "javascript",
	".mjs":      "javascript",
	".cjs":      "javascript",
	".jsx":      "jsx",
	".json":     "json",
	".md":       "markdown",
	".markdown": "markdown",
	".css":      "css",
	".py":       "python",
	".pyi":      "python",
	".toml":     "toml",
	".yaml":     "yaml",
	".yml":      "yaml",
	".html":     "html",
	".htm":      "html",
	".sh":       "bash",
	".bash":     "bash",
	".go":       "go",
	".java":     "java",
	".c":        "c",
	// A .h header is read as C++: that grammar takes nearly every C
	// header, while C's rejects every header that uses a class or a
	// namespace.
	".h":          "cpp",
	".cc":         "cpp",
	".cpp":        "cpp",
	".cxx":        "cpp",
	".c++":        "cpp",
	".hh":         "cpp",
	".hpp":        "cpp",
	".hxx":        "cpp",
	".cs":         "csharp",
	".rb":         "ruby",
	".rake":       "ruby",
	".gemspec":    "ruby",
	".php":        "php",
	".kt":         "kotlin",
	".kts":        "kotlin",
	".swift":      "swift",
	".scala":      "scala",
	".sc":         "scala",
	".lua":        "lua",
	".ex":         "elixir",
	".exs":        "elixir",
	".hcl":        "hcl",
	".tf":         "hcl",
	".tfvars":     "hcl",
	".dockerfile": "dockerfile",
	".proto":      "protobuf",
	".sql":        "sql",

	".bashrc":       "bash",
	".bash_profile": "bash",
	".bash_aliases": "bash",
	".bash_logout":  "bash",
	".profile":      "bash",
	"Cargo.lock":    "toml",
	"Pipfile":       "toml",
	"poetry.lock":   "toml",
	"uv.lock":       "toml",
	"Dockerfile":    "dockerfile",
	"Containerfile": "dockerfile",
	"Gemfile":       "ruby",
	"Rakefile":      "ruby",
}

// Languages lists the grammar names block ops support, sorted, for
// host.info.
func Languages() []string {
	names := make([]string, 0, len(languages))
	for name := range languages {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// LanguageFor picks the grammar for a file: by well-known name first, then
// by extension, then by a #! line for extensionless scripts. nil means
// block ops are unavailable for this file type.
func LanguageFor(path, text string) *Language {
	base := filepath.Base(filepath.ToSlash(path))
	if name, ok := fileTypes[base]; ok {
		return languages[name]
	}
	if ext := strings.ToLower(filepath.Ext(base)); ext != "" {
		return languages[fileTypes[ext]]
	}
	return languages[byShebang(text)]
}

// byShebang recognises the interpreters of the supported languages on a
// script's first line: "#!/bin/bash", "#!/usr/bin/env python3".
func byShebang(text string) string {
	if !strings.HasPrefix(text, "#!") {
		return ""
	}
	first, _, _ := strings.Cut(text, "\n")
	fields := strings.Fields(first[2:])
	if len(fields) == 0 {
		return ""
	}
	interp := filepath.Base(fields[0])
	if interp == "env" {
		// Skip env's own options ("env -S bash -e").
		interp = ""
		for _, f := range fields[1:] {
			if !strings.HasPrefix(f, "-") {
				interp = filepath.Base(f)
				break
			}
		}
	}
	switch {
	case interp == "sh" || interp == "bash" || interp == "dash":
		return "bash"
	case interp == "python" || strings.HasPrefix(interp, "python3") || strings.HasPrefix(interp, "python2"):
		return "python"
	case interp == "node":
		return "javascript"
	case interp == "ruby":
		return "ruby"
	case interp == "lua" || strings.HasPrefix(interp, "lua5"):
		return "lua"
	case interp == "elixir":
		return "elixir"
	case interp == "php":
		return "php"
	}
	return ""
}

// Name is the grammar's name, as Languages lists it.
func (l *Language) Name() string { return l.name }

// EveryTextParses says the grammar finds no syntax errors in any text
// (markdown), so there is none for a change to add.
func (l *Language) EveryTextParses() bool { return l.everyTextParses }
