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

// A file's errors depend on the other files: once another file changes
// (here, to export the name the first one imports), asking again for
// the first file's unchanged text answers its errors now, not those it
// had before the other change (the replay of immer's releases found
// this).
func TestErrorsFollowAnotherFilesChange(t *testing.T) {
	for _, c := range []struct {
		server, a, b, aFixed, bName string
		line                        int
	}{
		{"typescript-language-server", "export const x = 1;\n", "import { y } from './a';\n\nexport const z = y;\n", "export const x = 1;\nexport const y = 2;\n", "b.ts", 1},
		{"gopls", "package x\n\nconst X = 1\n", "package x\n\nconst Z = Y\n", "package x\n\nconst X = 1\nconst Y = 2\n", "b.go", 3},
	} {
		t.Run(c.server, func(t *testing.T) {
			testenv.LanguageServer(t, c.server)
			m := New(Options{})
			defer m.Close()
			root := testenv.TempDir(t)
			if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/x\n\ngo 1.22\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			ext := filepath.Ext(c.bName)
			a, b := filepath.Join(root, "a"+ext), filepath.Join(root, c.bName)
			if err := os.WriteFile(a, []byte(c.a), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, after, err := change(t, m, root, b, "", false, c.b); err != nil || !slices.Equal(lines(after), []int{c.line}) {
				t.Fatalf("b, importing what a lacks: %v %v; want an error at line %d", after, err, c.line)
			}
			if _, after, err := change(t, m, root, a, c.a, true, c.aFixed); err != nil || len(after) != 0 {
				t.Fatalf("a's change: %v %v", after, err)
			}
			errs, ok, err := m.Errors(root, b, c.b, far())
			if !ok || err != nil || len(errs) != 0 {
				t.Fatalf("b after a's change: %v %v %v; want no error", errs, ok, err)
			}
		})
	}
}

// A file hostd removed is gone for the server too: the errors another
// file had because of it (a declaration in both) go with it (the replay
// of this repository's history found one: code moved to a new file,
// the old one removed).
func TestRemovedFileIsGoneForTheServer(t *testing.T) {
	for _, c := range []struct{ server, ext, decl string }{
		{"typescript-language-server", ".ts", "const shared = 1;\n"},
		{"gopls", ".go", "package x\n\nconst Shared = 1\n"},
	} {
		t.Run(c.server, func(t *testing.T) {
			testenv.LanguageServer(t, c.server)
			m := New(Options{})
			defer m.Close()
			root := testenv.TempDir(t)
			if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/x\n\ngo 1.22\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			// One project of every file (without it each script is a
			// project of its own).
			if err := os.WriteFile(filepath.Join(root, "tsconfig.json"), []byte(`{"compilerOptions": {"strict": true}}`), 0o644); err != nil {
				t.Fatal(err)
			}
			a, b := filepath.Join(root, "a"+c.ext), filepath.Join(root, "b"+c.ext)
			if err := os.WriteFile(a, []byte(c.decl), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, after, err := change(t, m, root, b, "", false, c.decl); err != nil || len(after) == 0 {
				t.Fatalf("b, declaring what a declares: %v %v; want an error", after, err)
			}
			if err := os.Remove(a); err != nil {
				t.Fatal(err)
			}
			m.Removed(root, a)
			errs, ok, err := m.Errors(root, b, c.decl, far())
			if !ok || err != nil || len(errs) != 0 {
				t.Fatalf("b after a was removed: %v %v %v; want no error", errs, ok, err)
			}
		})
	}
}
