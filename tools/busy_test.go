package tools

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/review"
	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/workspace"
)

// A file another program holds open without sharing (workspace.ErrBusy,
// from Windows) is HOST_BUSY: retriable, naming the cause and the next
// step, whether the read or the write met it.
func TestABusyFileIsRetriableHostBusy(t *testing.T) {
	busy := fmt.Errorf("%w: Foo.go is open in another program", workspace.ErrBusy)
	p := workspace.Path{Display: "src/Foo.go"}
	for name, e := range map[string]*wire.ToolError{
		"read":  statError(p, busy),
		"write": (&Call{ToolName: "edit"}).writeError(review.Edit{Path: p, Existed: true}, busy),
	} {
		if e.Code != wire.ToolHostBusy || !e.Retriable {
			t.Errorf("%s: %s retriable=%v, want retriable HOST_BUSY", name, e.Code, e.Retriable)
		}
		for _, want := range []string{"src/Foo.go", "open in another program", "nothing was changed", "call again"} {
			if !strings.Contains(e.Message, want) {
				t.Errorf("%s: message %q does not say %q", name, e.Message, want)
			}
		}
	}
}
