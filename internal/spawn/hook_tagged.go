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
