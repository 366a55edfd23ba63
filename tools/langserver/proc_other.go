//go:build !unix

package langserver

import (
	"os"
	"os/exec"
)

// ownGroup does nothing where there are no process groups.
func ownGroup(*exec.Cmd) {}

// killGroup ends cmd's process.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		cmd.Process.Kill()
	}
}

// groupRSS is not measured here.
func groupRSS(int) (int64, bool) { return 0, false }

// killGroupOf ends the process pid.
func killGroupOf(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
	}
}
