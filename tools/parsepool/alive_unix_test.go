//go:build unix

package parsepool

import "syscall"

// processAlive reports whether process pid exists.
func processAlive(pid int) bool { return syscall.Kill(pid, 0) == nil }

// underWine is false: wine runs Windows programs only.
func underWine() bool { return false }
