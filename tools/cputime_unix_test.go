//go:build unix

package tools

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time this process has used. The machines these run
// on are shared; CPU time compares the two programs' work even when wall
// time is inflated by other load.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
