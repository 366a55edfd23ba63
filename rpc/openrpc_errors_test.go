package rpc

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/rpc/wire"
)

// checkedIn is docs/openrpc.json as a client generator reads it.
type checkedIn struct {
	Components struct {
		Errors  map[string]wire.OpenRPCErrorDef `json:"errors"`
		Schemas map[string]json.RawMessage      `json:"schemas"`
	} `json:"components"`
	ToolErrors []struct {
		Code      string `json:"code"`
		Retriable bool   `json:"retriable"`
		Details   *struct {
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		} `json:"details"`
	} `json:"x-tool-errors"`
	RepeatGuard struct {
		Properties map[string]json.RawMessage `json:"properties"`
	} `json:"x-repeat-guard-details"`
}

func readCheckedIn(t *testing.T) checkedIn {
	t.Helper()
	raw, err := os.ReadFile(openRPCFile)
	if err != nil {
		t.Fatal(err)
	}
	var doc checkedIn
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// Every JSON-RPC error code declared in rpc/wire (each var Code… = Code{…})
// is in the checked-in document's components.errors, with its number and
// retriable flag, and nothing else is.
func TestOpenRPCHasEveryWireErrorCode(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "wire/codes.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var declared []string
	ast.Inspect(f, func(n ast.Node) bool {
		spec, ok := n.(*ast.ValueSpec)
		if !ok {
			return true
		}
		for i, name := range spec.Names {
			if lit, ok := valueAt(spec, i).(*ast.CompositeLit); ok && strings.HasPrefix(name.Name, "Code") {
				if id, ok := lit.Type.(*ast.Ident); ok && id.Name == "Code" {
					declared = append(declared, name.Name)
				}
			}
		}
		return true
	})
	if len(declared) < 15 {
		t.Fatalf("found %d code declarations in rpc/wire/codes.go", len(declared))
	}
	byName := map[string]wire.Code{}
	for _, c := range wire.Codes {
		byName[c.Name] = c
	}
	if len(declared) != len(wire.Codes) {
		t.Errorf("rpc/wire declares %d codes (%v) but wire.Codes lists %d: add the new one to wire.Codes", len(declared), declared, len(wire.Codes))
	}
	doc := readCheckedIn(t)
	for name, c := range byName {
		e, ok := doc.Components.Errors[name]
		switch {
		case !ok:
			t.Errorf("%s is not in %s's components.errors; regenerate it (go test ./rpc -run TestOpenRPCFileIsCurrent -update)", name, openRPCFile)
		case e.Code != c.Num || e.Retriable != c.Retriable || e.Data.Code != name || e.Description == "":
			t.Errorf("components.errors.%s = %+v, want code %d, retriable %v, a description", name, e, c.Num, c.Retriable)
		}
	}
	for name := range doc.Components.Errors {
		if _, ok := byName[name]; !ok {
			t.Errorf("components.errors.%s is no code of rpc/wire", name)
		}
	}
}

func valueAt(spec *ast.ValueSpec, i int) ast.Expr {
	if i < len(spec.Values) {
		return spec.Values[i]
	}
	return nil
}

// Every tool error code of the tools' table is in the checked-in
// document's x-tool-errors, in order, with its retriable flag, and its
// details' members are exactly the JSON fields of the type the tools set
// them with (LineText named in components.schemas); the repeat guard's
// are too.
func TestOpenRPCHasEveryToolErrorCode(t *testing.T) {
	doc := readCheckedIn(t)
	table := wire.ToolCodes
	var got, want []string
	for _, e := range doc.ToolErrors {
		got = append(got, e.Code)
	}
	for _, c := range table {
		want = append(want, c.Code)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("x-tool-errors lists %v, the tools' table %v; regenerate %s (go test ./rpc -run TestOpenRPCFileIsCurrent -update)", got, want, openRPCFile)
	}
	for i, c := range table {
		e := doc.ToolErrors[i]
		if e.Retriable != c.Retriable {
			t.Errorf("%s: retriable %v in the document, %v in the table", c.Code, e.Retriable, c.Retriable)
		}
		if (e.Details != nil) != (c.Details != nil) {
			t.Errorf("%s: details in the document %v, a details type in the table %v", c.Code, e.Details != nil, c.Details)
			continue
		}
		if c.Details != nil {
			if names := jsonNames(c.Details); !slices.Equal(sortedKeys(e.Details.Properties), names) {
				t.Errorf("%s: details members %v in the document, %v in %s", c.Code, sortedKeys(e.Details.Properties), names, c.Details)
			}
		}
	}
	if names := jsonNames(reflect.TypeFor[wire.RepeatGuardDetails]()); !slices.Equal(sortedKeys(doc.RepeatGuard.Properties), names) {
		t.Errorf("x-repeat-guard-details members %v, want %v", sortedKeys(doc.RepeatGuard.Properties), names)
	}
	if doc.Components.Schemas["LineText"] == nil {
		t.Error("components.schemas lacks LineText, which details refer to")
	}
}

func jsonNames(t reflect.Type) []string {
	var names []string
	for _, f := range jsonFields(t) {
		names = append(names, f.name)
	}
	slices.Sort(names)
	return names
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// components.errors decodes as it is written, in wire-contract §2's
// order, so a Go client of rpc.discover reads the codes the daemon sent.
func TestOpenRPCErrorsRoundTrip(t *testing.T) {
	want := wireErrors()
	b, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	var got wire.OpenRPCErrors
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("decoded %+v, want %+v", got, want)
	}
	if err := json.Unmarshal([]byte(`{"A":{"code":1,"message":"B"}}`), &got); err == nil {
		t.Error("an error whose name is not its message decoded")
	}
}
