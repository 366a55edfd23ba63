package docs

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestArchitecturePackageTable holds the package table of
// docs/architecture.md to the code: every Go package of the module is a
// row, every row is a package, and, as the page says, no package imports
// one listed above it (its non-test files, on every platform).
func TestArchitecturePackageTable(t *testing.T) {
	root := mustRoot(t)
	rows := tableNames(mustRead(t, root, "docs/architecture.md"), "## Packages")
	pkgs := goPackages(t, root)
	at := map[string]int{}
	for i, r := range rows {
		if _, ok := pkgs[r]; !ok {
			t.Errorf("docs/architecture.md lists %s, which is not a package of the module", r)
		}
		at[r] = i
	}
	for dir, p := range pkgs {
		i, listed := at[dir]
		if !listed {
			t.Errorf("package %s is not in docs/architecture.md's package table", dir)
			continue
		}
		for _, imp := range p.imports {
			if j, ok := at[imp]; ok && j < i {
				t.Errorf("%s imports %s, which docs/architecture.md lists above it: imports must point down the table", dir, imp)
			}
		}
	}
	if len(rows) < 20 {
		t.Errorf("found %d rows in the package table; the scan is not seeing it", len(rows))
	}
}

// TestArchitectureWireImportsOnlyTheStandardLibrary holds rpc/wire a
// leaf: what crosses the wire is its own plain structs, so a client that
// decodes them links nothing of the daemon, and the protocol takes no
// shape from a domain package's tags. A standard library path has no dot
// in its first element, as the go command tells them apart.
func TestArchitectureWireImportsOnlyTheStandardLibrary(t *testing.T) {
	p := goPackages(t, mustRoot(t))["rpc/wire"]
	if p == nil {
		t.Fatal("found no package rpc/wire")
	}
	for _, imp := range p.imports {
		t.Errorf("rpc/wire imports %s of the module: it imports only the standard library; give the shape a plain struct in rpc/wire and convert to it where the value is made", imp)
	}
	for _, imp := range p.others {
		if first, _, _ := strings.Cut(imp, "/"); strings.Contains(first, ".") {
			t.Errorf("rpc/wire imports %s: it imports only the standard library", imp)
		}
	}
	if !slices.Contains(p.others, "encoding/json") {
		t.Errorf("rpc/wire's imports %v lack encoding/json; the scan is not seeing its files", p.others)
	}
}

// clientForbidden are the daemon's dependencies the Go client must not
// link: the review store's database, the daemon's logger, the snapshot
// store's LRU and the diff library.
var clientForbidden = []string{"go.etcd.io/bbolt", "go.uber.org/zap", "github.com/hashicorp/golang-lru", "github.com/aymanbagabas/go-udiff"}

// clientThirdParty are the modules from outside this one whose packages
// the Go client's closure may import: its JSON-RPC connection, the system
// calls of the endpoint's checks, and the encodings config's setting names
// (through workspace/textenc). None brings in one of clientForbidden,
// which a scan of this module's files cannot see through a third party;
// so a new one is checked and listed here before the client imports it.
var clientThirdParty = []string{"github.com/sourcegraph/jsonrpc2", "golang.org/x/sys", "github.com/Microsoft/go-winio", "golang.org/x/text"}

// inModule reports whether the package path imp is module mod or one of
// its packages.
func inModule(imp, mod string) bool { return imp == mod || strings.HasPrefix(imp, mod+"/") }

// TestArchitectureClientLinksNoDaemonDependency holds the Go client
// (internal/client, which hostctl, the MCP face, the forwarder and
// hostbench call through) small: the module packages it reaches, on
// every platform, import none of the daemon's storage, logging, caching
// or diffing libraries, and no third party but the ones listed.
func TestArchitectureClientLinksNoDaemonDependency(t *testing.T) {
	pkgs := goPackages(t, mustRoot(t))
	seen := map[string]bool{}
	queue := []string{"internal/client"}
	for len(queue) > 0 {
		dir := queue[0]
		queue = queue[1:]
		if seen[dir] {
			continue
		}
		seen[dir] = true
		p := pkgs[dir]
		if p == nil {
			t.Fatalf("found no package %s", dir)
		}
		queue = append(queue, p.imports...)
		for _, imp := range p.others {
			if first, _, _ := strings.Cut(imp, "/"); !strings.Contains(first, ".") {
				continue // the standard library
			}
			if slices.ContainsFunc(clientForbidden, func(mod string) bool { return inModule(imp, mod) }) {
				t.Errorf("%s, which internal/client reaches, imports %s: the Go client must not link the daemon's dependencies", dir, imp)
				continue
			}
			if !slices.ContainsFunc(clientThirdParty, func(mod string) bool { return inModule(imp, mod) }) {
				t.Errorf("%s, which internal/client reaches, imports %s: check that it brings in none of %v and list it in clientThirdParty", dir, imp, clientForbidden)
			}
		}
	}
	if !seen["rpc/wire"] {
		t.Errorf("internal/client's closure %v lacks rpc/wire; the scan is not following imports", seen)
	}
}

