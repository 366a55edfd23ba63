package tools

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/internal/testenv"
	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/tools/langserver"
)

// The replay of real history through the language servers
// (docs/language-servers.md, "Measured"): a workspace is moved from one
// real version of a project to the next, each changed source file by
// the tools a model uses (a whole read, then the edit that turns it into
// the next version; a write for a new file; REM for a removed one), with
// the real server of the language running as the daemon runs it. An edit
// whose result compiles must get no diagnostic: whenever one is reported
// (in the result, or by the diagnostics tool once a pending result's
// server answered, or for a file of a version the replay reached), the
// compiler decides on the workspace as it then is. If it compiles, that
// is a false alarm and the test fails; if not (an edit in the middle of
// a change of several files), the error is the compiler's too and is
// counted apart.
//
// Go: this repository's own history, the first-parent commits since
// go.mod last changed (HOSTD_REPLAY=1: the last 40; long: all of them),
// checked by gopls, judged by go vet. TypeScript: the releases of immer
// (its src/*.ts ships in the npm package), from the tarballs .ci/run
// packs into .ci/lsp/replay (HOSTD_REPLAY=1: the last 30 releases; long:
// all it packed), checked by typescript-language-server, judged by tsc.

// diagReplay drives one workspace from version to version.
type diagReplay struct {
	t        *testing.T
	e        *editEnv
	m        *langserver.Manager
	serves   func(rel string) bool                                    // the files the language server checks
	compiles func(rel string, found []wire.Diagnostic) (bool, string) // the judge, on the workspace as it is
	// names says the judge's output names an error at d's line of rel;
	// nil when it names only the first (go vet): then it is enough that
	// it fails.
	names func(out, rel string, d wire.Diagnostic) bool
	// The figures.
	edits, writes, removes, merged, pending, reported, brokenMid, falseAlarms int
	took                                                                      []time.Duration
}

func newDiagReplay(t *testing.T) *diagReplay {
	e := newEditEnvLimits(t, config.DefaultLimits())
	// The daemon's bounds: a server over its memory is ended, and
	// restarted on the next need, up to its restarts.
	m := langserver.New(langserver.Options{MaxRestarts: langserver.DefaultMaxRestarts})
	t.Cleanup(m.Close)
	// The daemon's default wait: what a model sees. A result past it is
	// pending, and the replay asks the diagnostics tool, as a model would.
	wait := time.Duration(config.DefaultLanguageServers().DiagnosticsMs) * time.Millisecond
	e.x = NewExecutor(Options{Sessions: e.m, Limits: e.lim, Tools: Builtin(), Diagnostics: m, DiagnosticsWait: wait})
	return &diagReplay{t: t, e: e, m: m}
}

