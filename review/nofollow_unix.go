//go:build unix

package review

import (
	"os"
	"syscall"
)

// openNoFollow opens path for reading, refusing a final symbolic link
// (O_NOFOLLOW) and never blocking on a FIFO (O_NONBLOCK).
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}
