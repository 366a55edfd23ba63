package blocks

import "golang.org/x/sys/unix"

// threadID is the calling OS thread's id.
func threadID() int { return unix.Gettid() }

// demote gives thread tid the lowest scheduling priority, so a parse left
// to finish alone runs on what other work leaves idle, and reports
// whether it did. The process's main thread is left alone: it cannot end
// with its goroutine, and would stay demoted.
func demote(tid int) bool {
	if tid == unix.Getpid() {
		return false
	}
	return unix.Setpriority(unix.PRIO_PROCESS, tid, 19) == nil
}
