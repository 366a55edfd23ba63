package main

import (
	"encoding/json"
	"testing"

	"github.com/hostd-dev/hostd/rpc/wire"
)

// The tag a benchmark edits with is read from the tool's own result type,
// as the daemon sent it.
func TestTagOfReadsTheToolsResult(t *testing.T) {
	for tool, sent := range map[string]any{
		"read":  wire.ReadResult{ToolResult: wire.ToolResult{OK: true}, Tag: "AB12"},
		"write": wire.WriteResult{ToolResult: wire.ToolResult{OK: true}, Tag: "AB12"},
		"edit":  wire.EditResult{ToolResult: wire.ToolResult{OK: true}, Tag: "AB12"},
		"grep":  wire.GrepResult{ToolResult: wire.ToolResult{OK: true}, Tags: map[string]string{"a.go": "CD34"}},
	} {
		b, _ := json.Marshal(sent)
		var res wire.ExecuteResult
		if err := json.Unmarshal(b, &res); err != nil {
			t.Fatal(err)
		}
		want := "AB12"
		if tool == "grep" {
			want = ""
		}
		if tag, err := tagOf(tool, &res); err != nil || tag != want {
			t.Errorf("%s: tag %q, %v; want %q", tool, tag, err, want)
		}
	}
	res := wire.ExecuteResult{Raw: json.RawMessage(`{"ok":true,"tag":["AB12"]}`)}
	if _, err := tagOf("edit", &res); err == nil {
		t.Error("a tag that is a list was read")
	}
}
