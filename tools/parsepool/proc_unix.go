//go:build unix && !linux

package parsepool

import (
	"os"
	"os/exec"
	"syscall"
)

// setProcAttr gives a worker a process group of its own, so a terminal's
// Ctrl-C reaches the daemon, which shuts down in order, and not the
// workers in the middle of a parse. There is no parent-death signal
// here: a worker ends when its stdin does (the daemon is gone and no
// request is running), and a worker in a request ends itself once the
// request is past its time and grace (worker.go).
func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// startCmd starts cmd.
func startCmd(cmd *exec.Cmd) error { return cmd.Start() }

// growPipe leaves a pipe's buffer as the system makes it.
func growPipe(*os.File) {}

// selfPath is the running program.
func selfPath() (string, error) { return os.Executable() }

// job groups the workers on Windows; elsewhere it is nothing.
type job struct{}

func newJob(int64) (*job, error)      { return nil, nil }
func (*job) assign(*os.Process) error { return nil }
func (*job) close()                   {}
