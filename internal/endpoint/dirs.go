package endpoint

import (
	"os"
	"os/user"
	"path/filepath"
)

// Default is the user's rendezvous: the address every hostd --stdio,
// hostd mcp and hostctl of this user dials, and a plain hostd listens on.
// It is derived from who the user is (the uid, the user's SID, the
// system's per-user directories), never from environment variables, so a
// launcher that passes only a few (the MCP SDK passes HOME, LOGNAME, PATH,
// SHELL, TERM and USER) reaches the same daemon as a login shell does.
//
//   - Linux: /run/user/UID/hostd/hostd.sock when /run/user/UID is the
//     user's own directory (the per-user runtime directory the login
//     manager makes, which XDG_RUNTIME_DIR names in a desktop session),
//     else /tmp/hostd-UID/hostd.sock.
//   - macOS: hostd/hostd.sock in the user's temporary directory as the
//     system reports it (confstr _CS_DARWIN_USER_TEMP_DIR, the directory
//     $TMPDIR names in a login session).
//   - Windows: the named pipe \\.\pipe\hostd-SID, SID being the user's.
//   - other Unix systems: /tmp/hostd-UID/hostd.sock.
func Default() string { return defaultAddress() }

// StateDir is the user's directory for durable state (the review record)
// and the shared daemon's log:
//
//   - Linux and other Unix systems: $XDG_STATE_HOME/hostd, else
//     ~/.local/state/hostd;
//   - macOS: $XDG_STATE_HOME/hostd when that is set, else
//     ~/Library/Application Support/hostd;
//   - Windows: %LOCALAPPDATA%\hostd (the Local AppData known folder).
func StateDir() string { return stateDir(os.Getenv) }

// homeDir is $HOME, else the user database's home directory, else "".
func homeDir() string {
	if home, err := os.UserHomeDir(); err == nil && filepath.IsAbs(home) {
		return home
	}
	if u, err := user.Current(); err == nil && filepath.IsAbs(u.HomeDir) {
		return u.HomeDir
	}
	return ""
}
