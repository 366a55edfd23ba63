//go:build !unix && !windows

package review

import "os"

// tryLock takes no lock where the system has neither flock nor LockFileEx
// (hostd is built for unix and Windows only; bbolt does not lock there
// either), so Open on such a system does not refuse a second daemon.
func tryLock(*os.File) (held bool, err error) { return true, nil }

// openLockable opens the database file to lock it (lockFile).
func openLockable(path string) (*os.File, error) { return os.Open(path) }
