package parsepool

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// setProcAttr starts a worker without a console window of its own (the
// daemon may run without one) and in a process group of its own, so a
// console's Ctrl-C reaches the daemon, which shuts down in order, and not
// the workers in the middle of a parse.
func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NO_WINDOW | windows.CREATE_NEW_PROCESS_GROUP}
}

// startCmd starts cmd.
func startCmd(cmd *exec.Cmd) error { return cmd.Start() }

// growPipe leaves a pipe's buffer as the system makes it.
func growPipe(*os.File) {}

// selfPath is the running program.
func selfPath() (string, error) { return os.Executable() }

// job is the Windows job object every worker of a pool runs in. The
// system ends every process in it when the last handle to it closes
// (JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE), which is when the daemon exits,
// however it exits; and it refuses a worker memory past the job's process
// memory limit (JOB_OBJECT_LIMIT_PROCESS_MEMORY: the memory it has
// committed), so an allocation fails and the worker ends, which the
// daemon answers as a decline.
type job struct{ h windows.Handle }

// newJob makes the job; maxBytes is each worker's memory limit, 0 none.
func newJob(maxBytes int64) (*job, error) {
	h, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return nil, fmt.Errorf("CreateJobObject: %w", err)
	}
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if maxBytes > 0 {
		info.BasicLimitInformation.LimitFlags |= windows.JOB_OBJECT_LIMIT_PROCESS_MEMORY
		info.ProcessMemoryLimit = uintptr(maxBytes)
	}
	if _, err := windows.SetInformationJobObject(h, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(h)
		return nil, fmt.Errorf("SetInformationJobObject: %w", err)
	}
	return &job{h: h}, nil
}

// assign puts a started worker in the job. The worker has run since it
// started, but it parses nothing before its first request, which comes
// after this.
func (j *job) assign(p *os.Process) error {
	if j == nil {
		return nil
	}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(p.Pid))
	if err != nil {
		return fmt.Errorf("OpenProcess: %w", err)
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(j.h, h); err != nil {
		return fmt.Errorf("AssignProcessToJobObject: %w", err)
	}
	return nil
}

// close closes the job, which ends every worker still in it.
func (j *job) close() {
	if j != nil {
		windows.CloseHandle(j.h)
	}
}
