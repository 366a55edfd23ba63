//go:build unix

package review

import (
	"errors"
	"os"
	"syscall"
)

// tryLock takes flock's exclusive lock on f without waiting, as bbolt
// locks its file on unix; held is false when another open file holds it.
func tryLock(f *os.File) (held bool, err error) {
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, syscall.EWOULDBLOCK):
		return false, nil
	}
	return false, &os.PathError{Op: "flock", Path: f.Name(), Err: err}
}

// openLockable opens the database file to lock it (lockFile).
func openLockable(path string) (*os.File, error) { return os.Open(path) }
