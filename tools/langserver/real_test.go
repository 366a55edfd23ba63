package langserver

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

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

// An import turned around file by file, as a refactor through hostd's
// tools writes it: w came to own the shape r had and w imported; a new
// file of w declares it, then r comes to import w while w still imports
// r (a cycle, for a moment), then the user of both, then w stops
// importing r. Once all are written every file's errors are none (the
// replay of this repository's history found the cycle's errors kept
// after it: "missing metadata for import", and r's types as they were,
// when the server's queue was full and refused the news of the writes).
func TestImportTurnedAroundLeavesNoErrors(t *testing.T) {
	testenv.LanguageServer(t, "gopls")
	m := New(Options{})
	defer m.Close()
	root := testenv.TempDir(t)
	write := func(rel, text string) string { return writeIn(t, root, rel, text) }
	before := map[string]string{
		"go.mod":      "module example.com/m\n\ngo 1.22\n",
		"r/entry.go":  "package r\n\ntype Entry struct {\n\tPath string\n}\n",
		"r/use.go":    "package r\n\nfunc PathOf(e Entry) string { return e.Path }\n",
		"w/types.go":  "package w\n\nimport \"example.com/m/r\"\n\ntype Answer struct {\n\tEntries []r.Entry\n}\n",
		"w/codes.go":  "package w\n\nconst Code = 1\n",
		"w/old.go":    "package w\n\nconst Other = 2\n",
		"c/c.go":      "package c\n\nimport (\n\t\"example.com/m/r\"\n\t\"example.com/m/w\"\n)\n\nfunc F(e r.Entry) w.Answer { return w.Answer{Entries: []r.Entry{e}} }\n",
		"c/c_test.go": "package c\n\nimport (\n\t\"testing\"\n\n\t\"example.com/m/r\"\n)\n\nfunc TestF(t *testing.T) {\n\tif F(r.Entry{Path: \"x\"}).Entries[0].Path != \"x\" {\n\t\tt.Fatal()\n\t}\n}\n",
	}
	for rel, text := range before {
		write(rel, text)
	}
	p := func(rel string) string { return filepath.Join(root, rel) }
	// Before: clean, and the server has loaded the packages.
	if errs, ok, err := m.Errors(root, p("c/c.go"), before["c/c.go"], far()); !ok || err != nil || len(errs) != 0 {
		t.Fatalf("c/c.go before: %v %v %v", errs, ok, err)
	}
	after := []struct{ rel, text string }{
		{"w/review.go", "package w\n\ntype ReviewEntry struct {\n\tPath string\n}\n"},
		{"w/codes2.go", "package w\n\nconst Other = 2\n"}, // moved here from w/old.go, removed below
		{"r/entry.go", "package r\n\nimport \"example.com/m/w\"\n\ntype Entry struct {\n\tw.ReviewEntry\n\tCanon string\n}\n"},
		{"c/c.go", "package c\n\nimport (\n\t\"example.com/m/r\"\n\t\"example.com/m/w\"\n)\n\nfunc F(e r.Entry) w.Answer { return w.Answer{Entries: []w.ReviewEntry{e.ReviewEntry}} }\n"},
		{"c/c_test.go", "package c\n\nimport (\n\t\"testing\"\n\n\t\"example.com/m/r\"\n\t\"example.com/m/w\"\n)\n\nfunc TestF(t *testing.T) {\n\tif F(r.Entry{ReviewEntry: w.ReviewEntry{Path: \"x\"}}).Entries[0].Path != \"x\" {\n\t\tt.Fatal()\n\t}\n}\n"},
		{"w/types.go", "package w\n\ntype Answer struct {\n\tEntries []ReviewEntry\n}\n"},
	}
	// The server is held on earlier work, its queue full, while the
	// files are written: each write's check is refused (busy), and the
	// server must still come to know every file as it is on disk.
	m.mu.Lock()
	s := m.servers[key{root, "go"}]
	m.mu.Unlock()
	release := make(chan struct{})
	if !s.submit(func(*proc, error) { <-release }) {
		t.Fatal("the holding job was refused")
	}
	for s.submit(func(*proc, error) {}) {
	}
	for _, a := range after {
		write(a.rel, a.text)
		old, had := before[a.rel]
		if _, _, ok, err := m.Changed(root, p(a.rel), old, had, a.text).Wait(far()); ok || err == nil {
			t.Fatalf("%s: the check was not refused (%v)", a.rel, err)
		}
	}
	if err := os.Remove(p("w/old.go")); err != nil {
		t.Fatal(err)
	}
	m.Removed(root, p("w/old.go"))
	close(release)
	// Each file asked is opened with its text, as the diagnostics tool
	// asks; the files they depend on the server knows from disk only.
	for _, rel := range []string{"c/c.go", "r/use.go", "w/codes.go", "w/codes2.go"} {
		text, err := os.ReadFile(p(rel))
		if err != nil {
			t.Fatal(err)
		}
		errs, ok, err := m.Errors(root, p(rel), string(text), far())
		if !ok || err != nil || len(errs) != 0 {
			t.Errorf("%s after the turn: %v %v %v; want no error", rel, errs, ok, err)
		}
	}
}

