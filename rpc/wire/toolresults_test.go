package wire

import (
	"encoding/json"
	"reflect"
	"testing"
)

// A client decodes a tools.execute result into the tool's own type and
// gets every member the daemon sent back: the shared part and the tool's.
func TestExecuteResultDecodesEachToolsResult(t *testing.T) {
	shared := ToolResult{OK: true, Content: "c", ToolCallID: "t1", Warnings: []string{"w"}}
	for _, sent := range []any{
		&ReadResult{ToolResult: shared, Path: "a.go", Root: "/r", Offset: 1, LineCount: 2, TotalLines: 3, FileBytes: 4, Tag: "ABCD", Mode: "outline"},
		&GrepResult{ToolResult: shared, Matches: []GrepMatch{{Path: "a.go", Line: 2, Text: "x", Clipped: true}}, Files: []string{"a.go"}, Tags: map[string]string{"a.go": "ABCD"}, FilesSearched: 1},
		&WriteResult{ToolResult: shared, Path: "a.go", Tag: "ABCD", Created: true, Bytes: 9, SyntaxErrors: []SyntaxError{{StartLine: 3, EndLine: 4, Missing: "}"}}, Diagnostics: []Diagnostic{{Line: 1, EndLine: 1, Message: "m", Code: "c", Source: "s"}}},
		&EditResult{ToolResult: shared, Path: "a.go", Tag: "BCDE", Resolutions: []Resolution{{AnchorLine: 2, Start: 2, End: 5, Op: "PUT 2*"}}, Regions: []RegionSpan{{OldStart: 2, OldEnd: 5, NewStart: 2, NewEnd: 3, Shift: -2}}, DiagnosticsPending: true},
		&DiagnosticsResult{ToolResult: shared, Files: map[string][]Diagnostic{"a.go": {}}, Pending: []string{"b.go"}},
	} {
		b, err := json.Marshal(sent)
		if err != nil {
			t.Fatal(err)
		}
		var r ExecuteResult
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
		got := reflect.New(reflect.TypeOf(sent).Elem()).Interface()
		if err := r.Decode(got); err != nil {
			t.Fatalf("%T: %v", sent, err)
		}
		if !reflect.DeepEqual(got, sent) {
			t.Errorf("%T: decoded %+v, sent %+v", sent, got, sent)
		}
	}
	var wrong ReadResult
	r := ExecuteResult{Raw: json.RawMessage(`{"ok":true,"tag":7}`)}
	if err := r.Decode(&wrong); err == nil {
		t.Error("a tag that is a number decoded into read's result")
	}
}

// A client finds a tool's result schema by the name its x-tools entry
// refers to.
func TestSchemaRefNamesItsComponent(t *testing.T) {
	if name, ok := SchemaRef("ReadResult").RefName(); !ok || name != "ReadResult" {
		t.Errorf("RefName = %q, %v", name, ok)
	}
	for _, s := range []Schema{{"type": "object"}, {"$ref": "#/definitions/X"}, {"$ref": 7}} {
		if name, ok := s.RefName(); ok {
			t.Errorf("%v refers to %q", s, name)
		}
	}
}
