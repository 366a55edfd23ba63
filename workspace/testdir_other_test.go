//go:build !windows

package workspace

import "testing"

// removeTree leaves the removal to t.TempDir.
func removeTree(testing.TB, string) {}

// onWine reports whether the tests run under wine; never off Windows.
func onWine() bool { return false }
