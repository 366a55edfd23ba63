package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/internal/testenv"
)

// Syntax feedback end to end (edit-contract §5.6): the daemon's parse
// workers check every write and edit, and the result names the errors the
// change added, never the ones the file had.
func TestE2ESyntaxFeedback(t *testing.T) {
	d := startDaemon(t, "", longParseTime(t)...)
	c := d.client()
	ws := t.TempDir()
	s := newSession(t, c, ws)
	clean := "package a\n\nfunc f(x int) int {\n\treturn x\n}\n"
	w := tool(t, c, s, "write", map[string]any{"path": "a.go", "content": clean})
	if w["ok"] != true || w["syntaxErrors"] != nil || strings.Contains(w["content"].(string), "syntax:") {
		t.Fatalf("a clean write: %v", w)
	}
	e := tool(t, c, s, "edit", map[string]any{"path": "a.go#" + w["tag"].(string), "ops": "PUT 4:\n+\treturn (x", "result": "full"})
	content, _ := e["content"].(string)
	if e["ok"] != true || !strings.Contains(content, "\nsyntax: this change left 1 new error: line 4") || !strings.Contains(content, "\n4:\treturn (x") {
		t.Fatalf("an edit that breaks the file: %v", e)
	}
	if errs, _ := e["syntaxErrors"].([]any); len(errs) != 1 {
		t.Errorf("syntaxErrors %v", e["syntaxErrors"])
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "a.go")); string(b) != strings.Replace(clean, "return x", "return (x", 1) {
		t.Errorf("the edit did not land as sent: %q", b)
	}
	e = tool(t, c, s, "edit", map[string]any{"path": "a.go#" + e["tag"].(string), "ops": "PUT >5:\n+\n+func g() {}"})
	if e["ok"] != true || e["syntaxErrors"] != nil || strings.Contains(e["content"].(string), "syntax:") {
		t.Fatalf("an edit below the error it left: %v", e)
	}
	w = tool(t, c, s, "write", map[string]any{"path": "b.ts", "content": "const a = f(1, 2;\n"})
	if w["ok"] != true || !strings.Contains(w["content"].(string), "\nsyntax: this change left 1 new error: line 1 (missing \")\")") {
		t.Fatalf("a new broken file: %v", w)
	}
	// Swift's grammar is measured to misread valid code (Swift Testing's
	// #expect macro among it): its region is a line the parser could
	// not read, with the measurement, and not among syntaxErrors.
	w = tool(t, c, s, "write", map[string]any{"path": "t.swift", "content": "import Testing\n\n@Test func adds() {\n  #expect(1 + 1 == 2)\n}\n"})
	content, _ = w["content"].(string)
	if w["ok"] != true || w["syntaxErrors"] != nil || !strings.Contains(content, "\nsyntax: the parser could not read line 4 after this change, which may be no error: the swift grammar finds errors in valid code (in ") || !strings.Contains(content, "\n4:  #expect(1 + 1 == 2)") {
		t.Fatalf("valid Swift its grammar cannot read: %v", w)
	}
}

// A check whose worker overruns never holds up or fails the write: the
// write lands and says nothing of its syntax (the check, which never
// ends, is not waited for past the call's parse time: the answer comes,
// an event); the worker is ended for its overrun, the daemon replaces it
// and a later check is made.
func TestE2ESyntaxFeedbackWorkerOverrun(t *testing.T) {
	d := launchWithParseHook(t, "spin:SPIN-THIS-PARSE")
	c := d.client()
	ws := t.TempDir()
	s := newSession(t, c, ws)
	w := tool(t, c, s, "write", map[string]any{"path": "a.go", "content": "package a // SPIN-THIS-PARSE\n\nfunc f( {\n"})
	if w["ok"] != true || w["syntaxErrors"] != nil || strings.Contains(w["content"].(string), "syntax:") {
		t.Fatalf("the write whose check spun: %v", w)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "a.go")); !strings.Contains(string(b), "SPIN-THIS-PARSE") {
		t.Errorf("the write did not land: %q", b)
	}
	if !d.waitStderr("overran its time", time.Minute) {
		t.Fatalf("the spinning check's worker was not ended:\n%s", d.output())
	}
	// A check is bounded by the call's parse time (500 ms here), which a
	// loaded machine can spend starting the new worker: the verdict is
	// that a check is made again, not that the first one after is.
	for i := 0; ; i++ {
		w = tool(t, c, s, "write", map[string]any{"path": "b.go", "content": "package a\n\nfunc f" + strconv.Itoa(i) + "( {\n"})
		if w["ok"] != true {
			t.Fatalf("a write after the overrun: %v", w)
		}
		if w["syntaxErrors"] != nil {
			break
		}
		if i == 20 {
			t.Fatalf("20 writes after the overrun and no check was made:\n%s", d.output())
		}
	}
}

