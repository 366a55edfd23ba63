package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Completion offers what only the daemon knows, asked through the hidden
// __complete command: session ids (live and recorded), a session's
// toolCallIds and the method names, against a real hostd; and through the
// real bash script, the way a TAB runs it. With no daemon it is silent.
func TestCompletionAsksTheDaemon(t *testing.T) {
	hostd, hostctl := buildBinaries(t, t.TempDir())
	socket := filepath.Join(shortSocketDir(t), "hostd.sock")
	startHostd(t, hostd, socket)
	env := append(os.Environ(), "HOSTD_SOCKET="+socket)
	hc := func(args ...string) (stdout, stderr string, code int) {
		t.Helper()
		cmd := exec.Command(hostctl, args...)
		cmd.Env = env
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return out.String(), errb.String(), code
	}
	workspace := t.TempDir()
	os.WriteFile(filepath.Join(workspace, "a.txt"), []byte("one\n"), 0o644)
	hc("call", "session.create", `{"workspace":`+strconv.Quote(workspace)+`,"sessionId":"cmpl"}`)
	hc("call", "tools.execute", `{"sessionId":"cmpl","tool":"write","toolCallId":"call-7","args":{"path":"b.txt","content":"two\n"}}`)
	// toolCallIds are the client's choice; one a shell would expand is left out.
	hc("call", "tools.execute", `{"sessionId":"cmpl","tool":"write","toolCallId":"x$(id)","args":{"path":"c.txt","content":"three\n"}}`)

	lines := func(s string) []string { return strings.Fields(s) }
	for _, tt := range []struct {
		typed []string
		want  []string
		not   []string
	}{
		{[]string{"session"}, []string{"cmpl"}, nil},
		{[]string{"review", "rollback"}, []string{"cmpl"}, nil},
		{[]string{"--json", "review", "rollback", "cmpl"}, []string{"call-7"}, []string{"cmpl", "x$(id)"}},
		{[]string{"call"}, []string{"tools.execute", "review.rollback", "session.list"}, nil},
		{[]string{"info"}, nil, []string{"cmpl"}},
	} {
		out, errOut, code := hc(append([]string{completeCommand}, tt.typed...)...)
		got := lines(out)
		for _, w := range tt.want {
			if !slices.Contains(got, w) {
				t.Errorf("__complete %v: %q lacks %q", tt.typed, got, w)
			}
		}
		for _, w := range tt.not {
			if slices.Contains(got, w) {
				t.Errorf("__complete %v: %q offers %q", tt.typed, got, w)
			}
		}
		if code != 0 || errOut != "" {
			t.Errorf("__complete %v: exit %d, stderr %q", tt.typed, code, errOut)
		}
	}

	if _, err := exec.LookPath("bash"); err == nil {
		script, _, _ := hc("completion", "bash")
		for _, tt := range []struct {
			words string
			want  []string
		}{
			{`hostctl session ""`, []string{"delete", "cmpl"}},
			{`hostctl review rollback cmpl c`, []string{"call-7"}},
			{`hostctl call tools.`, []string{"tools.definitions", "tools.execute"}},
		} {
			prog := script + "\nCOMP_WORDS=(" + tt.words + "); COMP_CWORD=$((${#COMP_WORDS[@]}-1)); _hostctl; printf '%s\\n' \"${COMPREPLY[@]}\"\n"
			cmd := exec.Command("bash", "--norc", "-c", prog)
			cmd.Env = append(env, "PATH="+filepath.Dir(hostctl)+":"+os.Getenv("PATH"))
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("bash: %v\n%s", err, out)
			}
			if got := lines(string(out)); !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(tt.want))) {
				t.Errorf("bash completion of %s: %q, want %q", tt.words, got, tt.want)
			}
		}
	}

	// No daemon: nothing on either stream, exit 0, so a TAB shows nothing.
	missing := filepath.Join(shortSocketDir(t), "hostd.sock")
	cmd := exec.Command(hostctl, "--socket", missing, completeCommand, "session")
	if out, err := cmd.CombinedOutput(); err != nil || len(out) != 0 {
		t.Errorf("__complete with no daemon: %v, %q", err, out)
	}
}

// The zsh and fish scripts ask the same hidden command (this machine has
// neither shell to run them).
func TestZshAndFishScriptsAskTheDaemon(t *testing.T) {
	for _, shell := range []string{"zsh", "fish"} {
		code, out, _ := runCLI(t, nil, "", "completion", shell)
		if code != exitOK || !strings.Contains(out, "hostctl "+completeCommand+" ") {
			t.Errorf("%s script does not ask the daemon:\n%s", shell, out)
		}
	}
}
