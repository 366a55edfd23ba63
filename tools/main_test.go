package tools

import (
	"fmt"
	"os"
	"testing"

	"github.com/hostd-dev/hostd/tools/blocks"
)

// parseWorkerEnv makes this test binary a parse worker, so a test can
// run the daemon's parse workers (tools/blocks Workers) as separate
// processes of itself, as cmd/hostd does with `hostd parse-worker`.
const parseWorkerEnv = "HOSTD_TOOLS_TEST_PARSE_WORKER"

func TestMain(m *testing.M) {
	if os.Getenv(parseWorkerEnv) != "" {
		if err := blocks.ServeWorker(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "parse worker:", err)
			os.Exit(2)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
