package main

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/hostd-dev/hostd/config"
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
		{"--stdio", "--socket", "/x.sock"},
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