// A read since a tag through the daemon: another program changes the
// file, the read shows only the change, and an edit of a line the change
// left alone lands with no other read.
func TestE2EReadSince(t *testing.T) {
	d := startDaemon(t, "")
	c := d.client()
	ws := t.TempDir()
	s := newSession(t, c, ws)
	var b strings.Builder
	for i := 1; i <= 60; i++ {
		b.WriteString("line " + strconv.Itoa(i) + "\n")
	}
	os.WriteFile(filepath.Join(ws, "f.txt"), []byte(b.String()), 0o644)
	r := tool(t, c, s, "read", map[string]any{"path": "f.txt"})
	old := r["tag"].(string)
	os.WriteFile(filepath.Join(ws, "f.txt"), []byte(strings.Replace(b.String(), "line 30\n", "line thirty\n", 1)), 0o644)
	r = tool(t, c, s, "read", map[string]any{"path": "f.txt", "since": old})
	want := "[f.txt#" + r["tag"].(string) + "]\n28:line 28\n29:line 29\n30:line thirty\n31:line 31\n32:line 32\n(since " + old + ": 59 of 60 lines unchanged and not shown but around changes; the ones you saw stay seen)"
	if r["since"] != old || r["content"] != want || r["unchangedLines"] != float64(59) {
		t.Fatalf("since read: %v\nwant content %q", r, want)
	}
	e := tool(t, c, s, "edit", map[string]any{"path": "f.txt#" + r["tag"].(string), "ops": "PUT 3:\n+line three"})
	if e["ok"] != true {
		t.Fatalf("an edit of a line the change left alone: %v", e)
	}
	r = tool(t, c, s, "read", map[string]any{"path": "f.txt", "since": "0000"})
	if r["since"] != nil || !strings.Contains(r["notice"].(string), "holds no version 0000") {
		t.Errorf("an unknown tag: %v", r)
	}
}

// A read hands the version it recorded to the parse workers to warm, in
// the background, and so does a grep that shows matches for the files it
// matched: the call on a file whose parse spins answers at once, and only
// the worker warming it is ended past the parse time, with no call
// waiting on it.
func TestE2EReadAndGrepWarmTheParseWorkers(t *testing.T) {
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"read", map[string]any{"path": "a.go"}},
		{"grep", map[string]any{"pattern": "package"}},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			// A parse time of a minute: the warm spins for that long,
			// so a read or grep that waited for it would not answer.
			d := launchWithParseHook(t, "spin:SPIN-THIS-PARSE", longParseTime(t)...)
			c := d.client()
			ws := t.TempDir()
			s := newSession(t, c, ws)
			if err := os.WriteFile(filepath.Join(ws, "a.go"), []byte("package a // SPIN-THIS-PARSE\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			// The daemon starts one worker with itself; a warm that comes
			// before it is ready waits for it.
			r := tool(t, c, s, tc.tool, tc.args)
			if r["ok"] != true {
				t.Fatalf("the %s: %v", tc.tool, r)
			}
			if strings.Contains(d.output(), "parse worker ended") {
				t.Fatalf("a worker ended before its warm's minute was up:\n%s", d.output())
			}
			// a.go alone holds the marker: a worker that spins is
			// warming the version the call recorded.
			spins := func() bool {
				for _, p := range workerPIDs(d.Cmd.Process.Pid) {
					if procCPU(p) >= 200*time.Millisecond {
						return true
					}
				}
				return false
			}
			testenv.Until(t, time.Minute, "a worker parsing the version the "+tc.tool+" recorded", spins)
		})
	}
}

// longParseTime is the flags of a daemon whose calls have a parse time of
// a minute (maxParseMs), so a check or a block op that is made at all is
// made within it however loaded the machine: its verdict is the parse's
// answer, not how fast a busy machine gave it.
func longParseTime(t *testing.T) []string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(path, []byte(`{"limits": {"maxParseMs": 60000}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	return []string{"--config", path}
}

// procCPU is the CPU time process pid has used (its own, user and
// system), from /proc.
func procCPU(pid int) time.Duration {
	const userHZ = 100
	f := procStat(pid)
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+s) * time.Second / userHZ
}