// A file whose build tags gopls does not use is in no package of its
// build: gopls checks it alone, without the package's other files, and
// names as undefined what they declare. Those are not the program's
// errors (go vet of the package finds none): none are reported. The
// replay of this repository's history found it (internal/spawn's
// hook_tagged.go, written in the same step as the package).
func TestFileOutsideTheBuildHasNoErrors(t *testing.T) {
	testenv.LanguageServer(t, "gopls")
	m := New(Options{})
	defer m.Close()
	root := testenv.TempDir(t)
	write := func(rel, text string) string { return writeIn(t, root, rel, text) }
	write("go.mod", "module example.com/m\n\ngo 1.22\n")
	tagged := "//go:build hostdtag\n\npackage s\n\nimport \"os\"\n\nfunc init() {\n\tif os.Getenv(HoldEnv) != \"\" {\n\t\tbeforeStart = func() {}\n\t}\n}\n"
	spawn := "package s\n\n// HoldEnv names the variable.\nconst HoldEnv = \"HOLD\"\n\nvar beforeStart func()\n\nfunc Start() {\n\tif beforeStart != nil {\n\t\tbeforeStart()\n\t}\n}\n"
	tp := write("s/tagged.go", tagged)
	if _, a, ok, err := m.Changed(root, tp, "", false, tagged).Wait(far()); !ok || err != nil || len(a) != 0 {
		t.Errorf("the tagged file, written first: %v %v %v; want no error", a, ok, err)
	}
	sp := write("s/spawn.go", spawn)
	if _, a, ok, err := m.Changed(root, sp, "", false, spawn).Wait(far()); !ok || err != nil || len(a) != 0 {
		t.Errorf("the package's file: %v %v %v; want no error", a, ok, err)
	}
	if errs, ok, err := m.Errors(root, tp, tagged, far()); !ok || err != nil || len(errs) != 0 {
		t.Errorf("the tagged file, once its package is written: %v %v %v; want no error", errs, ok, err)
	}
	// The package's own files are still checked.
	broken := strings.Replace(spawn, "beforeStart()\n", "beforeStart(1)\n", 1)
	write("s/spawn.go", broken)
	if _, a, ok, err := m.Changed(root, sp, spawn, true, broken).Wait(far()); !ok || err != nil || !slices.Equal(lines(a), []int{10}) {
		t.Errorf("a call with too many arguments: %v %v %v; want the error at line 10", a, ok, err)
	}
}

