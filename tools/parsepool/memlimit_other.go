//go:build !linux && !darwin

package parsepool

// limitMemory does nothing where a worker cannot bound itself: on
// Windows the daemon puts every worker in a job object whose process
// memory limit the system enforces (proc_windows.go); other systems get
// no limit.
func limitMemory(int64) (string, error) { return "", nil }
