//go:build unix

package main

import (
	"os/exec"
	"syscall"
)

// startDetached starts bin in a session of its own, so it outlives the
// forwarder, the window that spawned it and that window's terminal. Its
// standard streams are the null device.
func startDetached(bin string, args []string) (*exec.Cmd, error) {
	cmd := exec.Command(bin, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return cmd, cmd.Start()
}
