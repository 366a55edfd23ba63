//go:build darwin && !cgo

package endpoint

import "os"

// userTempDir without cgo has no way to ask the system, so it takes
// $TMPDIR, which a login session sets to the same directory. hostd itself
// is always built with cgo (its grammars are C); this serves a hostctl
// built without it.
func userTempDir() string { return os.Getenv("TMPDIR") }
