package tools

import (
	"time"

	"golang.org/x/sys/windows"
)

// cpuTime is the CPU time this process has used (user and kernel time,
// as GetProcessTimes counts them in 100 ns units).
func cpuTime() time.Duration {
	var creation, exit, kernel, user windows.Filetime
	if windows.GetProcessTimes(windows.CurrentProcess(), &creation, &exit, &kernel, &user) != nil {
		return 0
	}
	ticks := func(t windows.Filetime) int64 { return int64(t.HighDateTime)<<32 | int64(t.LowDateTime) }
	return time.Duration(ticks(kernel)+ticks(user)) * 100
}
