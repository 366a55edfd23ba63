//go:build windows

package review

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// lockOffset is the one byte bbolt locks on Windows: the last possible
// offset, which no read or write of the file ever touches, so the lock
// refuses other lockers without refusing I/O (LockFileEx locks are
// mandatory for the range they cover). Two handles on one file contend
// as two processes do.
const lockOffset = ^uint32(0)

// tryLock takes LockFileEx's exclusive lock on bbolt's byte of f without
// waiting; held is false when another handle holds it.
func tryLock(f *os.File) (held bool, err error) {
	ol := windows.Overlapped{Offset: lockOffset, OffsetHigh: lockOffset}
	err = windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, windows.ERROR_LOCK_VIOLATION):
		return false, nil
	}
	return false, &os.PathError{Op: "LockFileEx", Path: f.Name(), Err: err}
}

// openLockable opens the database file to lock it (lockFile). os.Open does
// not share delete access, and Windows refuses to rename a file while a
// handle without it is open: moveAside renames the file it holds locked.
func openLockable(path string) (*os.File, error) {
	name, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	h, err := windows.CreateFile(name, windows.GENERIC_READ,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE,
		nil, windows.OPEN_EXISTING, windows.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(h), path), nil
}
