//go:build hostdtesthooks

package review

import (
	"fmt"
	"os"
)

// A build with the hostdtesthooks tag (the end-to-end tests' hostd)
// honours RewindHookEnv. Release builds leave the hook out entirely.
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
