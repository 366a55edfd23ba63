package review

import (
	"errors"
	"os"
	"time"
)

// errLockTimeout: the lock stayed held for the whole wait.
var errLockTimeout = errors.New("lock wait timed out")

// lockRetry is how often lockFile tries again while another process holds
// the lock; bbolt polls its own lock as often.
const lockRetry = 50 * time.Millisecond

// lockFile takes the exclusive lock bbolt takes on its database file
// (tryLock: flock on unix, LockFileEx on Windows), waiting up to wait for
// another holder to let go; past that it fails with errLockTimeout, which
// Open reports as ErrLocked. The lock is released when f is closed. f
// comes from openLockable, so that the file can be renamed while held.
func lockFile(f *os.File, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for {
		held, err := tryLock(f)
		if err != nil || held {
			return err
		}
		if time.Now().After(deadline) {
			return errLockTimeout
		}
		time.Sleep(lockRetry)
	}
}
