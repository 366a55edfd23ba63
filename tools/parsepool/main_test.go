package parsepool

import (
	"fmt"
	"os"
	"testing"

	"github.com/hostd-dev/hostd/tools/blocks"
)

// workerEnv switches a test binary into a parse worker (ServeWorker), the
// mode hostd serves for its pool; the parse hook (blocks.TestHookEnv) is
// on.
const workerEnv = "HOSTD_PARSEPOOL_TEST_WORKER"

func TestMain(m *testing.M) {
	if os.Getenv(workerEnv) != "" {
		blocks.UseTestHook()
		if err := ServeWorker(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "parse worker:", err)
			os.Exit(2)
		}
		os.Exit(0)
	}
	if os.Getenv(poolHostEnv) != "" {
		os.Exit(servePoolHost())
	}
	os.Exit(m.Run())
}
