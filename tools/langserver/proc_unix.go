//go:build unix

package langserver

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// ownGroup starts cmd in a process group of its own, so ending the
// server ends what it started (typescript-language-server's tsserver).
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup ends cmd's process group.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Process.Kill()
	}
}

// groupRSS is the resident memory of the processes of pid's group, as
// Linux's /proc tells it; ok false elsewhere.
func groupRSS(pid int) (int64, bool) {
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil || len(stats) == 0 {
		return 0, false
	}
	page := int64(os.Getpagesize())
	var sum int64
	for _, f := range stats {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		// The fields after the command name, which is in parentheses and
		// may hold anything: state ppid pgrp ... rss is the 22nd of them.
		i := strings.LastIndexByte(string(data), ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(string(data[i+1:]))
		if len(fields) < 22 || fields[2] != strconv.Itoa(pid) {
			continue
		}
		if n, err := strconv.ParseInt(fields[21], 10, 64); err == nil {
			sum += n * page
		}
	}
	return sum, true
}

// killGroupOf ends the process group pid leads.
func killGroupOf(pid int) { syscall.Kill(-pid, syscall.SIGKILL) }
