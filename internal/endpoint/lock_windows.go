package endpoint

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/windows"
)

// lockName takes the exclusive lock that makes this process the owner of
// the pipe name path, as the lock file beside a Unix socket does: a file
// in the user's state directory named for the pipe, locked with LockFileEx
// for the daemon's life (the system releases it when the process ends,
// however it ends). A pipe name is only a name until someone listens, so
// this is what tells a second daemon, during the first one's start, that
// it is second.
func lockName(path string) (windows.Handle, error) {
	dir := filepath.Join(StateDir(), "run")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return 0, fmt.Errorf("pipe lock: %w", err)
	}
	sum := sha256.Sum256([]byte(path))
	name := filepath.Join(dir, hex.EncodeToString(sum[:8])+".lock")
	p, err := windows.UTF16PtrFromString(name)
	if err != nil {
		return 0, err
	}
	h, err := windows.CreateFile(p, windows.GENERIC_READ|windows.GENERIC_WRITE, windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE,
		nil, windows.OPEN_ALWAYS, windows.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		return 0, fmt.Errorf("pipe lock %s: %w", name, err)
	}
	var ol windows.Overlapped
	err = windows.LockFileEx(h, windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol)
	if err != nil {
		windows.CloseHandle(h)
		if err == windows.ERROR_LOCK_VIOLATION || err == windows.ERROR_IO_PENDING {
			return 0, &LiveError{Addr: path}
		}
		return 0, fmt.Errorf("pipe lock %s: %w", name, err)
	}
	return h, nil
}
