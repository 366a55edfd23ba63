//go:build hostdtesthooks && unix

package spawn

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"
)

// HoldEnv is the environment variable that, in a build with the
// hostdtesthooks tag, makes every child start of the process also start
// a holder: a process given a copy of every descriptor the starter has,
// which keeps them for the duration the variable names ("1.5s") and is
// not tied to its parent's life. It is what a child forked and not yet
// exec'd is, on a busy machine that leaves it unscheduled: the restart
// tests widen that window with it.
const HoldEnv = "HOSTD_TEST_START_HOLD"

func init() {
	d, err := time.ParseDuration(os.Getenv(HoldEnv))
	if err != nil || d <= 0 {
		return
	}
	beforeStart = func() { hold(d) }
}

// hold starts the holder; it does not wait for it.
func hold(d time.Duration) {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		entries, err = os.ReadDir("/dev/fd")
		if err != nil {
			return
		}
	}
	var files []*os.File
	defer func() { closeEach(files) }()
	for _, e := range entries {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || fd < 3 {
			continue
		}
		dup, err := syscall.Dup(fd)
		if err != nil {
			continue // the directory's own descriptor, closed by now
		}
		syscall.CloseOnExec(dup)
		files = append(files, os.NewFile(uintptr(dup), "held"))
	}
	cmd := exec.Command("sleep", fmt.Sprintf("%.3f", d.Seconds()))
	cmd.ExtraFiles = files
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if cmd.Start() == nil {
		go cmd.Wait()
	}
}

func closeEach(files []*os.File) {
	for _, f := range files {
		f.Close()
	}
}
