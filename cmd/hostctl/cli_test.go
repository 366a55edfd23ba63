package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sourcegraph/jsonrpc2"
)

// daemonWithCannedResults serves every read-only method hostctl calls.
func daemonWithCannedResults(t *testing.T) *fakeDaemon {
	return startFake(t, map[string]fakeMethod{
		"host.info":     canned(infoJSON),
		"session.list":  canned(sessionsJSON),
		"debug.stats":   canned(statsJSON),
		"debug.session": canned(sessionJSON),
		"review.list":   canned(reviewJSON),
	})
}

func TestCommandsPrintTables(t *testing.T) {
	d := daemonWithCannedResults(t)
	tests := []struct {
		args   []string
		method string
		params string // what hostctl must send; "" for no params member
		want   []string
	}{
		{[]string{"info"}, "host.info", "", []string{"version   0.1.0", "socket    " + d.socket, "maxFrameBytes               67108864 (64 MiB)"}},
		{[]string{"sessions"}, "session.list", "", []string{"SESSION  WORKSPACE", "agent-2  /src/lib"}},
		{[]string{"stats"}, "debug.stats", "", []string{"tools.execute  12     1       850µs  12.5ms"}},
		{[]string{"session", "s-1"}, "debug.session", `{"sessionId":"s-1"}`, []string{"main.go     A1B2", "@fn"}},
		{[]string{"review", "list", "s-1"}, "review.list", `{"sessionId":"s-1"}`, []string{"tc-2       edit", "+hello"}},
		{[]string{"review", "list", "s-1", "main.go"}, "review.list", `{"path":"main.go","sessionId":"s-1"}`, []string{"rolled back"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			before := len(d.requests())
			code, out, errOut := runCLI(t, nil, "", append([]string{"--socket", d.socket}, tt.args...)...)
			if code != exitOK {
				t.Fatalf("exit %d, stderr:\n%s", code, errOut)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			reqs := d.requests()[before:]
			if len(reqs) != 1 || reqs[0].Method != tt.method {
				t.Fatalf("daemon received %+v, want one %s", reqs, tt.method)
			}
			if got := string(reqs[0].Params); got != tt.params {
				t.Errorf("params = %s, want %s", got, tt.params)
			}
		})
	}
}

// --json prints the result exactly as the daemon sent it, and flags work
// after the command as well as before it.
func TestJSONPrintsTheRawResult(t *testing.T) {
	d := daemonWithCannedResults(t)
	for _, tt := range []struct {
		args []string
		raw  string
	}{
		{[]string{"info", "--json"}, infoJSON},
		{[]string{"--json", "sessions"}, sessionsJSON},
		{[]string{"stats", "--json"}, statsJSON},
		{[]string{"session", "--json", "s-1"}, sessionJSON},
		{[]string{"review", "list", "s-1", "--json"}, reviewJSON},
	} {
		code, out, errOut := runCLI(t, nil, "", append(tt.args, "--socket", d.socket)...)
		if code != exitOK {
			t.Fatalf("%v: exit %d: %s", tt.args, code, errOut)
		}
		var got, want any
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%v: output is not JSON: %v\n%s", tt.args, err, out)
		}
		mustDecode(t, tt.raw, &want)
		gb, _ := json.Marshal(got)
		wb, _ := json.Marshal(want)
		if !bytes.Equal(gb, wb) {
			t.Errorf("%v: got %s, want %s", tt.args, gb, wb)
		}
	}
}

func TestCallSendsParamsAndPrintsTheResult(t *testing.T) {
	d := startFake(t, map[string]fakeMethod{
		"session.create": func(_ context.Context, p json.RawMessage) (any, error) {
			return map[string]any{"sessionId": "s-7", "echo": p}, nil
		},
		"host.info": canned(`{"name":"hostd"}`),
	})
	tests := []struct {
		name, stdin string
		args        []string
		params      string
	}{
		{"argument", "", []string{"call", "session.create", `{"workspace":"/w"}`}, `{"workspace":"/w"}`},
		{"stdin", " {\"workspace\":\"/in\"}\n", []string{"call", "session.create", "-"}, `{"workspace":"/in"}`},
		{"no params", "", []string{"call", "host.info"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(d.requests())
			code, out, errOut := runCLI(t, nil, tt.stdin, append([]string{"--socket", d.socket}, tt.args...)...)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if !json.Valid([]byte(out)) || !strings.HasSuffix(out, "\n") {
				t.Errorf("call did not print one JSON document:\n%s", out)
			}
			req := d.requests()[before]
			if string(req.Params) != tt.params {
				t.Errorf("sent params %s, want %s", req.Params, tt.params)
			}
		})
	}
}

