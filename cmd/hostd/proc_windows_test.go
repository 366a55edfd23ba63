package main

import (
	"testing"
	"time"

	"golang.org/x/sys/windows"
)

// processCPU is the CPU time, user and kernel, this process has used, in
// seconds (GetProcessTimes counts 100 ns units).
func processCPU() float64 {
	var creation, exit, kernel, user windows.Filetime
	if windows.GetProcessTimes(windows.CurrentProcess(), &creation, &exit, &kernel, &user) != nil {
		return 0
	}
	ticks := func(t windows.Filetime) int64 { return int64(t.HighDateTime)<<32 | int64(t.LowDateTime) }
	return (time.Duration(ticks(kernel)+ticks(user)) * 100).Seconds()
}

// killProcess ends pid at once, as SIGKILL does elsewhere.
func killProcess(pid int) {
	h, err := windows.OpenProcess(windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		return
	}
	defer windows.CloseHandle(h)
	windows.TerminateProcess(h, 1)
}

// waitGone waits until process pid has exited, for 20 s at most.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	h, err := windows.OpenProcess(windows.SYNCHRONIZE, false, uint32(pid))
	if err != nil {
		return // no such process: gone
	}
	defer windows.CloseHandle(h)
	if ev, err := windows.WaitForSingleObject(h, 20000); err != nil || ev != windows.WAIT_OBJECT_0 {
		t.Fatalf("process %d did not exit within 20 s of being killed", pid)
	}
}
