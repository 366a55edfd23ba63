package langserver

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/internal/spawn"
	"github.com/hostd-dev/hostd/rpc/wire"
)

// fakeEnv makes this test binary a fake language server, misbehaving in
// the way its value names.
const fakeEnv = "HOSTD_LANGSERVER_TEST_FAKE"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == spawn.Command {
		// The process spawner, for the servers a test starts through one.
		if err := spawn.Serve(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if mode := os.Getenv(fakeEnv); mode != "" {
		fakeServer(mode)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// fakeServer speaks just enough LSP to be a server that pushes, for each
// version of a document, one error per line holding "ERR", and
// misbehaves by mode:
//
//	ok          behaves
//	crash       ends at the first document it is sent
//	crashstart  ends before answering initialize
//	hang        reads everything and answers nothing
//	flood       pushes thousands of diagnostics for files nobody opened,
//	            and log messages, before each real push
//	stall       stops reading once initialized
//	stale       says its view of the workspace is stale (gopls's words,
//	            language.stale) in its push for every changed text
//	            (a version after the first)
//	stalealways says so in every push
func fakeServer(mode string) {
	if mode == "crashstart" {
		fmt.Fprintln(os.Stderr, "fake: cannot start")
		os.Exit(3)
	}
	r := wire.NewReader(os.Stdin, 64<<20)
	send := func(v any) {
		b, _ := json.Marshal(v)
		wire.WriteFrame(os.Stdout, b)
	}
	for {
		body, err := r.ReadFrame()
		if err != nil {
			return
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		json.Unmarshal(body, &msg)
		if mode == "hang" {
			continue
		}
		switch msg.Method {
		case "initialize":
			send(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": map[string]any{"capabilities": map[string]any{"textDocumentSync": 1}}})
		case "initialized":
			if mode == "stall" {
				select {}
			}
		case "shutdown":
			send(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": nil})
		case "exit":
			return
		case "textDocument/didOpen", "textDocument/didChange":
			if mode == "crash" {
				fmt.Fprintln(os.Stderr, "fake: crashed on a document")
				os.Exit(2)
			}
			var p struct {
				TextDocument struct {
					URI     string `json:"uri"`
					Version int    `json:"version"`
					Text    string `json:"text"`
				} `json:"textDocument"`
				ContentChanges []struct {
					Text string `json:"text"`
				} `json:"contentChanges"`
			}
			json.Unmarshal(msg.Params, &p)
			text := p.TextDocument.Text
			if len(p.ContentChanges) > 0 {
				text = p.ContentChanges[0].Text
			}
			if mode == "flood" {
				for i := range 5000 {
					send(map[string]any{"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": map[string]any{
						"uri": fmt.Sprintf("file:///elsewhere/%d.go", i), "diagnostics": []any{map[string]any{"range": map[string]any{}, "message": "noise"}}}})
					send(map[string]any{"jsonrpc": "2.0", "method": "window/logMessage", "params": map[string]any{"type": 4, "message": "noise"}})
				}
			}
			var diags []any
			if mode == "stalealways" || mode == "stale" && p.TextDocument.Version > 1 {
				diags = append(diags, map[string]any{"severity": 1, "message": `could not import example.com/w (missing metadata for import of "example.com/w")`,
					"range": map[string]any{"start": map[string]any{"line": 0}, "end": map[string]any{"line": 0}}})
			}
			line := 0
			for l := range strings.Lines(text) {
				if strings.Contains(l, "ERR") {
					diags = append(diags, map[string]any{"severity": 1, "message": "fake error: " + l,
						"range": map[string]any{"start": map[string]any{"line": line}, "end": map[string]any{"line": line}}})
				}
				line++
			}
			send(map[string]any{"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": map[string]any{
				"uri": p.TextDocument.URI, "version": p.TextDocument.Version, "diagnostics": append([]any{}, diags...)}})
		default:
			if len(msg.ID) > 0 && msg.Method != "" {
				send(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "error": map[string]any{"code": -32601, "message": "no"}})
			}
		}
	}
}
