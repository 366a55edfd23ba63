package blocks

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/internal/testenv"
)

// TestSingleRuntime: the JSON grammar's module also offers the official Go
// binding, whose C runtime would collide with the one the other grammars
// link. Only the grammar itself may be linked.
func TestSingleRuntime(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		testenv.Missing(t, "the go command is needed to list the package's dependencies: put it on PATH")
	}
	out, err := exec.Command(gobin, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	runtimes := 0
	for _, d := range deps {
		if strings.HasPrefix(d, "github.com/tree-sitter/go-tree-sitter") {
			t.Errorf("a second tree-sitter runtime is linked: %s", d)
		}
		if d == "github.com/smacker/go-tree-sitter" {
			runtimes++
		}
	}
	if runtimes != 1 {
		t.Errorf("the smacker runtime is not among the dependencies: %v", deps)
	}
}
