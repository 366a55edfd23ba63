package endpoint

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

func TestTheRuntimeDirectoryOfLinux(t *testing.T) {
	saved := runRoot
	t.Cleanup(func() { runRoot = saved })
	runRoot = t.TempDir()
	uid := os.Getuid()
	if got := runtimeDir(uid); got != "" {
		t.Errorf("no /run/user/%d: got %s", uid, got)
	}
	own := filepath.Join(runRoot, strconv.Itoa(uid))
	os.Mkdir(own, 0o700)
	if got := runtimeDir(uid); got != own {
		t.Errorf("got %q, want %s", got, own)
	}
}