// TestArchitectureLockTable holds the locking table to the code: every
// lock it names (pkg.Type.field, or pkg.Type for all of a type's) is a
// field or type that exists, and every mutex field of the daemon's
// packages is named there, so a new lock comes with its row.
func TestArchitectureLockTable(t *testing.T) {
	root := mustRoot(t)
	names := tableNames(mustRead(t, root, "docs/architecture.md"), "## Locking")
	pkgs := goPackages(t, root)
	byName := map[string][]*goPackage{} // by a package's last path element
	for dir, p := range pkgs {
		byName[filepath.Base(dir)] = append(byName[filepath.Base(dir)], p)
	}
	named := map[string]bool{}
	for _, n := range names {
		if strings.Contains(n, "/") {
			continue // the package a lock is in, named beside it
		}
		parts := strings.Split(n, ".")
		if len(parts) < 2 || len(parts) > 3 {
			t.Errorf("docs/architecture.md's lock table names %q: want pkg.Type.field or pkg.Type", n)
			continue
		}
		named[n] = true
		found := false
		for _, p := range byName[parts[0]] {
			fields, ok := p.types[parts[1]]
			found = found || ok && (len(parts) == 2 || slices.Contains(fields, parts[2]))
		}
		if !found {
			t.Errorf("docs/architecture.md's lock table names %s, which no package of the module has", n)
		}
	}
	checked := 0
	for dir, p := range pkgs {
		if dir == "cmd/hostbench" || strings.HasPrefix(dir, "internal/test") || dir == "internal/exfattest" {
			continue // programs and helpers outside the daemon
		}
		for _, m := range p.mutexes {
			checked++
			typ := filepath.Base(dir) + "." + m[0]
			if !named[typ+"."+m[1]] && !named[typ] {
				t.Errorf("%s has the lock %s.%s, which docs/architecture.md's lock table does not name: add its row (what it guards, its order)", dir, typ, m[1])
			}
		}
	}
	if checked < 20 {
		t.Errorf("found %d mutex fields; the scan is not seeing the code", checked)
	}
}

// goPackage is what the architecture tests read of one package's non-test
// files.
type goPackage struct {
	imports []string            // module packages, relative to the module root
	others  []string            // packages from outside the module: the standard library's and third parties'
	types   map[string][]string // struct types and their field names
	mutexes [][2]string         // {type, field} of every sync.Mutex or sync.RWMutex field
}

