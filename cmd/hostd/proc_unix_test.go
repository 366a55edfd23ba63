//go:build unix

package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/internal/testenv"
)

// processCPU is the CPU time, user and system, this process has used, in
// seconds: unlike the runtime's CPU classes it leaves out time spent
// waiting in fsync.
func processCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// killProcess sends pid SIGKILL.
func killProcess(pid int) { syscall.Kill(pid, syscall.SIGKILL) }

// waitGone waits until process pid has exited (a zombie with no thread
// left but its leader counts as gone: its sockets are closed), for 20 s
// at most.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	testenv.Until(t, 20*time.Second, fmt.Sprintf("process %d to exit after SIGKILL", pid), func() bool {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return syscall.Kill(pid, 0) == syscall.ESRCH || errors.Is(err, fs.ErrNotExist)
		}
		if i := strings.LastIndexByte(string(stat), ')'); i > 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
			// The leader is a zombie as soon as it exits, but its other
			// threads may still be exiting, holding the process's files
			// (its listening socket among them) until the last one ends.
			tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
			return err != nil || len(tasks) <= 1
		}
		return false
	})
}
