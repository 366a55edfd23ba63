package main

import (
	"os"
	"path/filepath"
	"testing"
)

// The daemon wires read's outline mode to the grammars and the compact
// edit result to session.create: outline, read the block, edit it in a
// compact session, all over the socket.
func TestE2EOutlineThenCompactEdit(t *testing.T) {
	d := startDaemon(t, "")
	c := d.client()
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "a.py"), []byte("import os\n\n\ndef f():\n    return 1\n\n\nx = 2\n"), 0o644)
	var ref struct {
		SessionID  string
		EditResult string
	}
	mustCall(t, c, "session.create", map[string]any{"workspace": ws, "editResult": "compact"}, &ref)
	if ref.EditResult != "compact" {
		t.Fatalf("session.create: %+v", ref)
	}
	var outline, block, edit map[string]any
	mustCall(t, c, "tools.execute", map[string]any{"sessionId": ref.SessionID, "tool": "read", "args": map[string]any{"path": "a.py", "mode": "outline"}}, &outline)
	want := "[a.py#" + outline["tag"].(string) + "]\n4:def f():  …5\n8:x = 2\n(outline: 2 rows of 8 lines)"
	if outline["content"] != want {
		t.Fatalf("outline %q, want %q", outline["content"], want)
	}
	mustCall(t, c, "tools.execute", map[string]any{"sessionId": ref.SessionID, "tool": "read", "args": map[string]any{"path": "a.py", "offset": 4, "limit": 2}}, &block)
	mustCall(t, c, "tools.execute", map[string]any{"sessionId": ref.SessionID, "tool": "edit", "args": map[string]any{"path": "a.py#" + block["tag"].(string), "ops": "PUT 5:\n+    return 3"}}, &edit)
	// In place and the same size: the new tag is all there is to say.
	if edit["content"] != "#"+edit["tag"].(string) {
		t.Fatalf("edit: %v", edit)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "a.py")); string(b) != "import os\n\n\ndef f():\n    return 3\n\n\nx = 2\n" {
		t.Errorf("after the edit: %q", b)
	}
}
