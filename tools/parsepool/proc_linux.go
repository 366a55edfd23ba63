package parsepool

import (
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// setProcAttr makes a worker die with the daemon: the kernel sends it
// SIGKILL when the thread that started it ends (PR_SET_PDEATHSIG), and
// startCmd starts every worker from one thread that lives as long as the
// process. Its stdin also ends then, which ends an idle worker in any
// case. The worker gets a process group of its own, so a terminal's
// Ctrl-C reaches the daemon, which shuts down in order, and not the
// workers in the middle of a parse.
func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
}

// spawns runs functions on the spawner thread, which startSpawner
// starts once: a goroutine locked to its thread and never unlocked or
// ended, so the thread a worker's parent-death signal is tied to lives as
// long as the process (Go may otherwise end a thread).
var (
	spawns       = make(chan func())
	spawnerStart sync.Once
)

func startSpawner() {
	go func() {
		runtime.LockOSThread()
		for f := range spawns {
			f()
		}
	}()
}

// startCmd starts cmd on the spawner thread.
func startCmd(cmd *exec.Cmd) error {
	spawnerStart.Do(startSpawner)
	done := make(chan error, 1)
	spawns <- func() { done <- cmd.Start() }
	return <-done
}

// selfPath is the running program: the kernel's link to it, which still
// names the same file after an upgrade replaced the one on disk.
func selfPath() (string, error) {
	if _, err := os.Stat("/proc/self/exe"); err == nil {
		return "/proc/self/exe", nil
	}
	return os.Executable()
}

// growPipe asks the kernel for a 1 MiB buffer in the pipe to a worker
// (64 KiB by default), so a request of a file's text is one write and
// one wake-up of the worker, not a ping-pong of 64 KiB turns, each of
// which waits for the scheduler on a busy machine. Past the system's
// pipe-max-size the kernel refuses, and the default stays.
func growPipe(f *os.File) {
	if rc, err := f.SyscallConn(); err == nil {
		_ = rc.Control(func(fd uintptr) { _, _ = unix.FcntlInt(fd, unix.F_SETPIPE_SZ, 1<<20) })
	}
}

// job groups the workers on Windows; elsewhere it is nothing.
type job struct{}

func newJob(int64) (*job, error)      { return nil, nil }
func (*job) assign(*os.Process) error { return nil }
func (*job) close()                   {}
