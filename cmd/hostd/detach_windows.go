package main

import (
	"errors"
	"os/exec"
	"syscall"

	"golang.org/x/sys/windows"
)

// startDetached starts bin with no console (no window flashes up), in a
// process group of its own (a Ctrl-C in the app's console does not reach
// it), and out of the app's job object where the job allows it, so it
// outlives the forwarder and the window that spawned it. An app whose job
// forbids breaking away still gets a daemon: one that ends with the job.
// Its standard streams are the null device.
func startDetached(bin string, args []string) (*exec.Cmd, error) {
	const flags = windows.DETACHED_PROCESS | windows.CREATE_NEW_PROCESS_GROUP
	cmd := exec.Command(bin, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: flags | windows.CREATE_BREAKAWAY_FROM_JOB, HideWindow: true}
	err := cmd.Start()
	if errors.Is(err, windows.ERROR_ACCESS_DENIED) {
		cmd = exec.Command(bin, args...)
		cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: flags, HideWindow: true}
		err = cmd.Start()
	}
	return cmd, err
}
