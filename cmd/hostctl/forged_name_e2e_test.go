package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/internal/testenv"
)

// A file name holding newlines cannot forge diff lines: the real daemon
// quotes it as git does in the edit result's diff, in review.recorded's
// and in review.list's entries, and hostctl review list prints no line of
// the name as a line of the diff.
func TestAFileNameCannotForgeDiffLines(t *testing.T) {
	const name = "notes\n+++ b/fake\n@@ -1 +1 @@\n-harmless\n+INJECTED"
	const quotedOld = `"a/notes\n+++ b/fake\n@@ -1 +1 @@\n-harmless\n+INJECTED"`
	hostd, hostctl := buildBinaries(t)
	socket := filepath.Join(shortSocketDir(t), "hostd.sock")
	startHostd(t, hostd, socket)
	command := func(args ...string) *exec.Cmd {
		cmd := exec.Command(hostctl, args...)
		cmd.Env = append(os.Environ(), "HOSTD_SOCKET="+socket)
		return cmd
	}
	hc := func(args ...string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		cmd := command(args...)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("hostctl %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
		}
		return stdout.String()
	}
	tool := func(id, tool string, args map[string]string) map[string]any {
		t.Helper()
		p, _ := json.Marshal(map[string]any{"sessionId": "forge", "toolCallId": id, "tool": tool, "args": args})
		var res map[string]any
		out := hc("call", "tools.execute", string(p))
		if err := json.Unmarshal([]byte(out), &res); err != nil || res["ok"] != true {
			t.Fatalf("%s: %v %s", tool, err, out)
		}
		return res
	}
	// forged reports the lines of a diff that the file name made.
	forged := func(what, diff string) {
		t.Helper()
		for line := range strings.SplitSeq(diff, "\n") {
			if line == "+INJECTED" || line == "-harmless" || strings.HasPrefix(line, "+++ b/fake") {
				t.Errorf("%s: the file name forged the line %q in\n%s", what, line, diff)
			}
		}
	}

	p, _ := json.Marshal(map[string]string{"workspace": t.TempDir(), "sessionId": "forge"})
	hc("call", "session.create", string(p))
	watch := testenv.Start(t, testenv.Options{Bin: hostctl, Args: []string{"watch", "--json", "forge"}, Env: []string{"HOSTD_SOCKET=" + socket}, Stdio: true})
	t.Cleanup(watch.Kill) // before the daemon stops: watch would end with it
	recorded := make(chan string, 4)
	go func() {
		sc := bufio.NewScanner(watch.Stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			recorded <- sc.Text()
		}
		close(recorded)
	}()
	watch.Require(testenv.Logged("watching"), 10*time.Second)

	tool("w-1", "write", map[string]string{"path": name, "content": "real content\n"})
	read := tool("r-1", "read", map[string]string{"path": name})
	edit := tool("e-1", "edit", map[string]string{"path": name, "tag": read["tag"].(string), "ops": "PUT 1.=1:\n+changed"})
	diff, _ := edit["diff"].(string)
	forged("the edit result", diff)
	if !strings.HasPrefix(diff, "--- "+quotedOld+"\n") {
		t.Errorf("the edit result's diff header is not quoted:\n%s", diff)
	}

	for range 2 { // the write's and the edit's
		select {
		case line := <-recorded:
			var rec struct {
				Entries []struct{ Diff string } `json:"entries"`
			}
			if err := json.Unmarshal([]byte(line), &rec); err != nil || len(rec.Entries) != 1 {
				t.Fatalf("review.recorded: %v %s", err, line)
			}
			forged("review.recorded", rec.Entries[0].Diff)
		case <-time.After(10 * time.Second):
			t.Fatalf("no review.recorded; watch: %s", watch.Log())
		}
	}

	var list struct {
		Entries []struct{ Diff string } `json:"entries"`
	}
	if err := json.Unmarshal([]byte(hc("review", "list", "forge", "--json")), &list); err != nil || len(list.Entries) != 2 {
		t.Fatalf("review list --json: %v %+v", err, list)
	}
	for _, e := range list.Entries {
		forged("review.list", e.Diff)
		if !strings.Contains(e.Diff, "+++ \"b/notes\\n+++ b/fake") {
			t.Errorf("review.list's diff header is not quoted:\n%s", e.Diff)
		}
	}
	text := hc("review", "list", "forge")
	forged("hostctl review list", text)
	if !strings.Contains(text, "--- "+quotedOld+"\n") || !strings.Contains(text, "== edit modify \"notes\\n+++ b/fake") {
		t.Errorf("hostctl review list does not show the quoted path:\n%s", text)
	}
}
