package tools

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/rpc/wire"
)

// A client string of any size quoted in an error (here a 4 MB path) makes
// an answer of a few KiB, not one as large as what was sent.
func TestErrorMessagesQuoteAShortPrefix(t *testing.T) {
	e := newProdEnv(t, config.DefaultLimits())
	huge := strings.Repeat("p", 4<<20)
	for _, tool := range []string{"read", "write", "edit"} {
		out := e.call(tool, map[string]any{"path": "../" + huge, "content": "x", "tag": "ABCD", "ops": "CUT 1.=1"})
		raw, _ := json.Marshal(out)
		if out.Base().OK || len(raw) > 16<<10 {
			t.Errorf("%s: ok=%v, answer of %d bytes", tool, out.Base().OK, len(raw))
		}
	}
}

// A tool argument error names the tool's own fields, not Go's decoder.
func TestArgumentErrorsNameTheToolsFields(t *testing.T) {
	e := newProdEnv(t, config.DefaultLimits())
	msg := e.failure("read", map[string]any{"file": "a.txt"}, wire.ToolInvalidArgument)
	if strings.Contains(msg, "json:") || !strings.Contains(msg, `"file"`) || !strings.Contains(msg, `"path", "offset", "limit"`) {
		t.Fatalf("message %q", msg)
	}
}

// Reusing a toolCallId within a session is the client's mistake, named as
// such (INVALID_ARGUMENT), not an I/O failure; nothing is written.
func TestReusedToolCallIDIsInvalidArgument(t *testing.T) {
	e := newProdEnv(t, config.DefaultLimits())
	e.x, _ = reviewedExecutor(t, e.m, e.lim)
	run := func(content string) *wire.ToolResult {
		raw, _ := json.Marshal(map[string]any{"path": "a.txt", "content": content})
		out, _ := e.x.Execute(context.Background(), Request{SessionID: e.s.ID, Tool: "write", Args: raw, ToolCallID: "call-1"})
		return out.Base()
	}
	if r := run("one\n"); !r.OK {
		t.Fatal(r.Content)
	}
	r := run("two\n")
	if r.OK || r.Error.Code != wire.ToolInvalidArgument || !strings.Contains(r.Error.Message, "toolCallId") {
		t.Fatalf("got ok=%v %+v", r.OK, r.Error)
	}
	if got := e.cat("a.txt"); got != "one\n" {
		t.Fatalf("content %q", got)
	}
}

// Every tool call is logged with its session, tool, id, path, outcome and
// duration: mutations and failures at info, a successful read at debug.
func TestToolCallsAreLogged(t *testing.T) {
	core, logs := observer.New(zap.DebugLevel)
	e := newProdEnv(t, config.DefaultLimits())
	e.x = NewExecutor(Options{Sessions: e.m, Limits: e.lim, Tools: Builtin(), Log: zap.New(core)})
	e.write(map[string]any{"path": "a.txt", "content": "x\n"})
	e.read(map[string]any{"path": "a.txt"})
	e.failure("edit", map[string]any{"path": "a.txt", "tag": "0000", "ops": "CUT 1.=1"}, wire.ToolTagUnknown)
	got := logs.FilterMessage("tool call").All()
	if len(got) != 3 {
		t.Fatalf("%d tool call logs, want 3", len(got))
	}
	want := []struct {
		tool, outcome string
		level         zapcore.Level
	}{{"write", "ok", zap.InfoLevel}, {"read", "ok", zap.DebugLevel}, {"edit", wire.ToolTagUnknown, zap.InfoLevel}}
	for i, w := range want {
		f := got[i].ContextMap()
		if f["tool"] != w.tool || f["outcome"] != w.outcome || got[i].Level != w.level || f["path"] != "a.txt" || f["session"] != e.s.ID || f["toolCallId"] == "" {
			t.Errorf("log %d: %v %v, want %s %s at %v", i, got[i].Level, f, w.tool, w.outcome, w.level)
		}
	}
}

// After a rollback (or an MV or REM) drops a tag, an edit with it is told
// what happened to that version, not that the session never read it.
func TestEditWithADroppedTagSaysWhy(t *testing.T) {
	e := newEditEnv(t)
	e.write("a.txt", "one\n")
	tag := e.showAll("a.txt")
	e.s.State().Store.Invalidate(filepath.Join(e.root, "a.txt"), "was rolled back (review.rollback call-1)")
	r := e.edit("a.txt", tag, "PUT 1.=1:\n+ONE")
	if r.OK || r.Error.Code != wire.ToolTagUnknown || !strings.Contains(r.Error.Message, "was rolled back (review.rollback call-1)") || strings.Contains(r.Error.Message, "never read") {
		t.Fatalf("got %+v", r.Error)
	}
	// A new read mints the tag again; the old reason is gone with it.
	tag = e.showAll("a.txt")
	if r := e.edit("a.txt", tag, "PUT 1.=1:\n+ONE"); !r.OK {
		t.Fatalf("after a read: %s", r.Content)
	}
}