// step moves the workspace to the next version: changed maps each path
// that changed to its new text, "" and gone for a removed file. A step
// that is not one change (a merge) is made by writes whose results are
// not judged: only the version it reaches is.
func (r *diagReplay) step(version string, changed map[string]string, gone map[string]bool, oneChange bool) {
	t, e := r.t, r.e
	// New files first, then the changed ones, then the removals, as a
	// change that adds a function and calls it is written: fewer versions
	// met half-way that do not compile.
	rank := func(rel string) int {
		switch {
		case gone[rel]:
			return 2
		case !e.exists(rel):
			return 0
		}
		return 1
	}
	paths := slices.SortedFunc(func(yield func(string) bool) {
		for p := range changed {
			if !yield(p) {
				return
			}
		}
	}, func(a, b string) int {
		if c := rank(a) - rank(b); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	var checked []string
	for _, rel := range paths {
		post := changed[rel]
		if !r.serves(rel) {
			if gone[rel] {
				os.Remove(filepath.Join(e.root, rel))
			} else {
				e.write(rel, post)
			}
			continue
		}
		var found []wire.Diagnostic
		var pending bool
		start := time.Now()
		switch {
		case gone[rel]:
			res := e.edit(rel, e.readWhole(rel), "REM")
			if !res.OK {
				t.Fatalf("%s: REM %s: %s", version, rel, res.Content)
			}
			r.removes++
			continue
		case !oneChange || !e.exists(rel) || !replayable(rel, post) || !replayable(rel, e.file(rel)):
			if e.exists(rel) && e.file(rel) == post {
				continue
			}
			w := e.writeTool(rel, post)
			if !w.OK || e.file(rel) != post {
				t.Fatalf("%s: write %s: %s", version, rel, w.Content)
			}
			checked = append(checked, rel)
			if !oneChange {
				r.merged++
				continue
			}
			found, pending = w.Diagnostics, w.DiagnosticsPending
			r.writes++
		default:
			pre := e.file(rel)
			if pre == post {
				continue
			}
			tag := e.readWhole(rel)
			ops, _, err := editOps(pre, post)
			if err != nil {
				t.Fatalf("%s %s: %v", version, rel, err)
			}
			res := e.edit(rel, tag, ops)
			if !res.OK || e.file(rel) != post {
				t.Fatalf("%s: edit %s did not land the next version: %s", version, rel, res.Content)
			}
			found, pending = res.Diagnostics, res.DiagnosticsPending
			r.edits++
		}
		r.took = append(r.took, time.Since(start))
		if !slices.Contains(checked, rel) {
			checked = append(checked, rel)
		}
		if pending {
			// The server did not answer within the daemon's wait (a cold
			// start): ask for the file's errors until it has, and hold all
			// of them, not only the new ones, to the rule.
			r.pending++
			found = r.current(version, rel)
		}
		if len(found) > 0 {
			r.reported++
			r.judge(version, rel, "the edit's result", found)
		}
	}
	// The version reached compiles as a whole: the files it changed have
	// no error now.
	for _, rel := range checked {
		if errs := r.current(version, rel); len(errs) > 0 {
			r.judge(version, rel, "the diagnostics tool at the version's end", errs)
		}
	}
}

// current is rel's errors by the diagnostics tool, asked again while its
// server has not answered for the file's current text.
func (r *diagReplay) current(version, rel string) []wire.Diagnostic {
	for range 30 { // each ask waits up to diagnosticsToolWait
		d := r.e.diagnostics(map[string]any{"path": rel})
		if !d.OK {
			r.t.Fatalf("%s: diagnostics %s: %s", version, rel, d.Content)
		}
		if len(d.Pending) == 0 {
			return d.Files[rel]
		}
	}
	r.t.Fatalf("%s: the server of %s never answered", version, rel)
	return nil
}

// judge decides on errors reported for rel: the compiler, on the
// workspace as it is, finds an error too (a version met half-way), or
// they are false alarms.
func (r *diagReplay) judge(version, rel, where string, found []wire.Diagnostic) {
	ok, out := r.compiles(rel, found)
	var b strings.Builder
	unnamed := false
	for _, d := range found {
		fmt.Fprintf(&b, "\n  line %d: %s [%s]", d.Line, d.Message, d.Code)
		if r.names != nil && !r.names(out, rel, d) {
			unnamed = true
			b.WriteString(" (the compiler names no error there)")
		}
	}
	if ok || unnamed {
		r.falseAlarms++
		r.t.Errorf("FALSE ALARM %s %s: %s names errors the compiler does not find:%s\n  compiler: %.600s", version, rel, where, b.String(), out)
		return
	}
	r.brokenMid++
	r.t.Logf("%s %s: %s names errors; the compiler agrees the workspace does not compile here:%s\n  compiler: %.400s", version, rel, where, b.String(), out)
}

func (r *diagReplay) report(lang string) {
	r.t.Logf("%s: %d edits, %d writes of new files, %d removals replayed (and %d files written by merges, judged as the version they reach); %d results pending past the daemon's wait; %d results or files with errors: %d where the compiler agrees (a change of several files met half-way), %d false alarms; time per edit or write p50 %v p99 %v",
		lang, r.edits, r.writes, r.removes, r.merged, r.pending, r.reported, r.brokenMid, r.falseAlarms, quantile(r.took, 0.5), quantile(r.took, 0.99))
	for _, st := range r.m.Status() {
		r.t.Logf("%s server: %s, %s, %d restarts, %d refreshes %s", st.Language, st.State, fmtMiB(st.RSSBytes), st.Restarts, st.Refreshes, st.LastError)
	}
	if r.edits == 0 {
		r.t.Fatal("no edit replayed")
	}
}

// readWhole reads rel through the read tool, as a model does before an
// edit, and returns its tag (every line seen).
func (e *editEnv) readWhole(rel string) string {
	e.t.Helper()
	rr := e.read(map[string]any{"path": rel, "limit": e.lim.MaxReadLimit})
	if !rr.OK || rr.Tag == "" {
		e.t.Fatalf("read %s: %s", rel, rr.Content)
	}
	if rr.Truncated {
		return e.showAll(rel)
	}
	return rr.Tag
}

// goReplayEnd is the last commit of this repository's history the Go
// replay moves through (its CI size the 40 first-parent commits up to it,
// among them the one that turned the wire package's imports around);
// HOSTD_REPLAY_GO_END names another.
const goReplayEnd = "997d98cdde41e258237e9c845a6762ed02b67b9a"

// TestDiagnosticsReplayGo replays this repository's Go history through
// gopls.
func TestDiagnosticsReplayGo(t *testing.T) {
	size := replaySize(t)
	testenv.LanguageServer(t, "gopls")
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the replay's judge needs the go command")
	}
	repo := testenv.ModuleRoot(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("the replay needs git")
	}
	// A fixed stretch of history, so every run replays the same edits:
	// the commits up to goReplayEnd since go.mod last changed before it
	// (the module cache holds what each needs, and no commit changes what
	// gopls loaded from go.mod).
	goReplayEnd := goReplayEnd
	if end := os.Getenv("HOSTD_REPLAY_GO_END"); end != "" {
		goReplayEnd = end // another stretch, such as the newest commits (HEAD)
	}
	if _, err := git(repo, "cat-file", "-e", goReplayEnd+"^{commit}"); err != nil {
		t.Skipf("the replay needs the module to be a git checkout with commit %s: %v", goReplayEnd, err)
	}
	since, err := git(repo, "log", "--first-parent", "--format=%H", "-n", "1", goReplayEnd, "--", "go.mod", "go.sum")
	if err != nil {
		t.Fatal(err)
	}
	out, err := git(repo, "rev-list", "--first-parent", "--reverse", strings.TrimSpace(since)+".."+goReplayEnd)
	if err != nil {
		t.Fatal(err)
	}
	commits := strings.Fields(out)
	n := 40
	if size > 40 {
		n = len(commits)
	}
	if len(commits) < 2 {
		t.Skip("fewer than two commits since go.mod last changed (a shallow clone?)")
	}
	commits = commits[max(0, len(commits)-n-1):]

	r := newDiagReplay(t)
	r.serves = func(rel string) bool {
		return strings.HasSuffix(rel, ".go") && !slices.Contains(strings.Split(rel, "/"), "testdata")
	}
	r.compiles = func(rel string, found []wire.Diagnostic) (bool, string) {
		// The platform of this machine, and any other gopls names an
		// error for ("undefined: f [darwin]": a file of that platform).
		platforms := []string{""}
		for _, d := range found {
			if m := platformTag.FindStringSubmatch(d.Message); m != nil && !slices.Contains(platforms, m[1]) {
				platforms = append(platforms, m[1])
			}
		}
		var all strings.Builder
		for _, goos := range platforms {
			// -trimpath: the packages' paths in this temporary copy do
			// not key the build cache, so a package built once is not
			// built again for the next judgement.
			cmd := exec.Command(goCmd, "vet", "-trimpath", "./"+path.Dir(rel))
			cmd.Dir = r.e.root
			cmd.Env = append(os.Environ(), "GOFLAGS=-mod=readonly", "GOWORK=off")
			if goos != "" {
				cmd.Env = append(cmd.Env, "GOOS="+goos)
			}
			out, err := cmd.CombinedOutput()
			all.Write(out)
			if err != nil {
				return false, all.String()
			}
		}
		return true, all.String()
	}
	extractGitTree(t, repo, commits[0], r.e.root)
	for i := 1; i < len(commits); i++ {
		parent, c := commits[i-1], commits[i]
		st, err := git(repo, "diff", "--no-renames", "--name-status", parent, c)
		if err != nil {
			t.Fatal(err)
		}
		changed, gone := map[string]string{}, map[string]bool{}
		for _, row := range strings.Split(strings.TrimSpace(st), "\n") {
			status, rel, ok := strings.Cut(row, "\t")
			if !ok {
				continue
			}
			if status == "D" {
				changed[rel], gone[rel] = "", true
				continue
			}
			text, err := git(repo, "cat-file", "blob", c+":"+rel)
			if err != nil {
				t.Fatal(err)
			}
			changed[rel] = text
		}
		parents, err := git(repo, "rev-list", "--parents", "-n", "1", c)
		if err != nil {
			t.Fatal(err)
		}
		r.step(c[:10], changed, gone, len(strings.Fields(parents)) == 2)
	}
	r.report(fmt.Sprintf("go (%d commits of this repository)", len(commits)-1))
}

// platformTag is the platform gopls names at the end of an error found
// by a build of another one.
var platformTag = regexp.MustCompile(` \[(aix|android|darwin|dragonfly|freebsd|illumos|ios|js|linux|netbsd|openbsd|plan9|solaris|wasip1|windows)\]$`)

// extractGitTree writes commit's tree into dir.
func extractGitTree(t *testing.T, repo, commit, dir string) {
	t.Helper()
	cmd := exec.Command("git", "-C", repo, "archive", "--format=tar", commit)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	data, err := cmd.Output()
	if err != nil {
		t.Fatalf("git archive %s: %v: %s", commit, err, stderr.String())
	}
	untar(t, bytes.NewReader(data), dir, "")
}

// untar writes the regular files of a tar stream under dir, those under
// prefix only (and without it).
func untar(t *testing.T, r io.Reader, dir, prefix string) {
	t.Helper()
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		rel, ok := strings.CutPrefix(h.Name, prefix)
		if h.Typeflag != tar.TypeReg || !ok || !filepath.IsLocal(rel) {
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// immerTSConfig checks immer's sources as its build does: strict, and
// the one global its sources use without a declaration of their own
// (process.env.NODE_ENV, from @types/node in its repository) declared in
// env.d.ts.
const (
	immerTSConfig = `{"compilerOptions": {"strict": true, "target": "ES2022", "module": "ESNext", "moduleResolution": "Bundler",
 "noEmit": true, "skipLibCheck": true, "types": []}, "include": ["src/**/*.ts", "env.d.ts"]}
`
	immerEnv = "declare const process: {env: {NODE_ENV?: string}}\n"
)

// TestDiagnosticsReplayTypeScript replays immer's releases through
// typescript-language-server.
func TestDiagnosticsReplayTypeScript(t *testing.T) {
	size := replaySize(t)
	testenv.LanguageServer(t, "typescript-language-server")
	tsc := testenv.LanguageServer(t, "tsc")
	dir := filepath.Join(testenv.ModuleRoot(t), ".ci", "lsp", "replay")
	tarballs, _ := filepath.Glob(filepath.Join(dir, "immer-*.tgz"))
	if len(tarballs) < 2 {
		testenv.Missing(t, "no immer releases in %s: .ci/run packs them there (npm pack immer@<version> --pack-destination .ci/lsp/replay)", dir)
	}
	slices.SortFunc(tarballs, func(a, b string) int { return slices.Compare(semver(a), semver(b)) })
	if size <= 40 {
		tarballs = tarballs[max(0, len(tarballs)-30):]
	}

	r := newDiagReplay(t)
	r.serves = func(rel string) bool { return strings.HasSuffix(rel, ".ts") }
	r.compiles = func(string, []wire.Diagnostic) (bool, string) {
		cmd := exec.Command(tsc, "-p", ".", "--pretty", "false")
		cmd.Dir = r.e.root
		out, err := cmd.CombinedOutput()
		return err == nil, string(out)
	}
	r.names = func(out, rel string, d wire.Diagnostic) bool {
		return strings.Contains(out, fmt.Sprintf("%s(%d,", rel, d.Line))
	}
	r.e.write("tsconfig.json", immerTSConfig)
	r.e.write("env.d.ts", immerEnv)
	prev := map[string]string{}
	for i, tgz := range tarballs {
		next := readImmerSources(t, tgz)
		if i == 0 {
			for rel, text := range next {
				r.e.write(rel, text)
			}
			if ok, out := r.compiles("", nil); !ok {
				t.Fatalf("%s does not compile, the replay cannot start from it:\n%s", filepath.Base(tgz), out)
			}
		} else {
			changed, gone := map[string]string{}, map[string]bool{}
			for rel, text := range next {
				if prev[rel] != text {
					changed[rel] = text
				}
			}
			for rel := range prev {
				if _, ok := next[rel]; !ok {
					changed[rel], gone[rel] = "", true
				}
			}
			r.step(strings.TrimSuffix(filepath.Base(tgz), ".tgz"), changed, gone, true)
		}
		prev = next
	}
	r.report(fmt.Sprintf("typescript (%d releases of immer)", len(tarballs)-1))
}

// readImmerSources is the src/ folder of an npm tarball of immer, by
// path in the workspace.
func readImmerSources(t *testing.T, tgz string) map[string]string {
	t.Helper()
	tmp := t.TempDir()
	f, err := os.Open(tgz)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", tgz, err)
	}
	untar(t, zr, tmp, "package/")
	out := map[string]string{}
	err = filepath.WalkDir(filepath.Join(tmp, "src"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(tmp, p)
		out[filepath.ToSlash(rel)] = string(data)
		return nil
	})
	if err != nil {
		t.Fatalf("%s: %v", tgz, err)
	}
	return out
}

// semver is the version in an npm tarball's name (name-1.2.3.tgz), as
// numbers to sort by.
func semver(tgz string) []int {
	base := strings.TrimSuffix(filepath.Base(tgz), ".tgz")
	v := base[strings.LastIndexByte(base, '-')+1:]
	var out []int
	for _, f := range strings.Split(v, ".") {
		n, _ := strconv.Atoi(f)
		out = append(out, n)
	}
	return out
}

func fmtMiB(n int64) string { return fmt.Sprintf("%d MiB", n>>20) }
