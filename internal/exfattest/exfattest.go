// Package exfattest mounts a case-insensitive, case-preserving filesystem
// for tests: a fresh exFAT image on a loop device, through FUSE
// (exfat-fuse), as the desktops' APFS and NTFS behave by default. It owns
// the mount and its removal, nothing else, and is imported only by tests.
package exfattest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/internal/testenv"
)

// tools are the programs Mount runs: Debian's exfatprogs (mkfs.exfat),
// exfat-fuse (mount.exfat-fuse) and util-linux.
var tools = []string{"mkfs.exfat", "mount.exfat-fuse", "losetup", "umount"}

// Mount makes a 64 MiB exFAT filesystem, mounts it and returns the mount
// directory, which is unmounted and its loop device detached when the
// test ends. It skips the test, saying why, where it cannot: not Linux,
// not root, no /dev/fuse, or the mount refused; a program missing is
// testenv.Missing (a failure in CI, which installs them).
//
// Mind FUSE's caches when checking results: the kernel keeps a looked-up
// name's attributes for a second, so check a name on disk by listing its
// directory, which always asks the filesystem.
func Mount(tb testing.TB) string {
	tb.Helper()
	if runtime.GOOS != "linux" {
		tb.Skip("an exFAT mount through FUSE needs Linux")
	}
	if os.Geteuid() != 0 {
		tb.Skip("mounting an exFAT image needs root (losetup, mount)")
	}
	if _, err := os.Stat("/dev/fuse"); err != nil {
		tb.Skipf("no /dev/fuse: %v", err)
	}
	for _, t := range tools {
		if _, err := exec.LookPath(t); err != nil {
			testenv.Missing(tb, "%s is not installed (apt-get install exfatprogs exfat-fuse)", t)
		}
	}
	base := tb.TempDir()
	img, dir := filepath.Join(base, "exfat.img"), filepath.Join(base, "mnt")
	if err := os.Mkdir(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	f, err := os.Create(img)
	if err != nil {
		tb.Fatal(err)
	}
	err = f.Truncate(64 << 20)
	f.Close()
	if err != nil {
		tb.Fatal(err)
	}
	if out, err := run("mkfs.exfat", img); err != nil {
		tb.Skipf("mkfs.exfat refused: %v: %s", err, out)
	}
	dev, err := run("losetup", "-f", "--show", img)
	if err != nil {
		tb.Skipf("no loop device: %v: %s", err, dev)
	}
	dev = strings.TrimSpace(dev)
	tb.Cleanup(func() {
		if out, err := run("losetup", "-d", dev); err != nil {
			tb.Errorf("losetup -d %s: %v: %s", dev, err, out)
		}
	})
	if out, err := run("mount.exfat-fuse", dev, dir); err != nil {
		tb.Skipf("mount.exfat-fuse refused: %v: %s", err, out)
	}
	// Registered after the detach, so it runs first. Directories the code
	// under test holds open until they are garbage collected (an os.Root)
	// keep the mount busy: collect them, and in the end detach the mount
	// lazily, to go when the last of them closes.
	tb.Cleanup(func() {
		for range 20 {
			if _, err := run("umount", dir); err == nil {
				return
			}
			runtime.GC()
			time.Sleep(50 * time.Millisecond)
		}
		if out, err := run("umount", "-l", dir); err != nil {
			tb.Errorf("umount -l %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

func run(name string, args ...string) (string, error) {
	var out bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}
