package langserver

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// A language is what one server serves: its name (the key of the
// configuration's servers), the command found on the PATH when the
// configuration names none, and the LSP language id of each extension.
type language struct {
	name    string
	command []string
	ids     map[string]string // extension → languageId
	// tsserver: the server answers diagnostics through tsserver's own
	// requests (typescript-language-server pushes them without a version
	// and not at all when a file stays clean, so a push cannot tell "no
	// errors" from "not yet").
	tsserver bool
	// stale is what the server says, in a diagnostic, when its own view
	// of the workspace has lost track of the files on disk rather than
	// found an error in them: gopls names an import it has no metadata
	// for after an import cycle that a later change broke (golang/go#46667
	// and its kin), and keeps naming it, with the old types, until it
	// starts again. "" for a server with no such word.
	stale string
	// unbuilt is what the server says of a file that is in no package of
	// its build (gopls, of a file whose build tags it does not use): the
	// errors it reports there come from checking the file alone, without
	// the package's other files, and are not the program's. "" for a
	// server with no such word.
	unbuilt string
}

var languages = []language{
	{name: "go", command: []string{"gopls"}, ids: map[string]string{".go": "go"}, stale: "(missing metadata for import of ", unbuilt: "No packages found for open file"},
	{name: "typescript", command: []string{"typescript-language-server", "--stdio"}, tsserver: true, ids: map[string]string{
		".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "typescriptreact",
		".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascriptreact",
	}},
	{name: "python", command: []string{"pyright-langserver", "--stdio"}, ids: map[string]string{".py": "python", ".pyi": "python"}},
	{name: "rust", command: []string{"rust-analyzer"}, ids: map[string]string{".rs": "rust"}},
	{name: "c", command: []string{"clangd"}, ids: map[string]string{
		".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp", ".hxx": "cpp",
	}},
}

// Languages are the names the configuration's servers take.
func Languages() []string {
	out := make([]string, len(languages))
	for i, l := range languages {
		out[i] = l.name
	}
	return out
}

// languageOf is the language of path and the LSP id of its kind of file;
// ok is false for a file no known server serves.
func languageOf(path string) (*language, string, bool) {
	ext := strings.ToLower(filepath.Ext(path))
	for i := range languages {
		if id, ok := languages[i].ids[ext]; ok {
			return &languages[i], id, true
		}
	}
	return nil, "", false
}

// findCommand is the command that runs lang's server for root: the
// configured one, else the known one found in the root's node_modules
// (the project's own TypeScript server) or on the PATH. "" and a reason
// when there is none.
func findCommand(lang *language, root string, configured map[string][]string) ([]string, string) {
	argv, set := configured[lang.name]
	if set && len(argv) == 0 {
		return nil, "turned off by the configuration (languageServers.servers." + lang.name + " is [])"
	}
	if !set {
		argv = lang.command
	}
	name := argv[0]
	if !set && lang.tsserver {
		local := filepath.Join(root, "node_modules", ".bin", name)
		if runtime.GOOS == "windows" {
			local += ".cmd"
		}
		if info, err := os.Stat(local); err == nil && !info.IsDir() {
			return append([]string{local}, argv[1:]...), ""
		}
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return nil, name + " is not on the PATH"
	}
	return append([]string{path}, argv[1:]...), ""
}
