package langserver

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/internal/testenv"
)

// The real servers .ci/run installs: a type error the change made is
// reported at its line, the fix clears it, and an edit that compiles
// gets none.

func TestGopls(t *testing.T) {
	testenv.LanguageServer(t, "gopls")
	m := New(Options{})
	defer m.Close()
	root := testenv.TempDir(t)
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/x\n\ngo 1.22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	good := "package x\n\nfunc F() int {\n\treturn 1\n}\n"
	bad := "package x\n\nfunc F() int {\n\treturn \"one\"\n}\n"
	realServer(t, m, root, filepath.Join(root, "x.go"), good, bad, 4)
}

func TestTypeScriptLanguageServer(t *testing.T) {
	testenv.LanguageServer(t, "typescript-language-server")
	m := New(Options{})
	defer m.Close()
	root := testenv.TempDir(t)
	good := "export function f(n: number): number {\n  return n + 1;\n}\n"
	bad := "export function f(n: number): number {\n  return n + 1;\n}\n\nexport const s: string = f(2);\n"
	realServer(t, m, root, filepath.Join(root, "x.ts"), good, bad, 5)
}

func realServer(t *testing.T, m *Manager, root, path, good, bad string, line int) {
	t.Helper()
	if err := os.WriteFile(path, []byte(good), 0o644); err != nil {
		t.Fatal(err)
	}
	b, a, err := change(t, m, root, path, good, true, bad)
	if err != nil || len(b) != 0 || !slices.Equal(lines(a), []int{line}) {
		t.Fatalf("the break: before %v after %v err %v; want one error at line %d", b, a, err, line)
	}
	b, a, err = change(t, m, root, path, bad, true, good)
	if err != nil || !slices.Equal(lines(b), []int{line}) || len(a) != 0 {
		t.Fatalf("the fix: before %v after %v err %v", b, a, err)
	}
	_, a, err = change(t, m, root, path, good, true, "// a comment\n"+good)
	if err != nil || len(a) != 0 {
		t.Fatalf("a clean edit: after %v err %v", a, err)
	}
	errs, ok, err := m.Errors(root, path, "// a comment\n"+good, far())
	if !ok || err != nil || len(errs) != 0 {
		t.Fatalf("Errors: %v %v %v", errs, ok, err)
	}
	st := status(t, m)
	if st.State != StateReady || st.Restarts != 0 || !strings.Contains(st.Command, filepath.Base(st.Command)) {
		t.Fatalf("status %+v", st)
	}
}
