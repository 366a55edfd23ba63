package endpoint

// runtimeDir is the user's temporary directory as the system reports it,
// when it is the user's own directory.
func runtimeDir(uid int) string { return usableDir(userTempDir(), uid) }

// maxSocketPath is the longest socket path bind accepts: sun_path holds
// 104 bytes on macOS, one of them the terminating NUL.
const maxSocketPath = 103
