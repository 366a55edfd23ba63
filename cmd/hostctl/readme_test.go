package main

import (
	"bufio"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/internal/testenv"
)

// tourStep is one hostctl command line of the README's tour and the
// output the README shows for it.
type tourStep struct {
	args []string // split as a shell would ('…' quoting only)
	line string   // the command line as the README writes it
	want string   // the README's output, trailing blank lines dropped
}

// readmeTour reads the hostctl command lines of the README's tour, in
// order, each with the output the README shows under it (up to the next
// "$ " line or the end of the block).
func readmeTour(t *testing.T) []tourStep {
	t.Helper()
	f, err := os.Open("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var steps []tourStep
	var out []string
	flush := func() {
		if len(steps) > 0 {
			for len(out) > 0 && out[len(out)-1] == "" {
				out = out[:len(out)-1]
			}
			steps[len(steps)-1].want = strings.Join(out, "\n")
		}
		out = nil
	}
	inStep := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		text := sc.Text()
		if inStep && (strings.HasPrefix(text, "$ ") || strings.HasPrefix(text, "```")) {
			flush()
			inStep = false
		}
		line, ok := strings.CutPrefix(text, "$ hostctl ")
		if !ok {
			if inStep {
				out = append(out, text)
			}
			continue
		}
		inStep = true
		var args []string
		for line = strings.TrimSpace(line); line != ""; line = strings.TrimSpace(line) {
			if rest, ok := strings.CutPrefix(line, "'"); ok {
				end := strings.IndexByte(rest, '\'')
				if end < 0 {
					t.Fatalf("unterminated quote in README: %s", text)
				}
				args, line = append(args, rest[:end]), rest[end+1:]
				continue
			}
			word, rest, _ := strings.Cut(line, " ")
			args, line = append(args, word), rest
		}
		steps = append(steps, tourStep{args: args, line: text})
	}
	if inStep {
		flush()
	}
	if len(steps) < 10 {
		t.Fatalf("found %d hostctl commands in the README's tour", len(steps))
	}
	return steps
}

// demoDir makes the tour's workspace at a path as long as the README's
// /tmp/demo (/tmp/XXXX), since the review record holds the workspace's
// path and the tour's sizes must come out as the README shows them; a
// fixed /tmp/demo could be someone else's.
func demoDir(t *testing.T) string {
	t.Helper()
	for range 100 {
		dir := fmt.Sprintf("/tmp/%04x", rand.IntN(1<<16))
		if err := os.Mkdir(dir, 0o700); err == nil {
			t.Cleanup(func() { os.RemoveAll(dir) })
			return dir
		}
	}
	t.Fatal("found no free /tmp/XXXX name for the tour's workspace in 100 tries")
	return ""
}

// readmeSocket is the socket the README's transcript shows; the test's
// daemon listens elsewhere (the user's own socket may be in use).
const readmeSocket = "/tmp/hostd-0/hostd.sock"

// tourMask hides what differs from run to run and machine to machine:
// times, uptimes and latencies, pids, generated toolCallIds, the memory
// the collector reports, the goroutine count, and the daemon's version
// (what Go stamps on the build: "dev", a pseudo-version in a git checkout,
// the release version in a release). Sizes of what the tour
// made (retained bytes, review bytes, file bytes) are not masked: they
// are the same every run, and the README must show them as they are.
var tourMask = regexp.MustCompile(`(?m)^version\s+\S+|\bhostd (dev|v\d\S*|\d+\.\d+\.\d+\S*) \(|\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(\.\d+)?Z?|\(pid \d+\)|\bpid\s+\d+|tc-[0-9a-f]+|\d+(\.\d+)?(µs|ms|s)\b|heap\s+\d+(\.\d+)? \w+|collector .*|goroutines\s+\d+`)

var tourSpaces = regexp.MustCompile(`[ \t]+`)

// ellipsis is the README's stand-in for the rest of the limit table.
var ellipsis = regexp.MustCompile(`^…\s+\(every limit in force, (\d+) in all\)$`)

