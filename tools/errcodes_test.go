package tools

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// notToolResults are the Code constants no tool result carries, and why;
// every other one must have a row in errorCodes.
var notToolResults = map[string]string{
	CodeRetryBudgetExhausted: "the code a runtime writes on the assistant row when the repeat guard ends a turn (edit-contract §9.3); the tool result itself carries the code that failed",
}

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

// Every error code the tools and the edit language declare is a row of
// the one table (from which the OpenRPC document's x-tool-errors is made),
// so a new code cannot reach the wire without clients knowing it.
func TestEveryDeclaredCodeHasARow(t *testing.T) {
	var rows []string
	for _, c := range errorCodes {
		if slices.Contains(rows, c.Code) {
			t.Errorf("%s has two rows", c.Code)
		}
		rows = append(rows, c.Code)
	}
	declared := 0
	for _, f := range goFiles(t, ".", "hashline") {
		ast.Inspect(f, func(n ast.Node) bool {
			spec, ok := n.(*ast.ValueSpec)
			if !ok {
				return true
			}
			for i, name := range spec.Names {
				if !strings.HasPrefix(name.Name, "Code") || i >= len(spec.Values) {
					continue
				}
				lit, ok := spec.Values[i].(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					continue
				}
				code, _ := strconv.Unquote(lit.Value)
				declared++
				if _, exempt := notToolResults[code]; !exempt && !slices.Contains(rows, code) {
					t.Errorf("%s (%s) has no row in errorCodes (tools/errcodes.go)", name.Name, code)
				}
			}
			return true
		})
	}
	if declared < len(errorCodes) {
		t.Fatalf("found %d declared codes, fewer than the table's %d rows", declared, len(errorCodes))
	}
}

// Details are set only as their code's row says: every assignment to an
// error's Details is a value of a details type of the table (or the
// repeat guard's merge), never a map that a schema could not describe.
func TestDetailsAreTheTablesTypes(t *testing.T) {
	typed := map[string]bool{}
	for _, c := range errorCodes {
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
					if id, ok := v.Type.(*ast.Ident); ok && typed[id.Name] {
						continue
					}
				case *ast.CallExpr:
					if id, ok := v.Fun.(*ast.Ident); ok && id.Name == "withGuard" {
						continue
					}
				}
				t.Errorf("%s: Details set to something other than a details type of errorCodes", name)
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
	rows := []LineText{{Line: 4, Text: "x"}}
	got, _ := json.Marshal(withGuard(TagMismatchDetails{LiveTag: "ABCD", Context: &rows}, RepeatGuardDetails{Attempts: 3, Kind: "edit", Recovery: "read"}))
	want := `{"attempts":3,"context":[{"line":4,"text":"x"}],"kind":"edit","liveTag":"ABCD","recovery":"read"}`
	if string(got) != want {
		t.Errorf("merged details %s, want %s", got, want)
	}
	got, _ = json.Marshal(withGuard(nil, RepeatGuardDetails{Attempts: 3, Kind: "edit", Recovery: "read"}))
	if string(got) != `{"attempts":3,"kind":"edit","recovery":"read"}` {
		t.Errorf("the guard's details alone: %s", got)
	}
	// EDIT_TAG_MISMATCH's context: absent, null or lines.
	for _, tt := range []struct {
		d    TagMismatchDetails
		want string
	}{
		{TagMismatchDetails{LiveTag: "ABCD"}, `{"liveTag":"ABCD"}`},
		{TagMismatchDetails{LiveTag: "ABCD", Context: new([]LineText)}, `{"context":null,"liveTag":"ABCD"}`},
	} {
		if got, _ := json.Marshal(tt.d); string(got) != tt.want {
			t.Errorf("%+v marshals as %s, want %s", tt.d, got, tt.want)
		}
	}
}