// goPackages parses every package of the module (files of every platform,
// tests left out), keyed by its directory relative to the root.
func goPackages(t *testing.T, root string) map[string]*goPackage {
	t.Helper()
	mod := modulePath(t, root)
	pkgs := map[string]*goPackage{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		rel = filepath.ToSlash(rel)
		p := pkgs[rel]
		if p == nil {
			p = &goPackage{types: map[string][]string{}}
			pkgs[rel] = p
		}
		for _, imp := range f.Imports {
			v, _ := strconv.Unquote(imp.Path.Value)
			if r, ok := strings.CutPrefix(v, mod+"/"); ok {
				if !slices.Contains(p.imports, r) {
					p.imports = append(p.imports, r)
				}
			} else if !slices.Contains(p.others, v) {
				p.others = append(p.others, v)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			p.types[ts.Name.Name] = append(p.types[ts.Name.Name], []string{}...)
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				return true
			}
			for _, fld := range st.Fields.List {
				for _, id := range fld.Names {
					p.types[ts.Name.Name] = append(p.types[ts.Name.Name], id.Name)
					if isMutex(fld.Type) {
						p.mutexes = append(p.mutexes, [2]string{ts.Name.Name, id.Name})
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

func isMutex(e ast.Expr) bool {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	x, ok := sel.X.(*ast.Ident)
	return ok && x.Name == "sync" && (sel.Sel.Name == "Mutex" || sel.Sel.Name == "RWMutex")
}

func modulePath(t *testing.T, root string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		if m, ok := strings.CutPrefix(strings.TrimSpace(l), "module "); ok {
			return strings.TrimSpace(m)
		}
	}
	t.Fatal("go.mod names no module")
	return ""
}

// cellSpanRE is a code span in a table's first cell.
var cellSpanRE = regexp.MustCompile("`([^`]+)`")

// tableNames returns the code spans of the first cells of the first table
// under heading: the package paths of the package table, the lock names
// of the locking table.
func tableNames(doc, heading string) []string {
	_, after, ok := strings.Cut(doc, "\n"+heading+"\n")
	if !ok {
		return nil
	}
	var names []string
	inTable := false
	for _, line := range strings.Split(after, "\n") {
		switch {
		case strings.HasPrefix(line, "## "):
			return names
		case strings.HasPrefix(line, "|"):
			cells := strings.Split(line, "|")
			if !inTable || strings.HasPrefix(strings.TrimSpace(cells[1]), "---") {
				inTable = true // the header row, then the delimiter row
				continue
			}
			for _, m := range cellSpanRE.FindAllStringSubmatch(cells[1], -1) {
				names = append(names, m[1])
			}
		case inTable:
			return names
		}
	}
	return names
}

// TestArchitectureAllowedImports holds each package to the imports
// docs/architecture.md's "Imports" table allows it: the module's packages
// and the third-party modules it may import (the standard library is
// always allowed). An import the row does not name fails, and so does an
// allowance no file uses, so the table is the package's dependencies as
// they are, and a new edge in the graph is a reviewed change to the page.
func TestArchitectureAllowedImports(t *testing.T) {
	root := mustRoot(t)
	allowed := importsTable(t, mustRead(t, root, "docs/architecture.md"))
	mods := requiredModules(t, root)
	pkgs := goPackages(t, root)
	for dir, p := range pkgs {
		var got []string
		got = append(got, p.imports...)
		for _, o := range p.others {
			if m := moduleOf(o, mods); m != "" && !slices.Contains(got, m) {
				got = append(got, m)
			} else if m == "" && strings.Contains(strings.Split(o, "/")[0], ".") {
				t.Errorf("%s imports %s, which no module go.mod requires provides", dir, o)
			}
		}
		slices.Sort(got)
		row, listed := allowed[dir]
		if !listed {
			t.Errorf("package %s has no row in docs/architecture.md's Imports table; its imports today: %s", dir, importsCell(got))
			continue
		}
		for _, g := range got {
			if !slices.Contains(row, g) {
				t.Errorf("%s imports %s, which its row in docs/architecture.md's Imports table does not allow: add it there (a new dependency edge is a design change) or drop the import", dir, g)
			}
		}
		for _, a := range row {
			if !slices.Contains(got, a) {
				t.Errorf("docs/architecture.md's Imports table allows %s to import %s, which it no longer does: remove it from the row", dir, a)
			}
		}
	}
	for dir := range allowed {
		if _, ok := pkgs[dir]; !ok {
			t.Errorf("docs/architecture.md's Imports table has a row for %s, which is not a package of the module", dir)
		}
	}
	if len(allowed) < 20 {
		t.Errorf("found %d rows in the Imports table; the scan is not seeing it", len(allowed))
	}
}

// importsTable reads the "## Imports" table: each row's package (first
// cell) and the code spans of its other cells (module packages, then
// third-party modules). "—" stands for none.
func importsTable(t *testing.T, doc string) map[string][]string {
	t.Helper()
	_, after, ok := strings.Cut(doc, "\n## Imports\n")
	if !ok {
		t.Fatal(`docs/architecture.md has no "## Imports" section`)
	}
	rows := map[string][]string{}
	header := true
	for _, line := range strings.Split(after, "\n") {
		if strings.HasPrefix(line, "## ") {
			break
		}
		if !strings.HasPrefix(line, "|") {
			continue
		}
		cells := strings.Split(line, "|")
		if header || strings.HasPrefix(strings.TrimSpace(cells[1]), "---") {
			header = false
			continue
		}
		name := cellSpanRE.FindStringSubmatch(cells[1])
		if name == nil {
			t.Errorf("docs/architecture.md's Imports table has a row without a package: %s", line)
			continue
		}
		var row []string
		for _, c := range cells[2:] {
			for _, m := range cellSpanRE.FindAllStringSubmatch(c, -1) {
				row = append(row, m[1])
			}
		}
		rows[name[1]] = row
	}
	return rows
}

// importsCell writes imports as the Imports table spells them.
func importsCell(imports []string) string {
	if len(imports) == 0 {
		return "—"
	}
	return "`" + strings.Join(imports, "`, `") + "`"
}

// requiredModules lists the module paths go.mod requires.
func requiredModules(t *testing.T, root string) []string {
	t.Helper()
	data := mustRead(t, root, "go.mod")
	var mods []string
	inBlock := false
	for _, l := range strings.Split(data, "\n") {
		l = strings.TrimSpace(l)
		switch {
		case l == "require (":
			inBlock = true
		case inBlock && l == ")":
			inBlock = false
		case inBlock && l != "":
			mods = append(mods, strings.Fields(l)[0])
		case strings.HasPrefix(l, "require "):
			mods = append(mods, strings.Fields(l)[1])
		}
	}
	return mods
}

// moduleOf is the longest of mods that provides the package path, or "".
func moduleOf(path string, mods []string) string {
	best := ""
	for _, m := range mods {
		if (path == m || strings.HasPrefix(path, m+"/")) && len(m) > len(best) {
			best = m
		}
	}
	return best
}
