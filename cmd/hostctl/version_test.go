package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/internal/buildinfo"
)

func TestVersionShowsClientAndDaemon(t *testing.T) {
	d := daemonWithCannedResults(t)
	for _, args := range [][]string{{"version"}, {"--version"}} {
		code, out, errOut := runCLI(t, nil, "", append([]string{"--socket", d.socket}, args...)...)
		want := []string{
			"client  " + buildinfo.Read().Describe("hostctl", 1) + "\n",
			", " + runtime.Version() + "\n",
			"daemon  hostd 0.1.0, protocol 1, commit unknown, pid 4242, on " + d.socket + "\n",
		}
		for _, w := range want {
			if code != exitOK || !strings.Contains(out, w) {
				t.Errorf("%v: exit %d, stdout lacks %q:\n%s%s", args, code, w, out, errOut)
			}
		}
	}
	code, out, _ := runCLI(t, nil, "", "--socket", d.socket, "--json", "version")
	for _, w := range []string{`"client": {`, `"name": "hostctl"`, `"daemon": {`, `"version": "0.1.0"`, `"protocolVersion": 1`} {
		if code != exitOK || !strings.Contains(out, w) {
			t.Errorf("--json: exit %d, stdout lacks %q:\n%s", code, w, out)
		}
	}
}

// Without a daemon the client's version still prints; the exit status
// says no daemon answered.
func TestVersionWithoutADaemon(t *testing.T) {
	socket := filepath.Join(shortSocketDir(t), "hostd.sock")
	code, out, errOut := runCLI(t, nil, "", "--socket", socket, "version")
	if code != exitNoDaemon || !strings.HasPrefix(out, "client  hostctl ") || !strings.Contains(out, "daemon  none listening on "+socket) ||
		!strings.Contains(errOut, "no hostd is listening") {
		t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// Outside a checkout, "go run ./cmd/hostd" cannot work: the hint names
// the installed hostd instead, or how to install one.
func TestTheNoDaemonHintOutsideACheckout(t *testing.T) {
	t.Chdir(t.TempDir())
	bin := t.TempDir()
	t.Setenv("PATH", bin)
	socket := filepath.Join(shortSocketDir(t), "hostd.sock")

	code, _, errOut := runCLI(t, nil, "", "--socket", socket, "info")
	if want := "go install github.com/hostd-dev/hostd/cmd/hostd@latest"; code != exitNoDaemon || !strings.Contains(errOut, want) || strings.Contains(errOut, "go run") {
		t.Errorf("nothing installed: exit %d, stderr lacks %q or suggests go run:\n%s", code, want, errOut)
	}

	hostd := filepath.Join(bin, "hostd")
	if err := os.WriteFile(hostd, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runCLI(t, nil, "", "--socket", socket, "info")
	if want := "start one with:\n  " + hostd + " --socket " + socket + "\n"; code != exitNoDaemon || !strings.Contains(errOut, want) || strings.Contains(errOut, "go run") {
		t.Errorf("installed: exit %d, stderr lacks %q or suggests go run:\n%s", code, want, errOut)
	}
}

func TestTheNoDaemonHintInsideACheckout(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "go.mod"), []byte("module github.com/hostd-dev/hostd\n\ngo 1.26.8\n"), 0o644)
	sub := filepath.Join(root, "cmd", "hostctl")
	os.MkdirAll(sub, 0o755)
	t.Chdir(sub)
	t.Setenv("PATH", t.TempDir())
	l := findLauncher()
	if l.checkout != root || !l.inSubdir {
		t.Fatalf("found %+v, want the checkout %s from a subdirectory", l, root)
	}
	if hint := startHint("/s.sock", l); !strings.Contains(hint, "(in "+root+") with:\n  go run ./cmd/hostd --socket /s.sock\n") {
		t.Errorf("hint:\n%s", hint)
	}
}
