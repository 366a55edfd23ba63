//go:build unix

package review

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// errLockTimeout: the lock stayed held for the whole wait.
var errLockTimeout = errors.New("lock wait timed out")

// lockFile takes the exclusive flock bbolt takes on its file, waiting up
// to wait for another holder to let go. It is released when f is closed.
func lockFile(f *os.File, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			return &os.PathError{Op: "flock", Path: f.Name(), Err: err}
		}
		if time.Now().After(deadline) {
			return errLockTimeout
		}
		time.Sleep(50 * time.Millisecond)
	}
}
