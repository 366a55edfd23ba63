//go:build linux

package review

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/hostd-dev/hostd/config"
)

// envReadOnlyDir, in the child, is a directory the child bind-mounts
// read-only over itself (in a mount namespace of its own) before Open.
const envReadOnlyDir = "REVIEW_READONLY_DIR"

func readOnlyChild(dir string) {
	if err := syscall.Mount(dir, dir, "", syscall.MS_BIND, ""); err != nil {
		fmt.Println("skip: bind mount:", err)
		return
	}
	if err := syscall.Mount("", dir, "", syscall.MS_REMOUNT|syscall.MS_BIND|syscall.MS_RDONLY, ""); err != nil {
		fmt.Println("skip: read-only remount:", err)
		return
	}
	_, err := Open(dir, config.DefaultLimits(), nil)
	fmt.Println("readonly:", errors.Is(err, ErrReadOnly), err)
}

// A state directory on a read-only filesystem is refused as such: with a
// store in it, damaged or not, and without one. The child gets a mount
// namespace of its own, which needs root; without it the test skips.
func TestOpenRefusesReadOnlyFilesystem(t *testing.T) {
	pristine := pristineStore(t)
	for _, tc := range []struct {
		name string
		data []byte
	}{{"store", pristine}, {"damaged", []byte("damage")}, {"none", nil}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.data != nil {
				if err := os.WriteFile(filepath.Join(dir, FileName), tc.data, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), envReadOnlyDir+"="+dir)
			cmd.SysProcAttr = &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS}
			out, err := cmd.CombinedOutput()
			if err != nil && os.Getuid() != 0 {
				t.Skipf("a mount namespace needs root: %v", err)
			}
			if err != nil {
				t.Fatalf("child: %v\n%s", err, out)
			}
			if s := string(out); strings.HasPrefix(s, "skip:") {
				t.Skip(s)
			}
			if !strings.HasPrefix(string(out), "readonly: true") || !strings.Contains(string(out), "read-only file system") {
				t.Errorf("Open on a read-only filesystem: %s", out)
			}
			if aside, _ := filepath.Glob(filepath.Join(dir, FileName+".corrupt-*")); len(aside) > 0 {
				t.Errorf("moved aside on a read-only filesystem: %v", aside)
			}
		})
	}
}

// runChild runs this test binary's child roles; it reports whether it ran
// one, in which case the process must exit.
func runChild() bool {
	if dir := os.Getenv(envReadOnlyDir); dir != "" {
		readOnlyChild(dir)
		return true
	}
	return runPortableChild()
}
