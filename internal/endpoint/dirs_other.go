//go:build unix && !linux && !darwin

package endpoint

// runtimeDir: these systems have no per-user runtime directory hostd
// knows of; the socket goes under /tmp.
func runtimeDir(int) string { return "" }

// maxSocketPath is the longest socket path bind accepts: sun_path holds
// 104 bytes on the BSDs, one of them the terminating NUL.
const maxSocketPath = 103
