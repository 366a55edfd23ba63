//go:build !unix

package review

import (
	"errors"
	"os"
	"time"
)

var errLockTimeout = errors.New("lock wait timed out")

// lockFile does nothing where flock does not exist: there bbolt locks its
// file in a way another handle cannot share, and the rename that follows
// fails while another process holds the file open.
func lockFile(*os.File, time.Duration) error { return nil }