// normalize masks out and collapses runs of blanks (tables pad around
// what was masked; compare words, not columns).
func normalize(s string) string {
	lines := strings.Split(tourMask.ReplaceAllString(s, "<masked>"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(tourSpaces.ReplaceAllString(l, " "))
	}
	return strings.Join(lines, "\n")
}

// elide shortens got's limit table the way want does: where want has the
// "…" line, got's rows from there to the table's end become that line,
// once the count it claims is checked against the rows got printed.
func elide(t *testing.T, want, got string) string {
	t.Helper()
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for k, l := range wl {
		m := ellipsis.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		header := -1
		for i, g := range gl {
			if strings.HasPrefix(g, "LIMIT ") {
				header = i
			}
		}
		if header < 0 || k > len(gl) {
			return got
		}
		end := header + 1
		for end < len(gl) && gl[end] != "" {
			end++
		}
		if n, _ := strconv.Atoi(m[1]); n != end-header-1 {
			t.Errorf("the README says %q; the daemon prints %d limits", l, end-header-1)
		}
		if k < end {
			gl = append(append(gl[:k:k], l), gl[end:]...)
		}
		break
	}
	return strings.Join(gl, "\n")
}

// The README's tour holds to the README's own text: each run starts a
// real hostd on a throwaway state directory, as the README says to, runs
// every hostctl line of the tour against it from the repository root (the
// workspace moved to a temporary directory), and each command's output
// must be what the README shows under it, with ids, times, pids and the
// memory figures masked. It runs twice, for the desktop issue's "twice in
// a row on one machine, the same output".
//
// What stands in for the README's setting: the daemon listens on a
// socket of the test's own rather than the user's (another daemon may be
// using that), so the socket path is written as the README's and the
// "--socket PATH" a no-daemon hint adds for a non-default socket is
// dropped; hostctl runs with no hostd beside it or on PATH, as
// `go run ./cmd/hostctl` does in a checkout; and a failing command gets
// the "exit status N" line `go run` adds.
func TestTheREADMETourPrintsWhatTheREADMEShows(t *testing.T) {
	hostd, hostctl := buildBinaries(t) // no hostd beside hostctl
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	steps := readmeTour(t)
	demo := demoDir(t)
	socket := filepath.Join(shortSocketDir(t), "hostd.sock")
	// Where /tmp is a link (macOS: /private/tmp) the daemon shows and
	// records the resolved path; the review's size then differs from the
	// README's by the length it adds, so that one figure is masked there.
	resolved, err := filepath.EvalSymlinks(demo)
	if err != nil {
		t.Fatal(err)
	}
	reviewSize := regexp.MustCompile(`calls, \d+ B;`)
	run := func(round int) {
		os.WriteFile(filepath.Join(demo, "main.go"), []byte("package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n"), 0o644)
		d := startHostd(t, hostd, socket)
		for _, step := range steps {
			args := make([]string, len(step.args))
			for i, a := range step.args {
				args[i] = strings.ReplaceAll(a, "/tmp/demo", demo)
			}
			cmd := exec.Command(hostctl, args...)
			cmd.Dir = root
			cmd.Env = []string{"HOSTD_SOCKET=" + socket, "PATH=", "HOME=" + os.Getenv("HOME"), "TZ=UTC"}
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			if err != nil && !errors.As(err, &ee) {
				t.Fatal(err)
			}
			got := string(out)
			if ee != nil {
				got += fmt.Sprintf("exit status %d\n", ee.ExitCode())
			}
			got = strings.ReplaceAll(got, " --socket "+socket, "")
			got = strings.ReplaceAll(got, socket, readmeSocket)
			got = strings.ReplaceAll(got, resolved, "/tmp/demo")
			got = strings.ReplaceAll(got, demo, "/tmp/demo")
			got = strings.TrimRight(got, "\n")
			want, have := normalize(step.want), normalize(elide(t, step.want, got))
			if len(resolved) != len(demo) {
				want, have = reviewSize.ReplaceAllString(want, "calls, <masked>;"), reviewSize.ReplaceAllString(have, "calls, <masked>;")
			}
			if have != want {
				t.Errorf("run %d, %s\nthe README shows:\n%s\nit prints:\n%s", round, step.line, step.want, got)
			}
			if args[0] == "shutdown" {
				d.Await(testenv.Exit(), 15*time.Second) // it removes its socket before it exits
			}
		}
	}
	run(1)
	if !t.Failed() {
		run(2)
	}
}
