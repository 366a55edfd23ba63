package endpoint

import (
	"path/filepath"

	"golang.org/x/sys/windows"
)

// pipePrefix begins every hostd pipe name; the user's SID follows.
const pipePrefix = `\\.\pipe\hostd-`

func defaultAddress() string {
	sid, err := userSID()
	if err != nil {
		// No token to read is no user to serve; a name no one listens on
		// makes every dial say so.
		return pipePrefix + "unknown-user"
	}
	return pipePrefix + sid
}

func stateDir(getenv func(string) string) string {
	dir, err := windows.KnownFolderPath(windows.FOLDERID_LocalAppData, windows.KF_FLAG_DEFAULT)
	if err != nil || dir == "" {
		dir = getenv("LOCALAPPDATA")
	}
	if dir == "" {
		dir = filepath.Join(homeDir(), "AppData", "Local")
	}
	return filepath.Join(dir, "hostd")
}

// userSID is the SID of the user this process runs as, from its token.
func userSID() (string, error) {
	u, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return "", err
	}
	return u.User.Sid.String(), nil
}
