package wire

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Every tool code declared here has one row in ToolCodes, but the one no
// tool result carries, so a new code cannot reach the wire without
// clients knowing it (the OpenRPC document's x-tool-errors is made from
// the table).
func TestEveryToolCodeHasARow(t *testing.T) {
	var rows []string
	for _, c := range ToolCodes {
		if slices.Contains(rows, c.Code) {
			t.Errorf("%s has two rows", c.Code)
		}
		rows = append(rows, c.Code)
	}
	f, err := parser.ParseFile(token.NewFileSet(), "codes.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	declared := 0
	ast.Inspect(f, func(n ast.Node) bool {
		spec, ok := n.(*ast.ValueSpec)
		if !ok {
			return true
		}
		for i, name := range spec.Names {
			if !strings.HasPrefix(name.Name, "Tool") || i >= len(spec.Values) {
				continue
			}
			lit, ok := spec.Values[i].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				continue
			}
			code, _ := strconv.Unquote(lit.Value)
			declared++
			if code != ToolRetryBudgetExhausted && !slices.Contains(rows, code) {
				t.Errorf("%s (%s) has no row in ToolCodes", name.Name, code)
			}
		}
		return true
	})
	if declared != len(ToolCodes)+1 {
		t.Fatalf("found %d declared tool codes, want the table's %d rows and %s", declared, len(ToolCodes), ToolRetryBudgetExhausted)
	}
}

// A tools.execute result keeps the daemon's bytes and reads the shared
// part; one without the bytes encodes as its shared part.
func TestExecuteResultKeepsWhatWasSent(t *testing.T) {
	sent := `{"ok":false,"content":"Error EDIT_TAG_UNKNOWN: read it","toolCallId":"c1","warnings":[],"error":{"code":"EDIT_TAG_UNKNOWN","message":"read it","retriable":true,"details":{"liveTag":"ABCD"}},"tag":"ABCD"}`
	var r ExecuteResult
	if err := r.UnmarshalJSON([]byte(sent)); err != nil {
		t.Fatal(err)
	}
	if r.OK || r.ToolCallID != "c1" || r.Error == nil || r.Error.Code != ToolTagUnknown || !r.Error.Retriable {
		t.Errorf("decoded %+v", r.ToolResult)
	}
	if b, _ := r.MarshalJSON(); string(b) != sent {
		t.Errorf("encoded %s, want what was sent", b)
	}
	fields, err := r.Fields()
	if err != nil || string(fields["tag"]) != `"ABCD"` {
		t.Errorf("fields %v, %v", fields, err)
	}
	b, _ := ExecuteResult{ToolResult: ToolResult{OK: true, Content: "x", Warnings: []string{}}}.MarshalJSON()
	if string(b) != `{"ok":true,"content":"x","toolCallId":"","warnings":[]}` {
		t.Errorf("without Raw: %s", b)
	}
	if err := r.UnmarshalJSON([]byte(`[1]`)); err == nil {
		t.Error("an array decoded as a result")
	}
}