// A wrong command line is exit 2 and never reaches a daemon: these runs
// point at a socket nobody listens on, which would be exit 3 if dialed.
func TestUsageErrorsSendNothing(t *testing.T) {
	nowhere := filepath.Join(shortSocketDir(t), "none.sock")
	tests := []struct {
		name  string
		args  []string
		stdin string
		want  string
	}{
		{"no command", nil, "", "usage: hostctl"},
		{"unknown command", []string{"frobnicate"}, "", `unknown command "frobnicate"`},
		{"missing session id", []string{"session"}, "", "usage: hostctl session ID"},
		{"extra argument", []string{"info", "extra"}, "", "usage: hostctl info"},
		{"review without subcommand", []string{"review"}, "", "list, rollback or rewind"},
		{"rollback without tool call", []string{"review", "rollback", "s-1"}, "", "usage: hostctl review rollback SESSION TOOLCALL"},
		{"params not JSON", []string{"call", "m", "{nope"}, "", "not valid JSON"},
		{"params a scalar", []string{"call", "m", "42"}, "", "object or array"},
		{"stdin params not JSON", []string{"call", "m", "-"}, "nope", "not valid JSON"},
		{"unknown flag", []string{"--colour", "info"}, "", "flag provided but not defined"},
		{"bad timeout", []string{"--timeout", "0s", "info"}, "", "--timeout must be positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, nil, tt.stdin, append([]string{"--socket", nowhere}, tt.args...)...)
			if code != exitUsage {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitUsage, errOut)
			}
			if out != "" {
				t.Errorf("printed to stdout on a usage error: %q", out)
			}
			if !strings.Contains(errOut, tt.want) {
				t.Errorf("stderr lacks %q:\n%s", tt.want, errOut)
			}
		})
	}
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}} {
		code, out, _ := runCLI(t, nil, "", append([]string{"--socket", "/nonexistent/s"}, args...)...)
		if code != exitOK || !strings.Contains(out, "review rollback SESSION TOOLCALL") {
			t.Errorf("%v: exit %d, output:\n%s", args, code, out)
		}
	}
}

// Help for one command or family: `hostctl help review` and `hostctl
// review --help` print the review commands, and only those; an unknown
// topic is a usage error naming it.
func TestHelpForACommand(t *testing.T) {
	for _, args := range [][]string{{"help", "review"}, {"review", "--help"}, {"review", "-h"}} {
		code, out, errOut := runCLI(t, nil, "", append([]string{"--socket", "/nonexistent/s"}, args...)...)
		if code != exitOK || !strings.Contains(out, "review rollback SESSION TOOLCALL undo every change of one tool call") ||
			!strings.Contains(out, "review list SESSION [PATH]") || strings.Contains(out, "sessions                  every live session") {
			t.Errorf("%v: exit %d, output:\n%s%s", args, code, out, errOut)
		}
	}
	code, out, _ := runCLI(t, nil, "", "help", "watch")
	if code != exitOK || !strings.Contains(out, "watch [SESSION]") || !strings.Contains(out, "(--json: one review.recorded per line") {
		t.Errorf("help watch: exit %d, output:\n%s", code, out)
	}
	code, _, errOut := runCLI(t, nil, "", "help", "reviwe")
	if code != exitUsage || !strings.Contains(errOut, `no command "reviwe"`) {
		t.Errorf("help reviwe: exit %d, stderr:\n%s", code, errOut)
	}
}

