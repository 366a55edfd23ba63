package tools

import (
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/hostd-dev/hostd/tools/parsepool"
)

// parseWorkerEnv makes this test binary a parse worker, so a test can
// run the daemon's parse workers (tools/parsepool Workers) as separate
// processes of itself, as cmd/hostd does with `hostd parse-worker`.
const parseWorkerEnv = "HOSTD_TOOLS_TEST_PARSE_WORKER"

// hungServerEnv makes this test binary a language server that reads
// everything and answers nothing (diagnostics_test.go).
const hungServerEnv = "HOSTD_TOOLS_TEST_HUNG_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(hungServerEnv) != "" {
		io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}
	if os.Getenv(parseWorkerEnv) != "" {
		if err := parsepool.ServeWorker(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "parse worker:", err)
			os.Exit(2)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
