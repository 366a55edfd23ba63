package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/internal/testenv"
)

// A real hostd runs gopls for a session's workspace: a write that breaks
// the program reports the error (or that it is pending, and the
// diagnostics tool then has it), and hostctl lsp shows the server.
func TestLanguageServersAgainstRealHostd(t *testing.T) {
	testenv.LanguageServer(t, "gopls")
	hc, _, _ := realHostctl(t)
	if out := hc("lsp"); !strings.Contains(out, "no language server started yet") {
		t.Fatalf("hostctl lsp before any: %s", out)
	}
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "go.mod"), []byte("module example.com/a\n\ngo 1.22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	hc("call", "session.create", `{"workspace":`+strconv.Quote(ws)+`,"sessionId":"lsp"}`)
	args, _ := json.Marshal(map[string]any{"sessionId": "lsp", "tool": "write", "args": map[string]string{
		"path": "a.go", "content": "package a\n\nfunc F() int {\n\treturn \"one\"\n}\n"}})
	var w struct {
		OK                 bool   `json:"ok"`
		Content            string `json:"content"`
		DiagnosticsPending bool   `json:"diagnosticsPending"`
		Diagnostics        []struct {
			Line int `json:"line"`
		} `json:"diagnostics"`
	}
	if err := json.Unmarshal([]byte(hc("call", "tools.execute", string(args))), &w); err != nil || !w.OK {
		t.Fatalf("write: %v %+v", err, w)
	}
	if !w.DiagnosticsPending && (len(w.Diagnostics) != 1 || w.Diagnostics[0].Line != 4 || !strings.Contains(w.Content, "diagnostics (go): this change left 1 new error")) {
		t.Fatalf("write's diagnostics: %+v", w)
	}
	// The diagnostics tool answers once the server has (each call waits
	// for it within its bound; a cold start may take a few).
	args, _ = json.Marshal(map[string]any{"sessionId": "lsp", "tool": "diagnostics", "args": map[string]string{"path": "a.go"}})
	for attempt := 0; ; attempt++ {
		var d struct {
			OK      bool                         `json:"ok"`
			Content string                       `json:"content"`
			Files   map[string][]json.RawMessage `json:"files"`
			Pending []string                     `json:"pending"`
		}
		if err := json.Unmarshal([]byte(hc("call", "tools.execute", string(args), "--timeout", "60s")), &d); err != nil || !d.OK {
			t.Fatalf("diagnostics: %v %+v", err, d)
		}
		if len(d.Pending) == 0 {
			if len(d.Files["a.go"]) != 1 || !strings.Contains(d.Content, "line 4: ") {
				t.Fatalf("diagnostics: %+v", d)
			}
			break
		}
		if attempt == 10 {
			t.Fatalf("diagnostics still pending after %d calls", attempt+1)
		}
	}
	out := hc("lsp")
	canon, _ := filepath.EvalSymlinks(ws)
	if !strings.Contains(out, canon) || !strings.Contains(out, " go ") || !strings.Contains(out, " ready ") || !strings.Contains(out, "REFRESHES") {
		t.Fatalf("hostctl lsp:\n%s", out)
	}
	var l struct {
		Enabled bool `json:"enabled"`
		Servers []struct {
			State     string `json:"state"`
			Documents int    `json:"documents"`
		} `json:"servers"`
	}
	if err := json.Unmarshal([]byte(hc("lsp", "--json")), &l); err != nil || !l.Enabled || len(l.Servers) != 1 || l.Servers[0].State != "ready" || l.Servers[0].Documents != 1 {
		t.Fatalf("hostctl lsp --json: %v %+v", err, l)
	}
}
