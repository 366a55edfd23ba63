// Command testcount reads `go test -json` on stdin and writes what a plain
// `go test` would show (each package's result line, the output of every
// test that failed, build errors), then the skipped tests with their
// reasons and a count of the tests that ran and were skipped. .ci/run pipes
// its test runs through it, so a run that skipped tests says so at the end.
//
// It exits 1 when a test or a build failed or the input was not test JSON.
//
//	go test -json ./... | go run ./internal/testcount
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

func main() {
	ok, err := summarize(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testcount:", err)
		os.Exit(1)
	}
	if !ok {
		os.Exit(1)
	}
}

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action     string
	Package    string
	Test       string
	Output     string
	ImportPath string // build-output and build-fail events
}

// counts are the tests of a run by outcome. Top-level tests and subtests
// are counted apart: a table test's rows are not tests of their own.
type counts struct {
	passed, failed, skipped          int
	subPassed, subFailed, subSkipped int
}

// summarize copies the readable part of the stream to w and ends with the
// skip list and the counts. It reports whether everything passed.
func summarize(r io.Reader, w io.Writer) (bool, error) {
	var (
		c       counts
		ok      = true
		pending = map[string][]string{} // package+test → its output so far
		skips   []string
	)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 || line[0] != '{' {
			// go test prints some errors (a package that does not build
			// under -json before Go 1.24) as plain text.
			fmt.Fprintf(w, "%s\n", line)
			continue
		}
		var e event
		if err := json.Unmarshal(line, &e); err != nil {
			return false, fmt.Errorf("not go test -json output: %v: %.200q", err, line)
		}
		key := e.Package + "\x00" + e.Test
		switch {
		case e.Action == "build-output":
			fmt.Fprint(w, e.Output)
		case e.Action == "build-fail":
			ok = false
		case e.Test == "" && e.Action == "output":
			if e.Output != "PASS\n" && !strings.HasPrefix(e.Output, "=== ") {
				fmt.Fprint(w, e.Output)
			}
		case e.Test == "" && e.Action == "fail":
			ok = false
		case e.Test == "":
		case e.Action == "output":
			pending[key] = append(pending[key], e.Output)
		case e.Action == "pass" || e.Action == "fail" || e.Action == "skip":
			out := pending[key]
			delete(pending, key)
			sub := strings.Contains(e.Test, "/")
			switch e.Action {
			case "pass":
				c.count(sub, &c.passed, &c.subPassed)
			case "fail":
				ok = false
				c.count(sub, &c.failed, &c.subFailed)
				for _, o := range out {
					fmt.Fprint(w, o)
				}
			case "skip":
				c.count(sub, &c.skipped, &c.subSkipped)
				if !sub {
					skips = append(skips, e.Package+" "+e.Test+": "+skipReason(out))
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return false, err
	}
	if len(skips) > 0 {
		fmt.Fprintf(w, "\nskipped tests (docs/testing.md says why each may skip):\n")
		for _, s := range skips {
			fmt.Fprintf(w, "  %s\n", s)
		}
	}
	fmt.Fprintf(w, "\ntests: %d ran (%d passed, %d failed), %d skipped; subtests: %d ran, %d skipped\n",
		c.passed+c.failed, c.passed, c.failed, c.skipped, c.subPassed+c.subFailed, c.subSkipped)
	return ok, nil
}

func (c *counts) count(sub bool, top, subtest *int) {
	if sub {
		*subtest++
	} else {
		*top++
	}
}

// skipReason is the message a skipped test gave, on one line.
func skipReason(out []string) string {
	var msg []string
	for _, o := range out {
		o = strings.TrimSpace(o)
		if o == "" || strings.HasPrefix(o, "=== ") || strings.HasPrefix(o, "--- SKIP") {
			continue
		}
		msg = append(msg, o)
	}
	if len(msg) == 0 {
		return "(no reason given)"
	}
	return strings.Join(msg, " ")
}
