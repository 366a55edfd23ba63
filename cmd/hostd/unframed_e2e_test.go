package main

import (
	"bufio"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/internal/testenv"
)

// A client that speaks newline-delimited JSON (an MCP client pointed at
// hostd --stdio, or a person typing a request) gets an answer it can read
// instead of a silent hang-up: one line of JSON, PARSE_ERROR with its
// request's id, naming the framing hostd reads; then hostd --stdio ends.
// Served in the process (--standalone) and forwarded to a shared daemon
// on a socket alike.
func TestE2EStdioAnswersNewlineDelimitedJSON(t *testing.T) {
	shared := startDaemon(t, "")
	for _, tt := range []struct {
		name string
		args []string
	}{
		{"standalone", []string{"--stdio", "--standalone"}},
		{"forwarded", []string{"--stdio", "--socket", shared.socket}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := testenv.Start(t, testenv.Options{Bin: hostdBinary(t), Args: tt.args, Stdio: true})
			d.Stdin.Write([]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}` + "\n"))

			lines := make(chan string, 2)
			go func() {
				r := bufio.NewReader(d.Stdout)
				for {
					line, err := r.ReadString('\n')
					if line != "" {
						lines <- line
					}
					if err != nil {
						close(lines)
						return
					}
				}
			}()
			var line string
			select {
			case line = <-lines:
			case <-time.After(30 * time.Second):
				t.Fatal("no answer on stdout within 30 s")
			}
			var r struct {
				ID    json.RawMessage `json:"id"`
				Error struct {
					Code    int64  `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal([]byte(line), &r); err != nil || string(r.ID) != "0" || r.Error.Code != -32700 {
				t.Fatalf("stdout line %q: want a PARSE_ERROR answer to id 0 (%v)", line, err)
			}
			for _, want := range []string{"Content-Length", "hostd mcp"} {
				if !strings.Contains(r.Error.Message, want) {
					t.Errorf("the message lacks %q: %s", want, r.Error.Message)
				}
			}
			select {
			case more, open := <-lines:
				if open {
					t.Errorf("stdout went on after the answer: %q", more)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("stdout stayed open after the answer")
			}
			d.Require(testenv.Exit(), 30*time.Second) // once its connection was closed
		})
	}
}
