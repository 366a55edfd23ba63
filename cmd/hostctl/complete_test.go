package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/internal/testenv"
)

// Completion offers what only the daemon knows, asked through the hidden
// __complete command: session ids (live and recorded), a session's
// toolCallIds and the method names, against a real hostd; and through the
// real bash script, the way a TAB runs it. With no daemon it is silent.
func TestCompletionAsksTheDaemon(t *testing.T) {
	hostd, hostctl := buildBinaries(t)
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
	hc("call", "tools.execute", `{"sessionId":"cmpl","tool":"write","toolCallId":"call-7","promptId":"turn-7","args":{"path":"b.txt","content":"two\n"}}`)
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
		{[]string{"review", "rewind"}, []string{"cmpl"}, nil},
		{[]string{"review", "rewind", "cmpl", "--prompt"}, []string{"turn-7"}, []string{"call-7"}},
		{[]string{"review", "rewind", "cmpl", "--dry-run", "--since"}, []string{"call-7"}, []string{"turn-7"}},
		{[]string{"review", "rewind", "cmpl", "--call"}, []string{"call-7"}, nil},
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
			{`hostctl review rewind cmpl --prompt ""`, []string{"turn-7"}},
			{`hostctl call tools.`, []string{"tools.definitions", "tools.execute"}},
			// A flag's value is not a command word.
			{`hostctl --since call-7 review ""`, []string{"sessions", "list", "rollback", "rewind"}},
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

	path := filepath.Dir(hostctl) + string(os.PathListSeparator) + os.Getenv("PATH")
	t.Run("zsh", func(t *testing.T) {
		zsh := needShell(t, "zsh")
		script, _, _ := hc("completion", "zsh")
		// compsys needs a terminal, so its three functions are stood in
		// for: _arguments as having done its work (words and CURRENT
		// hold the arguments that are not flags, opt_args the flags'
		// values), compadd printing the words it is given that start
		// with the one being completed.
		stubs := "_arguments() { return 0 }\ncompdef() { : }\n" +
			"compadd() { while [[ $1 == -* ]]; do if [[ $1 == -- ]]; then shift; break; fi; shift; done\n" +
			"  local w; for w in \"$@\"; do [[ $w == ${words[CURRENT]}* ]] && print -r -- $w; done; return 0 }\n" +
			"typeset -A opt_args\n"
		for _, tt := range []struct {
			words, socket string // the arguments, the current one last; --socket's value
			want          []string
		}{
			{`session ''`, "", []string{"delete", "cmpl"}},
			{`review rollback cmpl ''`, "", []string{"call-7"}},
			{`call tools.`, "", []string{"tools.definitions", "tools.execute"}},
			{`''`, "", []string{"info", "sessions", "stats", "lsp", "session", "watch", "shutdown", "call", "review", "version", "completion", "help"}},
			// --socket reaches the daemon with no HOSTD_SOCKET to find it.
			{`session ''`, socket, []string{"delete", "cmpl"}},
		} {
			opts := ""
			if tt.socket != "" {
				opts = "--socket " + tt.socket
			}
			prog := stubs + script + "\nopt_args=(" + opts + ")\nwords=(" + tt.words + "); CURRENT=${#words}; _hostctl\n"
			cmd := exec.Command(zsh, "-f", "-c", prog)
			cmd.Env = append(env, "PATH="+path)
			if tt.socket != "" {
				cmd.Env = append(cmd.Env, "HOSTD_SOCKET="+filepath.Join(shortSocketDir(t), "none.sock"))
			}
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("zsh: %v\n%s", err, out)
			}
			if got := lines(string(out)); !sameWords(got, tt.want) {
				t.Errorf("zsh completion of %s (--socket %q): %q, want %q", tt.words, tt.socket, got, tt.want)
			}
		}
	})
	t.Run("fish", func(t *testing.T) {
		fish := needShell(t, "fish")
		script, _, _ := hc("completion", "fish")
		file := filepath.Join(t.TempDir(), "hostctl.fish")
		if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, tt := range []struct {
			line string // what is typed, up to the cursor
			want []string
		}{
			{"hostctl session ", []string{"delete", "cmpl"}},
			// A command's second words only right after it.
			{"hostctl review rollback cmpl ", []string{"call-7"}},
			{"hostctl --json session delete ", []string{"cmpl"}},
			{"hostctl --timeout 5s review ", []string{"sessions", "list", "rollback", "rewind"}},
			{"hostctl call tools.", []string{"tools.definitions", "tools.execute"}},
			{"hostctl ", []string{"info", "sessions", "stats", "lsp", "session", "watch", "shutdown", "call", "review", "version", "completion", "help"}},
			{"hostctl completion ", []string{"bash", "zsh", "fish"}},
		} {
			// complete -C prints what a TAB would offer, one a line (a
			// tab before its description, if any).
			cmd := exec.Command(fish, "--no-config", "-c", "source "+file+"; complete -C '"+tt.line+"'")
			cmd.Env = append(env, "PATH="+path)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("fish: %v\n%s", err, out)
			}
			var got []string
			for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				if w, _, _ := strings.Cut(l, "\t"); w != "" {
					got = append(got, w)
				}
			}
			if !sameWords(got, tt.want) {
				t.Errorf("fish completion of %q: %q, want %q", tt.line, got, tt.want)
			}
		}
	})

	// No daemon: nothing on either stream, exit 0, so a TAB shows nothing.
	missing := filepath.Join(shortSocketDir(t), "hostd.sock")
	cmd := exec.Command(hostctl, "--socket", missing, completeCommand, "session")
	if out, err := cmd.CombinedOutput(); err != nil || len(out) != 0 {
		t.Errorf("__complete with no daemon: %v, %q", err, out)
	}
}

// needShell returns the path of a shell the completion tests run: a
// missing one skips, or fails under CI (.ci/run installs both), except on
// Windows, which has neither.
func needShell(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err == nil {
		return p
	}
	if runtime.GOOS == "windows" {
		t.Skipf("no %s on Windows", name)
	}
	testenv.Missing(t, "%s is not installed (apt-get install %s, brew install %s)", name, name, name)
	return ""
}

// sameWords: the same words, in any order.
func sameWords(got, want []string) bool {
	return slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want)))
}
