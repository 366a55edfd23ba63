//go:build !unix

package review

import "os"

// openNoFollow opens path for reading. Without O_NOFOLLOW the open itself
// follows a link swapped in since Lstat; Observe refuses what it opened
// unless it is the file Lstat saw (os.SameFile).
func openNoFollow(path string) (*os.File, error) {
	return os.Open(path)
}
