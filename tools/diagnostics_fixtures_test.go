package tools

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/internal/testenv"
	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/tools/langserver"
	"github.com/hostd-dev/hostd/workspace"
)

// fixturesTSConfig is the project both the language server and the
// compiler check the fixtures in: strict, and every file a module of its
// own, so one fixture's declarations never meet another's.
const fixturesTSConfig = `{"compilerOptions": {"strict": true, "target": "ES2022", "module": "ESNext", "moduleResolution": "Bundler",
 "moduleDetection": "force", "noEmit": true, "skipLibCheck": true, "types": []}}
`

// tscError is one line of tsc --pretty false: path(line,col): error TSn: message.
var tscError = regexp.MustCompile(`^(.+)\((\d+),\d+\): error (TS\d+): (.*)$`)

// compilerNewErrors runs tsc once over every fixture's input and expected
// versions, and returns, by fixture, the lines of the input's errors
// that expected's do not explain (the rule of the write's result), and
// the lines of expected's errors.
func compilerNewErrors(t *testing.T, tsc, dir string, cases []fixtureFix) (newLines, goodLines map[string][]int) {
	t.Helper()
	oracle := testenv.TempDir(t)
	if err := os.WriteFile(filepath.Join(oracle, "tsconfig.json"), []byte(fixturesTSConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		for _, v := range []string{"input", "expected"} {
			data, err := os.ReadFile(filepath.Join(dir, "fixtures", c.ID, v, c.File))
			if err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(oracle, v, c.ID, c.File)
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	cmd := exec.Command(tsc, "-p", ".", "--pretty", "false")
	cmd.Dir = oracle       // paths in its output are relative to it
	out, _ := cmd.Output() // exit status 2 when there are errors, as there are
	errs := map[string][]Diagnostic{}
	for _, line := range strings.Split(string(out), "\n") {
		m := tscError.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[2])
		errs[filepath.ToSlash(m[1])] = append(errs[filepath.ToSlash(m[1])], Diagnostic{Line: n, EndLine: n, Message: m[4], Code: m[3]})
	}
	if len(errs) == 0 {
		t.Fatalf("tsc reported no error at all:\n%s", out)
	}
	res, good := map[string][]int{}, map[string][]int{}
	for _, c := range cases {
		good[c.ID] = slices.Compact(lineOfErrors(wireDiagnostics(errs["expected/"+c.ID+"/"+c.File])))
		in, _ := os.ReadFile(filepath.Join(dir, "fixtures", c.ID, "input", c.File))
		ex, _ := os.ReadFile(filepath.Join(dir, "fixtures", c.ID, "expected", c.File))
		copies := unchangedCopies(workspace.Lines(string(ex)), workspace.Lines(string(in)), time.Second)
		for _, d := range newDiagnostics(errs["expected/"+c.ID+"/"+c.File], errs["input/"+c.ID+"/"+c.File], true, copies) {
			res[c.ID] = append(res[c.ID], d.Line)
		}
	}
	return res, good
}

// TestTSFixturesDiagnostics: the 106 fixtures of ts-edit-fixtures, each a
// real file with a seeded bug and its fix, in one project checked by a
// real typescript-language-server. A write of the buggy version over the
// good one reports the error at each line where the compiler (tsc, the
// same TypeScript, the same tsconfig) finds one the good version does
// not have, and nowhere else; the fixture's fix, applied with the edit
// tool, reports no new error and leaves none of those lines in error.
func TestTSFixturesDiagnostics(t *testing.T) {
	testenv.LanguageServer(t, "typescript-language-server")
	tsc := testenv.LanguageServer(t, "tsc")
	dir, cases := loadFixtureFixes(t)
	want, good := compilerNewErrors(t, tsc, dir, cases)

	e := newEditEnv(t)
	withServers(e, langserver.Options{}, far)
	e.write("tsconfig.json", fixturesTSConfig)
	reported, alarms, fixed := 0, 0, 0
	var writeTimes, editTimes []time.Duration
	for _, c := range cases {
		rel := c.ID + "/" + c.File
		input, _ := os.ReadFile(filepath.Join(dir, "fixtures", c.ID, "input", c.File))
		expected, _ := os.ReadFile(filepath.Join(dir, "fixtures", c.ID, "expected", c.File))
		e.write(rel, string(expected))

		start := time.Now()
		w := e.writeTool(rel, string(input))
		writeTimes = append(writeTimes, time.Since(start))
		if !w.OK || w.DiagnosticsPending {
			t.Fatalf("%s: the break: ok %v pending %v\n%s", c.ID, w.OK, w.DiagnosticsPending, w.Content)
		}
		got := []int{}
		for _, d := range w.Diagnostics {
			got = append(got, d.Line)
		}
		got = slices.Compact(got)
		wantLines := slices.Compact(slices.Clone(want[c.ID]))
		if wantLines == nil {
			wantLines = []int{}
		}
		if !slices.Equal(got, wantLines) {
			t.Errorf("%s: the break reported errors at lines %v; the compiler finds new ones at %v\n%s", c.ID, got, wantLines, w.Content)
			continue
		}
		if len(got) > 0 {
			reported++
		}

		// The fix, as the fixture's patch, under the tag the write minted.
		ops := patchHeader.ReplaceAllString(c.Patch, "["+rel+"#"+w.Tag+"]\n")
		start = time.Now()
		r := e.edit(rel, w.Tag, ops)
		editTimes = append(editTimes, time.Since(start))
		wantOK(t, r)
		if e.file(rel) != string(expected) {
			t.Fatalf("%s: the fix did not give expected/", c.ID)
		}
		if r.DiagnosticsPending {
			t.Fatalf("%s: the fix's diagnostics are pending", c.ID)
		}
		// The fix may name an error the good version has too, on a line the
		// bug had changed (an import of a file the fixture lacks): new to
		// the buggy version, and the compiler's. Any other is a false alarm.
		for _, d := range r.Diagnostics {
			if !slices.Contains(good[c.ID], d.Line) {
				alarms++
				t.Errorf("%s: the fix reported an error at line %d the compiler does not find: %s", c.ID, d.Line, d.Message)
			}
		}
		d := e.diagnostics(map[string]any{"path": rel})
		if !d.OK {
			t.Fatalf("%s: diagnostics: %s", c.ID, d.Content)
		}
		// The fixed file's errors are the compiler's errors of expected/
		// (imports of the project's other files it cannot find, say).
		if now := slices.Compact(lineOfErrors(d.Files[rel])); !slices.Equal(now, good[c.ID]) && !(len(now) == 0 && len(good[c.ID]) == 0) {
			t.Errorf("%s: after the fix, errors at lines %v; the compiler finds them at %v\n%s", c.ID, now, good[c.ID], d.Content)
			continue
		}
		if len(wantLines) > 0 {
			fixed++
		}
	}
	compilerReports := 0
	for _, c := range cases {
		if len(want[c.ID]) > 0 {
			compilerReports++
		}
	}
	t.Logf("%d of %d fixtures' bugs are reported by the compiler; hostd reported %d of them at the compiler's lines, and the fix cleared %d; %d errors the compiler does not find reported on the fixes",
		compilerReports, len(cases), reported, fixed, alarms)
	t.Logf("with the warm server (first call left out): write of the bug p50 %v p99 %v; edit of the fix p50 %v p99 %v",
		quantile(writeTimes[1:], 0.5), quantile(writeTimes[1:], 0.99), quantile(editTimes[1:], 0.5), quantile(editTimes[1:], 0.99))
	if compilerReports == 0 {
		t.Fatal("the compiler reports no fixture's bug: the oracle is broken")
	}
}

func lineOfErrors(ds []wire.Diagnostic) []int {
	out := make([]int, len(ds))
	for i, d := range ds {
		out[i] = d.Line
	}
	return out
}

func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}
