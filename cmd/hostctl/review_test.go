package main

import (
	"strings"
	"testing"
)

func TestReviewRollback(t *testing.T) {
	d := startFake(t, map[string]fakeMethod{
		"review.rollback": canned(`{"restored":["main.go"]}`),
		"review.list":     canned(reviewJSON),
	})
	code, out, errOut := runCLI(t, nil, "", "--socket", d.socket, "review", "rollback", "s-1", "tc-2")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	reqs := d.requests()
	if reqs[0].Method != "review.rollback" || string(reqs[0].Params) != `{"sessionId":"s-1","toolCallId":"tc-2"}` {
		t.Errorf("first request %s %s, want review.rollback of s-1/tc-2", reqs[0].Method, reqs[0].Params)
	}
	for _, w := range []string{"restored 1 path(s)", "undone changes (as the tool call made them):", "entry r-2", "+b"} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	// Only the rolled-back call's entries are shown as undone.
	if strings.Contains(out, "tc-1") {
		t.Errorf("output shows another tool call's entry:\n%s", out)
	}
}

func TestRollbackConflictIsReported(t *testing.T) {
	d := startFake(t, map[string]fakeMethod{
		"review.rollback": appError(-32003, "ROLLBACK_CONFLICT", "main.go changed since tool call tc-2; nothing was restored", nil),
	})
	code, out, errOut := runCLI(t, nil, "", "--socket", d.socket, "review", "rollback", "s-1", "tc-2")
	if code != exitFailed || out != "" {
		t.Fatalf("exit %d, stdout %q", code, out)
	}
	if !strings.Contains(errOut, "ROLLBACK_CONFLICT (-32003): main.go changed since tool call tc-2; nothing was restored") {
		t.Errorf("stderr:\n%s", errOut)
	}
}

// A daemon built without review records answers -32601; hostctl says what
// that means instead of printing a bare method-not-found.
func TestNoReviewSupport(t *testing.T) {
	d := startFake(t, map[string]fakeMethod{})
	for _, args := range [][]string{{"review", "list", "s-1"}, {"review", "rollback", "s-1", "tc-1"}, {"--json", "review", "list", "s-1"}} {
		code, _, errOut := runCLI(t, nil, "", append([]string{"--socket", d.socket}, args...)...)
		if code != exitFailed || !strings.Contains(errOut, "this daemon has no review support") {
			t.Errorf("%v: exit %d, stderr:\n%s", args, code, errOut)
		}
	}
}

// review sessions lists the sessions with records, live or not, so the
// person at the desk finds yesterday's agent after a restart.
func TestReviewSessions(t *testing.T) {
	d := startFake(t, map[string]fakeMethod{
		"review.sessions": canned(`{"sessions":[{"sessionId":"agent-1","workspace":"/w/app","calls":3,"entries":4,"last":"2026-12-02T14:37:14Z"},{"sessionId":"agent-0","calls":1,"entries":1,"last":"2026-12-01T09:00:00Z"}]}`),
	})
	code, out, errOut := runCLI(t, nil, "", "--socket", d.socket, "review", "sessions")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, w := range []string{"SESSION", "LAST CHANGE", "agent-1", "/w/app", "agent-0", "hostctl review list SESSION"} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	if strings.Index(out, "agent-1") > strings.Index(out, "agent-0") {
		t.Errorf("not in the daemon's order (newest first):\n%s", out)
	}
}

// hostctl call of a tool that fails prints the result and exits 1, so a
// script sees the failure (a reused toolCallId once exited 0).
func TestCallOfAFailingToolExitsNonZero(t *testing.T) {
	d := startFake(t, map[string]fakeMethod{
		"tools.execute": canned(`{"ok":false,"content":"Error INVALID_ARGUMENT: toolCallId \"call-1\" was already used","error":{"code":"INVALID_ARGUMENT","message":"toolCallId \"call-1\" was already used","retriable":false}}`),
	})
	code, out, errOut := runCLI(t, nil, "", "--socket", d.socket, "call", "tools.execute", `{"sessionId":"s","tool":"write","args":{}}`)
	if code != exitFailed || !strings.Contains(out, `"ok": false`) || !strings.Contains(errOut, "INVALID_ARGUMENT") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
}

// review rewind checks its flags before it dials: one selection, at most
// one resolve, and its flags on no other command.
func TestReviewRewindUsage(t *testing.T) {
	d := startFake(t, map[string]fakeMethod{})
	for _, args := range [][]string{
		{"review", "rewind", "s-1"},
		{"review", "rewind", "s-1", "--prompt", "p", "--all"},
		{"review", "rewind", "s-1", "--all", "--merge", "--force"},
		{"review", "list", "s-1", "--dry-run"},
	} {
		code, _, errOut := runCLI(t, nil, "", append([]string{"--socket", d.socket}, args...)...)
		if code != exitUsage {
			t.Errorf("%v: exit %d, stderr:\n%s", args, code, errOut)
		}
	}
	if n := len(d.requests()); n != 0 {
		t.Errorf("%d requests sent for bad command lines", n)
	}
}

// A preview shows each file's action and diff, and a conflict with who
// changed it and the flags that deal with it.
func TestReviewRewindPreview(t *testing.T) {
	d := startFake(t, map[string]fakeMethod{
		"review.rewind": canned(`{"dryRun":true,"calls":["c2","c1"],"conflicts":1,"note":"hostd undoes only the changes its tools made",
			"files":[{"path":"a.txt","action":"restore","calls":["c1"],"diff":"--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-A\n+a\n"},
			{"path":"b.txt","action":"conflict","calls":["c2"],"diff":"--- a/b.txt\n+++ b/b.txt\n@@ -1,2 +1,2 @@\n-B\n+b\n mine\n","mergeDiff":"--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-B\n+b\n",
			 "conflict":{"reason":"content changed since the agent's last change to it","changedBy":[{"sessionId":"other","toolCallId":"o-1","tool":"edit","at":"2026-12-02T14:37:14Z"}],"choices":["keepTheirs","merge","force"]}}]}`),
	})
	code, out, errOut := runCLI(t, nil, "", "--socket", d.socket, "review", "rewind", "s-1", "--prompt", "turn-1", "--dry-run")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if req := d.requests()[0]; string(req.Params) != `{"dryRun":true,"promptId":"turn-1","sessionId":"s-1"}` {
		t.Errorf("params %s", req.Params)
	}
	for _, w := range []string{
		"would rewind 2 tool call(s), newest first: c2, c1", "a.txt  restore", "b.txt  conflict",
		"conflict: content changed since the agent's last change to it", "changed by session other, tool call o-1",
		"choices: --keep-theirs, --merge, --force", "with --force:", "with --merge:", "+a",
		"nothing was written; to do it: hostctl review rewind s-1 --prompt turn-1 --keep-theirs|--merge|--force",
		"note: hostd undoes only",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
}
