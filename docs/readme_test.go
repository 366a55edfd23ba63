package docs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The README's examples spawn `hostd` by name (the MCP configuration) and
// through the npm package (the TypeScript client's spawn), so it must say
// how to install a release, from an archive onto PATH and from npm, before
// the first of them; and how to install from source, with the packages it
// names being the real commands.
func TestREADMEPutsTheCommandsOnPathBeforeSpawningThem(t *testing.T) {
	root := mustRoot(t)
	readme := mustRead(t, root, "README.md")
	const install = "install -m 755 hostd_${v}_$a/hostd hostd_${v}_$a/hostctl ~/.local/bin/"
	at := strings.Index(readme, install)
	if at < 0 {
		t.Fatalf("the README never says %q", install)
	}
	if npm := strings.Index(readme, "$ npm install @hostd/client"); npm < 0 || npm > strings.Index(readme, "HostdClient.spawn()") {
		t.Errorf("the README must say $ npm install @hostd/client before it spawns through the package")
	}
	if !strings.Contains(readme, "$ go install ./cmd/hostd ./cmd/hostctl") {
		t.Errorf("the README no longer says how to install from source")
	}
	for _, pkg := range []string{"cmd/hostd", "cmd/hostctl"} {
		if _, err := os.Stat(filepath.Join(root, pkg, "main.go")); err != nil {
			t.Errorf("the README installs ./%s, which is not a command: %v", pkg, err)
		}
	}
	for _, spawn := range []string{"HostdClient.spawn()", `"command": "hostd"`} {
		i := strings.Index(readme, spawn)
		if i < 0 {
			t.Errorf("the README no longer spawns hostd with %s; keep this test's list true", spawn)
		} else if i < at {
			t.Errorf("the README spawns hostd (%s) before it says how to install it", spawn)
		}
	}
}

// A plain `go test ./...` says nothing of its skips: the README says where
// the shared corpus goes (the path the tests read) and how to see what
// skipped, with commands that name real things.
func TestREADMESaysHowToSeeTheSkips(t *testing.T) {
	root := mustRoot(t)
	readme := mustRead(t, root, "README.md")
	testenv := mustRead(t, root, "internal/testenv/testenv.go")
	if !strings.Contains(testenv, "../shared/corpus") || !strings.Contains(readme, "`../shared/corpus`") {
		t.Error("the README must name ../shared/corpus, the path internal/testenv reads the corpus from")
	}
	for _, cmd := range []string{
		"`go test -v ./... | grep -- '--- SKIP'`",
		"`go test -json ./... | go run ./internal/testcount`",
	} {
		if !strings.Contains(readme, cmd) {
			t.Errorf("the README lacks %s", cmd)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "internal/testcount/main.go")); err != nil {
		t.Errorf("the README runs ./internal/testcount: %v", err)
	}
}