// An import turned around file by file, each write answered as it is
// made (the shape of this repository's commit that moved the wire types
// below review and rollback): r comes to import w while w imports b,
// which imports r, and the cycle lasts until w's last file stops
// importing b. gopls keeps what it loaded during the cycle: once all is
// written it still says "missing metadata for import" in r, and names
// r's old types in r, b and c, though the module compiles. The server
// says its view is stale, so it is started again: every file has no
// error.
func TestImportCycleBrokenLeavesNoErrors(t *testing.T) {
	testenv.LanguageServer(t, "gopls")
	m := New(Options{})
	defer m.Close()
	root := testenv.TempDir(t)
	write := func(rel, text string) string { return writeIn(t, root, rel, text) }
	before := map[string]string{
		"go.mod":      "module example.com/m\n\ngo 1.22\n",
		"r/entry.go":  "package r\n\ntype Entry struct {\n\tPath string\n}\n",
		"r/use.go":    "package r\n\nfunc PathOf(e Entry) string { return e.Path }\n",
		"w/types.go":  "package w\n\nimport \"example.com/m/r\"\n\ntype Answer struct {\n\tEntries []r.Entry\n}\n",
		"c/c.go":      "package c\n\nimport (\n\t\"example.com/m/r\"\n\t\"example.com/m/w\"\n)\n\nfunc F(e r.Entry) w.Answer { return w.Answer{Entries: []r.Entry{e}} }\n",
		"b/rewind.go": "package b\n\nimport \"example.com/m/r\"\n\ntype Plan struct {\n\tPath string\n}\n\nfunc P(e r.Entry) Plan { return Plan{Path: e.Path} }\n",
		"w/plan.go":   "package w\n\nimport \"example.com/m/b\"\n\ntype Rewind struct {\n\tFiles []b.Plan\n}\n",
	}
	for rel, text := range before {
		write(rel, text)
	}
	p := func(rel string) string { return filepath.Join(root, rel) }
	if errs, ok, err := m.Errors(root, p("c/c.go"), before["c/c.go"], far()); !ok || err != nil || len(errs) != 0 {
		t.Fatalf("c/c.go before: %v %v %v", errs, ok, err)
	}
	after := []struct{ rel, text string }{
		{"w/review.go", "package w\n\ntype ReviewEntry struct {\n\tPath string\n}\n"},
		{"r/entry.go", "package r\n\nimport \"example.com/m/w\"\n\ntype Entry struct {\n\tw.ReviewEntry\n\tCanon string\n}\n"},
		{"b/rewind.go", "package b\n\nimport (\n\t\"example.com/m/r\"\n\t\"example.com/m/w\"\n)\n\nfunc P(e r.Entry) w.RewindFile { return w.RewindFile{Path: e.Path} }\n"},
		{"c/c.go", "package c\n\nimport (\n\t\"example.com/m/r\"\n\t\"example.com/m/w\"\n)\n\nfunc F(e r.Entry) w.Answer { return w.Answer{Entries: []w.ReviewEntry{e.ReviewEntry}} }\n"},
		{"w/plan.go", "package w\n\ntype RewindFile struct {\n\tPath string\n}\n\ntype Rewind struct {\n\tFiles []RewindFile\n}\n"},
		{"w/types.go", "package w\n\ntype Answer struct {\n\tEntries []ReviewEntry\n}\n"},
	}
	for _, a := range after {
		write(a.rel, a.text)
		old, had := before[a.rel]
		// Answered, pending or with the cycle's errors: the workspace
		// does not compile until the last write.
		if _, _, _, err := m.Changed(root, p(a.rel), old, had, a.text).Wait(far()); err != nil {
			t.Fatalf("%s: %v", a.rel, err)
		}
	}
	for _, rel := range []string{"r/entry.go", "r/use.go", "b/rewind.go", "c/c.go", "w/types.go", "w/review.go", "w/plan.go"} {
		text, err := os.ReadFile(p(rel))
		if err != nil {
			t.Fatal(err)
		}
		var errs []Diagnostic
		testenv.Until(t, time.Minute, rel+"'s errors to be answered", func() bool {
			var ok bool
			errs, ok, err = m.Errors(root, p(rel), string(text), far())
			return ok || err != nil
		})
		if err != nil || len(errs) != 0 {
			t.Errorf("%s after the turn: %v %v; want no error", rel, errs, err)
		}
	}
	st := status(t, m)
	if st.State != StateReady || st.Restarts != 0 {
		t.Fatalf("status %+v: want ready, and no restart (a refresh is not one)", st)
	}
	t.Logf("%d refreshes", st.Refreshes)
}

// writeIn writes text to rel under root, making its directories, and
// returns its path.
func writeIn(t *testing.T, root, rel, text string) string {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
