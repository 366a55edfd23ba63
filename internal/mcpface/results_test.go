package mcpface

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tools have a top-level title and, with Options.Structured, an output
// schema, and the server gives the host instructions (MCP 2025-06-18).
func TestToolsHaveTitlesAndOutputSchemas(t *testing.T) {
	cs := connect(t, newStructuredFace(t, daemon(t), project(t)), nil)
	if got := cs.InitializeResult().Instructions; !strings.Contains(got, "[PATH#TAG]") {
		t.Errorf("instructions %q", got)
	}
	listed, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range listed.Tools {
		if tool.Title == "" || tool.Annotations == nil || tool.Title != tool.Annotations.Title {
			t.Errorf("%s: title %q, annotations %+v", tool.Name, tool.Title, tool.Annotations)
		}
		s, _ := tool.OutputSchema.(map[string]any)
		if s["type"] != "object" {
			t.Errorf("%s: output schema %v", tool.Name, tool.OutputSchema)
		}
	}
}

// schemas are the listed tools' output schemas, resolved for validation.
func schemas(t *testing.T, cs *mcp.ClientSession) map[string]*jsonschema.Resolved {
	t.Helper()
	listed, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*jsonschema.Resolved{}
	for _, tool := range listed.Tools {
		raw, _ := json.Marshal(tool.OutputSchema)
		var s jsonschema.Schema
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatalf("%s: %v", tool.Name, err)
		}
		r, err := s.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: output schema does not resolve: %v\n%s", tool.Name, err, raw)
		}
		out[tool.Name] = r
	}
	return out
}

// Every result, success or failure, carries structuredContent that fits
// the tool's output schema: the whole tools.execute result, its content
// the text block the model reads, so a host finds the tag, the regions
// and the error code without parsing text.
func TestResultsAreStructured(t *testing.T) {
	d := daemon(t)
	cs := connect(t, newStructuredFace(t, d, project(t)), nil)
	check := schemas(t, cs)
	structured := func(tool string, args map[string]any) map[string]any {
		t.Helper()
		res := call(t, cs, tool, args)
		var sc map[string]any
		raw, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(raw, &sc); err != nil {
			t.Fatalf("%s %v: structuredContent %s", tool, args, raw)
		}
		if err := check[tool].Validate(sc); err != nil {
			t.Errorf("%s %v: structuredContent does not fit the output schema: %v\n%s", tool, args, err, raw)
		}
		if sc["content"] != text(t, res) || sc["ok"] != !res.IsError {
			t.Errorf("%s %v: structuredContent %s, text %q", tool, args, raw, text(t, res))
		}
		return sc
	}

	read := structured("read", map[string]any{"path": "main.go"})
	tag, _ := read["tag"].(string)
	if !strings.HasPrefix(read["content"].(string), "[main.go#"+tag+"]\n") {
		t.Errorf("read: structured tag %q, content %q", tag, read["content"])
	}
	edit := structured("edit", map[string]any{"path": "main.go", "tag": tag, "ops": "PUT 4.=4:\n+\tprintln(\"a\")\n+\tprintln(\"b\")", "result": "compact"})
	if regions, _ := edit["regions"].([]any); len(regions) != 1 || edit["tag"] == tag {
		t.Errorf("edit: regions %v, tag %v", edit["regions"], edit["tag"])
	}
	failed := structured("edit", map[string]any{"path": "main.go", "tag": tag, "ops": "PUT 9.=9:\n+x"})
	if e, _ := failed["error"].(map[string]any); failed["ok"] != false || e["code"] == nil {
		t.Errorf("failed edit: %v", failed)
	}
	structured("read", map[string]any{"path": "nothing.txt"})
	structured("read", map[string]any{"path": "main.go", "mode": "outline"})
	structured("grep", map[string]any{"pattern": "println"})
	structured("grep", map[string]any{"pattern": "no such text anywhere"})
	structured("grep", map[string]any{"pattern": "println", "outputMode": "count"})
	structured("grep", map[string]any{"pattern": "println", "outputMode": "filesWithMatches"})
	structured("grep", map[string]any{"pattern": "("})
	structured("write", map[string]any{"path": "new/file.txt", "content": "x\n"})
	structured("write", map[string]any{"path": "../escape.txt", "content": "x\n"})
	structured("read", map[string]any{"path": 7})
}

// A call the face refuses before the daemon runs it is structured like a
// failed tool result, with the error's code.
func TestFaceFailuresAreStructured(t *testing.T) {
	d := daemon(t)
	f, err := New(context.Background(), Options{Daemon: d, Roots: []string{project(t)}, Version: "test", MaxFrameBytes: envelopeBytes + 10, Structured: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close(context.Background()) })
	cs := connect(t, f, nil)
	res := call(t, cs, "write", map[string]any{"path": "a.txt", "content": strings.Repeat("x", 100)})
	raw, _ := json.Marshal(res.StructuredContent)
	var sc map[string]any
	json.Unmarshal(raw, &sc)
	if err := schemas(t, cs)["write"].Validate(sc); err != nil {
		t.Errorf("structuredContent does not fit: %v\n%s", err, raw)
	}
	if e, _ := sc["error"].(map[string]any); !res.IsError || e["code"] != "FILE_TOO_LARGE" || sc["content"] != text(t, res) {
		t.Errorf("isError=%v %s", res.IsError, raw)
	}
}

