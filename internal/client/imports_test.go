package client

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The client imports of hostd only the wire (params, results, codes and
// the frame reader): never the server, whose method table it is generated
// from, nor a domain package, so a program that only calls the daemon does
// not link the daemon.
func TestTheClientImportsOnlyTheWire(t *testing.T) {
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			seen++
			if strings.HasPrefix(path, "github.com/hostd-dev/hostd/") && path != "github.com/hostd-dev/hostd/rpc/wire" {
				t.Errorf("%s imports %s: the client imports of hostd only rpc/wire", name, path)
			}
		}
	}
	if seen == 0 {
		t.Fatal("found no imports; the scan is not seeing the package")
	}
}
