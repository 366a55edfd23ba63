package main

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// tourCommands are the hostctl command lines of the README's tour, in
// order, split into arguments as a shell would ('…' quoting only).
func tourCommands(t *testing.T) [][]string {
	t.Helper()
	f, err := os.Open("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cmds [][]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "$ hostctl ")
		if !ok {
			continue
		}
		var args []string
		for line = strings.TrimSpace(line); line != ""; line = strings.TrimSpace(line) {
			if rest, ok := strings.CutPrefix(line, "'"); ok {
				end := strings.IndexByte(rest, '\'')
				if end < 0 {
					t.Fatalf("unterminated quote in README: %s", sc.Text())
				}
				args, line = append(args, rest[:end]), rest[end+1:]
				continue
			}
			word, rest, _ := strings.Cut(line, " ")
			args, line = append(args, word), rest
		}
		cmds = append(cmds, args)
	}
	if len(cmds) < 10 {
		t.Fatalf("found %d hostctl commands in the README's tour", len(cmds))
	}
	return cmds
}

// The desktop issue asks that the README's tour run twice in a row on one
// machine with the same output apart from ids, times and pids: each run
// here starts a real hostd on a throwaway state directory, as the README
// says to, runs every hostctl line of the tour against it (the workspace
// moved to a temporary directory), and the two transcripts are compared
// with ids, times, sizes of the heap and pids masked.
func TestTheREADMETourRunsTwiceTheSame(t *testing.T) {
	hostd, hostctl := buildBinaries(t, t.TempDir())
	cmds := tourCommands(t)
	demo := t.TempDir()
	socket := filepath.Join(shortSocketDir(t), "hostd.sock")
	mask := regexp.MustCompile(`\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(\.\d+)?Z?|\b(pid|up)\s+\d+\w*|tc-[0-9a-f]+|\d+(\.\d+)?(µs|ms|s)\b|\d+(\.\d+)? (B|KiB|MiB|GiB)\b|goroutines\s+\d+|GOGC \d+|\d+ collections?|` + regexp.QuoteMeta(socket))
	spaces := regexp.MustCompile(`[ \t]+`)
	run := func() string {
		os.WriteFile(filepath.Join(demo, "main.go"), []byte("package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n"), 0o644)
		startHostd(t, hostd, socket)
		var b strings.Builder
		for _, args := range cmds {
			for i := range args {
				args[i] = strings.ReplaceAll(args[i], "/tmp/demo", demo)
			}
			cmd := exec.Command(hostctl, args...)
			cmd.Env = append(os.Environ(), "HOSTD_SOCKET="+socket)
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			if err != nil && !errors.As(err, &ee) {
				t.Fatal(err)
			}
			b.WriteString("$ hostctl " + strings.Join(args, " ") + "\n" + string(out))
			if args[0] == "call" && args[1] == "host.shutdown" {
				for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
					if _, err := os.Stat(socket); err != nil {
						break
					}
				}
			}
		}
		// Tables pad around what was masked; compare words, not columns.
		return spaces.ReplaceAllString(mask.ReplaceAllString(b.String(), "<masked>"), " ")
	}
	first, second := run(), run()
	if first != second {
		t.Fatalf("the tour's second run differs from its first:\n--- first\n%s\n--- second\n%s", first, second)
	}
	for _, want := range []string{`"ok": true`, "rolled back tool call call-1", "no hostd is listening"} {
		if !strings.Contains(first, want) {
			t.Errorf("the tour's output lacks %q:\n%s", want, first)
		}
	}
}