// The output schema requires the tool's own fields only of a result
// whose ok is true, and error of one whose ok is false.
func TestOutputSchemaSeparatesSuccessAndFailure(t *testing.T) {
	base := map[string]any{"required": []any{"ok", "content"}}
	result := map[string]any{
		"additionalProperties": false,
		"properties": map[string]any{"ok": map[string]any{"type": "boolean"}, "content": map[string]any{"type": "string"},
			"tag": map[string]any{"type": "string"}, "error": map[string]any{"type": "object", "additionalProperties": false}},
		"required": []any{"ok", "content", "tag"},
	}
	raw, _ := json.Marshal(outputSchema(result, base))
	var s jsonschema.Schema
	json.Unmarshal(raw, &s)
	r, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	for doc, valid := range map[string]bool{
		`{"ok":true,"content":"x","tag":"ABCD"}`:                   true,
		`{"ok":true,"content":"x","tag":"ABCD","newField":1}`:      true,
		`{"ok":true,"content":"x"}`:                                false,
		`{"ok":false,"content":"x","error":{"code":"E","more":1}}`: true,
		`{"ok":false,"content":"x"}`:                               false,
		`{"content":"x","tag":"ABCD"}`:                             false,
	} {
		var v any
		json.Unmarshal([]byte(doc), &v)
		if err := r.Validate(v); (err == nil) != valid {
			t.Errorf("%s: valid=%v, want %v (%v)", doc, err == nil, valid, err)
		}
	}
}

// discoverRefused is a daemon that refuses rpc.discover, as one whose
// maxFrameBytes is smaller than the document does.
type discoverRefused struct{ Daemon }

func (d discoverRefused) Call(ctx context.Context, method string, params, result any) error {
	if method == "rpc.discover" {
		return &CallError{Code: -32008, Name: "RESULT_TOO_LARGE", Message: "the result of rpc.discover is 32326 bytes"}
	}
	return d.Daemon.Call(ctx, method, params, result)
}

// Without the daemon's result schemas the tools still work, structured
// results asked for or not: no output schema, no structured content.
func TestNoResultSchemasNoStructuredContent(t *testing.T) {
	cs := connect(t, newStructuredFace(t, discoverRefused{daemon(t)}, project(t)), nil)
	listed, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(listed.Tools) != 5 || listed.Tools[0].OutputSchema != nil {
		t.Fatalf("tools/list: %v %+v", err, listed)
	}
	res := call(t, cs, "read", map[string]any{"path": "main.go"})
	if res.IsError || res.StructuredContent != nil || !header.MatchString(text(t, res)) {
		t.Errorf("read: isError=%v structured=%v %q", res.IsError, res.StructuredContent, text(t, res))
	}
}

// By default a tool has no output schema and a result is its text block
// alone, with the session and the call named in _meta: a host that gives
// the model structuredContent instead of the text (Claude Code), or both,
// would otherwise pay several times the tokens for the same result. The
// figures are the bytes of what such a host shows the model.
func TestResultsAreTheTextByDefault(t *testing.T) {
	d := daemon(t)
	dir := project(t)
	plain := connect(t, newFace(t, d, dir), nil)
	structured := connect(t, newStructuredFace(t, d, dir), nil)
	listed, err := plain.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range listed.Tools {
		if tool.OutputSchema != nil {
			t.Errorf("%s has an output schema", tool.Name)
		}
	}
	shown := func(res *mcp.CallToolResult) int {
		if res.StructuredContent != nil {
			raw, _ := json.Marshal(res.StructuredContent)
			return len(raw)
		}
		return len(text(t, res))
	}
	editOf := func(cs *mcp.ClientSession, word string) *mcp.CallToolResult {
		m := header.FindStringSubmatch(text(t, call(t, cs, "read", map[string]any{"path": "main.go"})))
		if m == nil {
			t.Fatal("no tag")
		}
		return call(t, cs, "edit", map[string]any{"path": "main.go", "tag": m[1], "ops": "PUT 4.=4:\n+\tprintln(\"" + word + "\")"})
	}
	for name, pair := range map[string][2]*mcp.CallToolResult{
		"grep": {call(t, plain, "grep", map[string]any{"pattern": "println"}), call(t, structured, "grep", map[string]any{"pattern": "println"})},
		"edit": {editOf(plain, "plain"), editOf(structured, "structured")},
	} {
		res, full := pair[0], pair[1]
		if res.IsError || full.IsError {
			t.Fatalf("%s: %q / %q", name, text(t, res), text(t, full))
		}
		meta, _ := json.Marshal(res.Meta)
		if res.StructuredContent != nil || res.Meta[MetaResult] != nil || res.Meta[MetaToolCallID] == nil || res.Meta[MetaSessionID] == nil {
			t.Errorf("%s: structuredContent %v, _meta %s", name, res.StructuredContent, meta)
		}
		t.Logf("%s: %d bytes shown by default, %d as structuredContent", name, shown(res), shown(full))
		if shown(full) < 2*shown(res) {
			t.Errorf("%s: structuredContent is %d bytes against the text's %d; this test's reason is gone", name, shown(full), shown(res))
		}
	}
}
