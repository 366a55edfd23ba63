package endpoint

import (
	"path/filepath"
	"strconv"
)

// runRoot is where the login manager makes each user's runtime directory.
var runRoot = "/run/user"

// runtimeDir is /run/user/UID when it is the user's own directory.
func runtimeDir(uid int) string {
	return usableDir(filepath.Join(runRoot, strconv.Itoa(uid)), uid)
}

// maxSocketPath is the longest socket path bind accepts: Linux's sun_path
// holds 108 bytes, one of them the terminating NUL.
const maxSocketPath = 107
