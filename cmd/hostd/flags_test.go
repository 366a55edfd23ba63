package main

import (
	"bytes"
	debugbuildinfo "debug/buildinfo"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/internal/buildinfo"
	"github.com/hostd-dev/hostd/internal/testenv"
	"github.com/hostd-dev/hostd/rpc/wire"
)

func TestConfigFileFirstThenFlags(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "hostd.json")
	os.WriteFile(file, []byte(`{"socket":"/from/file.sock","logLevel":"warn","limits":{"maxSessions":3}}`), 0o600)

	cfg, err := parseConfig([]string{"--config", file}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Socket != "/from/file.sock" || cfg.LogLevel != "warn" || cfg.Limits.MaxSessions != 3 {
		t.Errorf("file not applied: %+v", cfg)
	}
	if cfg.Limits.MaxFrameBytes != config.DefaultLimits().MaxFrameBytes {
		t.Errorf("a limit the file does not name keeps its default: %d", cfg.Limits.MaxFrameBytes)
	}

	cfg, err = parseConfig([]string{"--config", file, "--socket", "/from/flag.sock", "--log-level", "debug", "--state-dir", "/st", "--log-file", "/l"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Socket != "/from/flag.sock" || cfg.LogLevel != "debug" || cfg.StateDir != "/st" || cfg.LogFile != "/l" {
		t.Errorf("flags must override the file: %+v", cfg)
	}
}

func TestDefaultsWithoutFlags(t *testing.T) {
	cfg, err := parseConfig(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Socket != config.DefaultSocketPath() || cfg.Stdio || cfg.StateDir != config.DefaultStateDir() {
		t.Errorf("%+v", cfg)
	}
}

func TestBadCommandLinesAreUsageErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"limits":{"maxSesions":3}}`), 0o600)
	zero := filepath.Join(dir, "zero.json")
	os.WriteFile(zero, []byte(`{"limits":{"maxFrameBytes":0}}`), 0o600)
	for _, args := range [][]string{
		{"--stdio", "--standalone", "--socket", "/x.sock"},
		{"--stdio", "--state-dir", dir, "--socket", "/x.sock"},
		{"--idle-exit", "-1s"},
		{"--log-level", "loud"},
		{"--frobnicate"},
		{"serve"},
		{"--config", filepath.Join(dir, "missing.json")},
		{"--config", bad},
		{"--config", zero},
	} {
		_, err := parseConfig(args, io.Discard)
		if !errors.Is(err, errUsage) || exitCode(err) != 2 {
			t.Errorf("%v: %v (exit %d), want a usage error", args, err, exitCode(err))
		}
	}
	if _, err := parseConfig([]string{"--help"}, io.Discard); exitCode(err) != 0 {
		t.Errorf("--help: %v", err)
	}
}

// runHostd runs the real binary to its exit, for what main prints.
func runHostd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out bytes.Buffer // complete, and no longer written, once hostd has exited
	d := testenv.Start(t, testenv.Options{Bin: hostdBinary(t), Args: args, Stdout: &out})
	code = d.ExitCode(time.Minute)
	return code, out.String(), d.Log()
}

func TestHelpIsTheHelpAlone(t *testing.T) {
	for _, arg := range []string{"--help", "-h"} {
		code, out, errOut := runHostd(t, arg)
		if code != 0 || errOut != "" {
			t.Errorf("%s: exit %d, stderr %q; want 0 and nothing on stderr", arg, code, errOut)
		}
		for _, flag := range []string{"--stdio", "--socket address", "--config file", "--state-dir directory", "--log-file file", "--log-level level", "--version"} {
			if !strings.Contains(out, "\n  "+flag+"\n") {
				t.Errorf("%s: help lacks %q:\n%s", arg, flag, out)
			}
		}
		if strings.Contains(out, "  -stdio") || strings.Contains(out, "help requested") {
			t.Errorf("%s: help spells a flag with one dash or reports itself as an error:\n%s", arg, out)
		}
	}
}

func TestAnUnknownFlagIsOneErrorLine(t *testing.T) {
	code, out, errOut := runHostd(t, "--frobnicate")
	want := "hostd: unknown flag --frobnicate; run hostd --help for the flags\n"
	if code != 2 || out != "" || errOut != want {
		t.Errorf("exit %d, stdout %q, stderr %q; want 2 and exactly %q", code, out, errOut, want)
	}
	code, _, errOut = runHostd(t, "--socket")
	if want := "hostd: flag needs an argument: --socket; run hostd --help for the flags\n"; code != 2 || errOut != want {
		t.Errorf("exit %d, stderr %q; want %q", code, errOut, want)
	}
}

// --version says what the binary's build information says: the version Go
// stamped on this build (a pseudo-version in a git checkout, "dev" without
// version control information), whatever the machine's GOFLAGS.
func TestVersion(t *testing.T) {
	bi, err := debugbuildinfo.ReadFile(hostdBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	want := buildinfo.From(bi).Describe("hostd", wire.ProtocolVersion) + "\n"
	code, out, errOut := runHostd(t, "--version")
	if code != 0 || errOut != "" || out != want || !strings.HasSuffix(out, ", "+runtime.Version()+"\n") {
		t.Errorf("exit %d, stderr %q, stdout %q; want %q", code, errOut, out, want)
	}
}

// A config error is the file's line and column and what is wrong, not a
// usage error's prefix.
func TestConfigErrorsNameTheLine(t *testing.T) {
	file := filepath.Join(t.TempDir(), "hostd.json")
	os.WriteFile(file, []byte("{\n  \"maxSessions\": 3\n}\n"), 0o600)
	code, _, errOut := runHostd(t, "--config", file)
	want := "hostd: config " + file + ":2:3: unknown field \"maxSessions\": it is a limit, and limits belong under \"limits\""
	if code != 2 || !strings.HasPrefix(errOut, want) || strings.Count(errOut, "\n") != 1 {
		t.Errorf("exit %d, stderr %q; want one line starting %q", code, errOut, want)
	}
}
