package tools

import (
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/rpc/wire"
)

// TestEditCannotGrowAFilePastTheWriteLimit: limits.maxWriteBytes bounds
// every file an edit writes, as it bounds a write's content, so no series
// of calls makes a file the next edit or read refuses. An edit whose
// result is over the limit is refused as FILE_TOO_LARGE, naming the
// limit, and the file is left as it was; one that lands at the limit is
// written.
func TestEditCannotGrowAFilePastTheWriteLimit(t *testing.T) {
	lim := config.DefaultLimits()
	lim.MaxWriteBytes = 64
	e := newEditEnvLimits(t, lim)
	before := strings.Repeat("x\n", 20) // 40 bytes
	e.write("f.txt", before)
	tag := e.show("f.txt", 1, 20)
	r := e.edit("f.txt", tag, "PUT >20:\n"+strings.Repeat("+yy\n", 9)) // 40 + 27 = 67 bytes
	wantCode(t, r, wire.ToolFileTooLarge)
	if !strings.Contains(r.Content, "limits.maxWriteBytes") || !strings.Contains(r.Content, "67 bytes") {
		t.Errorf("the refusal does not say the size and the limit:\n%s", r.Content)
	}
	wantFile(t, e, "f.txt", before)
	r = e.edit("f.txt", tag, "PUT >20:\n"+strings.Repeat("+yy\n", 8)) // 64 bytes: at the limit
	wantOK(t, r)
	if got := e.file("f.txt"); len(got) != 64 {
		t.Errorf("the edit at the limit wrote %d bytes, want 64", len(got))
	}
}