// Errors print the wire-contract §2 name (from error.data.code, or from the code
// for protocol errors, which carry no data), the code and the message, and
// exit 1.
func TestDaemonErrorsAreNamed(t *testing.T) {
	d := startFake(t, map[string]fakeMethod{
		"debug.session": appError(-32001, "SESSION_NOT_FOUND", `session not found: "s-0" (create it with session.create)`, nil),
		"bad.params":    appError(jsonrpc2.CodeInvalidParams, "INVALID_PARAMS", "params.workspace: must be a string", map[string]any{"field": "params.workspace"}),
		"no.data": func(context.Context, json.RawMessage) (any, error) {
			return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: "bad"}
		},
		"weird": func(context.Context, json.RawMessage) (any, error) {
			return nil, &jsonrpc2.Error{Code: -31999, Message: "something new"}
		},
		"cancelled": func(context.Context, json.RawMessage) (any, error) {
			return nil, &jsonrpc2.Error{Code: -32800, Message: "request cancelled"}
		},
		"detailed": appError(-32003, "ROLLBACK_CONFLICT", "a file changed since", map[string]any{"paths": []string{"a.go"}}),
	})
	tests := []struct {
		args   []string
		want   []string
		absent string // a params error's field is in its message already
	}{
		{[]string{"session", "s-0"}, []string{`hostctl: SESSION_NOT_FOUND (-32001): session not found: "s-0" (create it with session.create)`}, ""},
		{[]string{"call", "no.such.method"}, []string{"hostctl: METHOD_NOT_FOUND (-32601): method not found: no.such.method"}, ""},
		{[]string{"call", "bad.params", "{}"}, []string{"hostctl: INVALID_PARAMS (-32602): params.workspace: must be a string\n"}, "details"},
		{[]string{"call", "no.data"}, []string{"hostctl: INVALID_PARAMS (-32602): bad"}, ""},
		{[]string{"call", "weird"}, []string{"hostctl: ERROR (-31999): something new"}, ""},
		{[]string{"call", "cancelled"}, []string{"hostctl: REQUEST_CANCELLED (-32800): request cancelled"}, ""},
		{[]string{"call", "detailed"}, []string{"ROLLBACK_CONFLICT (-32003)", `details: {"paths":["a.go"]}`}, ""},
	}
	for _, tt := range tests {
		code, out, errOut := runCLI(t, nil, "", append([]string{"--socket", d.socket}, tt.args...)...)
		if code != exitFailed {
			t.Errorf("%v: exit %d, want %d", tt.args, code, exitFailed)
		}
		if out != "" {
			t.Errorf("%v: printed a result on error: %q", tt.args, out)
		}
		for _, w := range tt.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%v: stderr lacks %q:\n%s", tt.args, w, errOut)
			}
		}
		if tt.absent != "" && strings.Contains(errOut, tt.absent) {
			t.Errorf("%v: stderr has %q:\n%s", tt.args, tt.absent, errOut)
		}
	}
}

// The completion scripts come from the command table: every command's
// first word, and the second words of review, session and completion.
func TestCompletionCoversEveryCommand(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish"} {
		var out, errb bytes.Buffer
		code := run(context.Background(), []string{"completion", shell}, stdio{out: &out, err: &errb}, func(string) string { return "" })
		if code != exitOK {
			t.Fatalf("completion %s: exit %d: %s", shell, code, errb.String())
		}
		for _, c := range commands {
			for w := range strings.FieldsSeq(c.name) {
				if !strings.Contains(out.String(), w) {
					t.Errorf("%s completion lacks %q (of %q)", shell, w, c.name)
				}
			}
		}
		for _, w := range []string{"rollback", "delete", "watch", "shutdown", "socket", "version"} {
			if !strings.Contains(out.String(), w) {
				t.Errorf("%s completion lacks %q", shell, w)
			}
		}
	}
	var errb bytes.Buffer
	if code := run(context.Background(), []string{"completion", "tcsh"}, stdio{out: io.Discard, err: &errb}, func(string) string { return "" }); code != exitUsage {
		t.Errorf("completion tcsh: exit %d, want %d", code, exitUsage)
	}
}
