package tools

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/tools/hashline"
)

// goFiles parses the non-test Go files of the directories, relative to
// this package, by file name.
func goFiles(t *testing.T, dirs ...string) map[string]*ast.File {
	t.Helper()
	files := map[string]*ast.File{}
	fset := token.NewFileSet()
	for _, dir := range dirs {
		names, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range names {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, name, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			files[name] = f
		}
	}
	return files
}

// The tools and the edit language spell no code of their own: the tools
// name each code by package wire's constant, where the tool error table
// (from which the OpenRPC document's x-tool-errors is made) is, and the
// edit language's are kinds the tools map to those (languageCodes), so a
// code is spelled once and cannot reach the wire without clients knowing
// it.
func TestCodesAreTheWiresConstants(t *testing.T) {
	named := map[string]bool{}
	for name, f := range goFiles(t, ".", "hashline") {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ValueSpec:
				for i, id := range n.Names {
					if v, ok := valueAt(n.Values, i).(*ast.BasicLit); ok && strings.HasPrefix(id.Name, "Code") && v.Kind == token.STRING {
						t.Errorf("%s: %s is the string %s: declare the code in rpc/wire's tool codes and name it by its constant", name, id.Name, v.Value)
					}
				}
			case *ast.CallExpr:
				if id, ok := n.Fun.(*ast.Ident); !ok || id.Name != "Errorf" || len(n.Args) == 0 {
					return true
				}
				switch v := n.Args[0].(type) {
				case *ast.BasicLit:
					t.Errorf("%s: Errorf(%s, ...): name the code by rpc/wire's constant", name, v.Value)
				case *ast.SelectorExpr:
					if x, ok := v.X.(*ast.Ident); ok && x.Name == "wire" {
						named[v.Sel.Name] = true
					}
				}
			case *ast.KeyValueExpr:
				if v, ok := n.Value.(*ast.SelectorExpr); ok {
					if x, ok := v.X.(*ast.Ident); ok && x.Name == "wire" && strings.HasPrefix(v.Sel.Name, "Tool") {
						named[v.Sel.Name] = true // languageCodes
					}
				}
			}
			return true
		})
	}
	// Every code but the runtime's (the retry budget's, which no tool
	// returns) is a tool's.
	if len(named) < len(wire.ToolCodes)-1 {
		t.Fatalf("the tools name %d of wire's codes by their constants (%v), fewer than the table's %d rows less the runtime's", len(named), slices.Sorted(maps.Keys(named)), len(wire.ToolCodes))
	}
}

func valueAt(vs []ast.Expr, i int) ast.Expr {
	if i < len(vs) {
		return vs[i]
	}
	return nil
}

// Details are set only as their code's row says: every assignment to an
// error's Details is a value of a details type of the table (or the
// repeat guard's merge), never a map that a schema could not describe.
func TestDetailsAreTheTablesTypes(t *testing.T) {
	typed := map[string]bool{}
	for _, c := range wire.ToolCodes {
		if c.Details != nil {
			typed[c.Details.Name()] = true
		}
	}
	sites := 0
	for name, f := range goFiles(t, ".") {
		ast.Inspect(f, func(n ast.Node) bool {
			as, ok := n.(*ast.AssignStmt)
			if !ok {
				return true
			}
			for i, lhs := range as.Lhs {
				sel, ok := lhs.(*ast.SelectorExpr)
				if !ok || sel.Sel.Name != "Details" || i >= len(as.Rhs) {
					continue
				}
				sites++
				switch v := as.Rhs[i].(type) {
				case *ast.CompositeLit:
					if sel, ok := v.Type.(*ast.SelectorExpr); ok && typed[sel.Sel.Name] {
						if x, ok := sel.X.(*ast.Ident); ok && x.Name == "wire" {
							continue
						}
					}
				case *ast.CallExpr:
					if id, ok := v.Fun.(*ast.Ident); ok && id.Name == "withGuard" {
						continue
					}
				}
				t.Errorf("%s: Details set to something other than a details type of wire.ToolCodes", name)
			}
			return true
		})
	}
	if sites < len(typed) {
		t.Fatalf("found %d places that set details, fewer than the %d details types", sites, len(typed))
	}
}

// The repeat guard's fields join the error's own details in one object,
// as the OpenRPC document describes them (x-repeat-guard-details).
func TestWithGuardMergesTheDetails(t *testing.T) {
	rows := []wire.LineText{{Line: 4, Text: "x"}}
	got, _ := json.Marshal(withGuard(wire.TagMismatchDetails{LiveTag: "ABCD", Context: &rows}, wire.RepeatGuardDetails{Attempts: 3, Kind: "edit", Recovery: "read"}))
	want := `{"attempts":3,"context":[{"line":4,"text":"x"}],"kind":"edit","liveTag":"ABCD","recovery":"read"}`
	if string(got) != want {
		t.Errorf("merged details %s, want %s", got, want)
	}
	got, _ = json.Marshal(withGuard(nil, wire.RepeatGuardDetails{Attempts: 3, Kind: "edit", Recovery: "read"}))
	if string(got) != `{"attempts":3,"kind":"edit","recovery":"read"}` {
		t.Errorf("the guard's details alone: %s", got)
	}
	// EDIT_TAG_MISMATCH's context: absent, null or lines.
	for _, tt := range []struct {
		d    wire.TagMismatchDetails
		want string
	}{
		{wire.TagMismatchDetails{LiveTag: "ABCD"}, `{"liveTag":"ABCD"}`},
		{wire.TagMismatchDetails{LiveTag: "ABCD", Context: new([]wire.LineText)}, `{"context":null,"liveTag":"ABCD"}`},
	} {
		if got, _ := json.Marshal(tt.d); string(got) != tt.want {
			t.Errorf("%+v marshals as %s, want %s", tt.d, got, tt.want)
		}
	}
}

// Every failure of the edit language is reported as a tool error code of
// the table.
func TestEveryLanguageCodeIsAToolCode(t *testing.T) {
	for c := hashline.CodeParseFailed; c <= hashline.CodeInvalidArgument; c++ {
		code, ok := languageCodes[c]
		if !ok || !slices.ContainsFunc(wire.ToolCodes, func(r wire.ToolCode) bool { return r.Code == code }) {
			t.Errorf("hashline's %s is reported as %q, which is not a row of wire.ToolCodes", c, code)
		}
	}
}
