//go:build hostdtesthooks

package review

import (
	"fmt"
	"os"
)

// RewindHookEnv is the environment variable that makes a hostd built
// with the hostdtesthooks tag (the end-to-end tests' hostd) stop for good
// at one point of every rewind (rewindHook): "before", "intent", "stepN"
// or "written". It says so on stderr first, and the test, which waits for
// that line, kills the daemon there. Release builds leave the hook out.
const RewindHookEnv = "HOSTD_TEST_REWIND_HOOK"

func init() {
	at := os.Getenv(RewindHookEnv)
	if at == "" {
		return
	}
	rewindHook = func(point string) {
		if point != at {
			return
		}
		fmt.Fprintf(os.Stderr, "rewind hook: stopped at %s\n", point)
		select {}
	}
}
