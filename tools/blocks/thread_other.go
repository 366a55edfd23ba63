//go:build !linux

package blocks

// threadID is 0 where threads are not demoted.
func threadID() int { return 0 }

// demote does nothing on systems without per-thread priorities.
func demote(int) bool { return false }
