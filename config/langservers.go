package config

import (
	"fmt"
	"path/filepath"
)

// LanguageServers configure the language servers hostd runs for the
// errors of a write or an edit and the diagnostics tool
// (docs/language-servers.md). They are on by default: a language's
// server runs when it is found on the PATH (or in a workspace's
// node_modules for TypeScript); off turns them off for some workspaces,
// enabled false for all.
type LanguageServers struct {
	Enabled bool `json:"enabled"`
	// Servers: a language's command (go, typescript, python, rust, c),
	// replacing the known one; [] turns the language off.
	Servers map[string][]string `json:"servers,omitempty"`
	// Off are absolute workspace roots where no server runs (nor below).
	Off            []string `json:"off,omitempty"`
	MaxServers     int      `json:"maxServers"`     // running at once; past it the least recently used is shut down
	MaxServerBytes int64    `json:"maxServerBytes"` // the resident memory of one server and what it started (Linux)
	StartMs        int      `json:"startMs"`        // initialize answered, and each write to it taken, within this
	IdleMs         int      `json:"idleMs"`         // unused this long: shut down
	MaxRestarts    int      `json:"maxRestarts"`    // after a crash; then the server is reported failed
	DiagnosticsMs  int      `json:"diagnosticsMs"`  // how long a write or an edit waits for its errors
}

// DefaultLanguageServers are the defaults docs/language-servers.md
// states (tools/langserver's, which a test holds them to).
func DefaultLanguageServers() LanguageServers {
	return LanguageServers{
		Enabled:        true,
		MaxServers:     4,
		MaxServerBytes: 2 << 30,
		StartMs:        20000,
		IdleMs:         15 * 60 * 1000,
		MaxRestarts:    3,
		DiagnosticsMs:  2000,
	}
}

// check refuses values that would turn a bound off, and relative roots.
func (l *LanguageServers) check() error {
	if len(l.Servers) == 0 {
		l.Servers = nil
	}
	if len(l.Off) == 0 {
		l.Off = nil
	}
	for name, v := range map[string]int64{"maxServers": int64(l.MaxServers), "maxServerBytes": l.MaxServerBytes,
		"startMs": int64(l.StartMs), "idleMs": int64(l.IdleMs), "diagnosticsMs": int64(l.DiagnosticsMs)} {
		if v <= 0 {
			return fmt.Errorf("languageServers.%s (%d) must be positive", name, v)
		}
	}
	if l.MaxRestarts < 0 {
		return fmt.Errorf("languageServers.maxRestarts (%d) must be 0 or more", l.MaxRestarts)
	}
	for i, root := range l.Off {
		if !filepath.IsAbs(root) {
			return fmt.Errorf("languageServers.off[%d] (%q) must be an absolute directory", i, root)
		}
	}
	for lang, argv := range l.Servers {
		for _, a := range argv {
			if a == "" {
				return fmt.Errorf("languageServers.servers.%s holds an empty argument", lang)
			}
		}
	}
	return nil
}
