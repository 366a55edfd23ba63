package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The contract's values are the defaults (edit-contract §4.4 and §12).
func TestDefaultsAreTheContract(t *testing.T) {
	l := DefaultLimits()
	checks := map[string][2]int64{
		"paths per session":     {int64(l.MaxPathsPerSession), 64},
		"versions per path":     {int64(l.MaxVersionsPerPath), 4},
		"retained per session":  {l.MaxRetainedBytesPerSession, 8 << 20},
		"single-file retention": {l.MaxRetainedFileBytes, 2 << 20},
		"line chars":            {int64(l.MaxLineChars), 16384},
		"ops payload":           {int64(l.MaxOpsPayloadBytes), 256 << 10},
		"ops per call":          {int64(l.MaxOpsPerCall), 200},
		"expanded lines":        {int64(l.MaxExpandedLines), 100000},
		"reveal lines":          {int64(l.MaxRevealLines), 40},
		"reveal width":          {int64(l.MaxRevealLineChars), 512},
		"register lines":        {int64(l.MaxRegisterLines), 4096},
		"register bytes":        {l.MaxRegisterBytes, 1 << 20},
		"named registers":       {int64(l.MaxNamedRegisters), 16},
		"block parse":           {l.MaxBlockParseBytes, 4 << 20},
		"frame":                 {l.MaxFrameBytes, 64 << 20},
	}
	for name, c := range checks {
		if c[0] != c[1] {
			t.Errorf("%s = %d, contract says %d", name, c[0], c[1])
		}
	}
	if err := l.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	write := func(s string) string {
		p := filepath.Join(dir, "c.json")
		os.WriteFile(p, []byte(s), 0o600)
		return p
	}
	c := Default()
	if err := c.Load(write(`{"logLevel":"debug","limits":{"maxSessions":3}}`)); err != nil {
		t.Fatal(err)
	}
	if c.LogLevel != "debug" || c.Limits.MaxSessions != 3 || c.Limits.MaxPathsPerSession != 64 {
		t.Fatalf("loaded %+v", c)
	}
	c = Default()
	if err := c.Load(write(`{"limits":{"maxSesions":3}}`)); err == nil || !strings.Contains(err.Error(), "maxSesions") {
		t.Fatalf("a misspelt limit was not reported: %v", err)
	}
	c = Default()
	if err := c.Load(write(`{"limits":{"maxRevealLines":0}}`)); err == nil || !strings.Contains(err.Error(), "maxRevealLines") {
		t.Fatalf("a zero limit was accepted: %v", err)
	}
}

// The default socket is the user's rendezvous, which no environment
// variable moves (issue: a launcher that drops XDG_RUNTIME_DIR or TMPDIR
// must reach the same daemon).
func TestDefaultSocketPathIgnoresTheEnvironment(t *testing.T) {
	before := DefaultSocketPath()
	t.Setenv("XDG_RUNTIME_DIR", "/run/user/7")
	t.Setenv("TMPDIR", "/tmp/x")
	if got := DefaultSocketPath(); got != before {
		t.Fatalf("with XDG_RUNTIME_DIR and TMPDIR set: %s; without: %s", got, before)
	}
}
